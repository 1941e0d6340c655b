// Lab 1 variant, correct: vector_add itself moves float4s (16 bytes per lane per array), after Justin Luitjens's
// "CUDA Pro Tip: Increase Performance with Vectorized Memory Access"; the stretch is the same function.
#include "vector_add.hpp"

namespace {

constexpr int kBlock = 256;

__global__ void vector_add_float4_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                         float* __restrict__ c, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int vectors = n / 4;
    if (i < vectors) {
        const float4 x = reinterpret_cast<const float4*>(a)[i];
        const float4 y = reinterpret_cast<const float4*>(b)[i];
        reinterpret_cast<float4*>(c)[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    // The n % 4 floats after the last whole float4, one per thread of the first few.
    if (i < n % 4) c[vectors * 4 + i] = a[vectors * 4 + i] + b[vectors * 4 + i];
}

void launch(const float* a, const float* b, float* c, int n)
{
    const int threads = n / 4 > n % 4 ? n / 4 : n % 4;
    if (threads == 0) return;  // n == 0
    vector_add_float4_kernel<<<cml::ceil_div(threads, kBlock), kBlock>>>(a, b, c, n);
    CML_CHECK_LAUNCH();
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, int n)
{
    launch(a, b, c, n);
}

const bool vector_add_float4_attempted = true;

void vector_add_float4(const float* a, const float* b, float* c, int n)
{
    launch(a, b, c, n);
}
