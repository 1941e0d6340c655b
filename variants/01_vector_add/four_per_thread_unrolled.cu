// Lab 1 variant, correct: each thread adds 4 elements, kBlock apart, in an unrolled loop of a kernel templated on
// its block size (128) and elements per thread: at each step the block's lanes read neighbouring floats.
#include "vector_add.hpp"

namespace {

constexpr int kBlock = 128;
constexpr int kPerThread = 4;

template <int kThreads, int kElements>
__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, int n)
{
    // The block owns kThreads * kElements elements; thread t takes t, t + kThreads, t + 2 kThreads, ...
    const int first = blockIdx.x * kThreads * kElements + threadIdx.x;
#pragma unroll
    for (int k = 0; k < kElements; ++k) {
        const int i = first + k * kThreads;
        if (i < n) c[i] = a[i] + b[i];
    }
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, int n)
{
    if (n == 0) return;
    vector_add_kernel<kBlock, kPerThread><<<cml::ceil_div(n, kBlock * kPerThread), kBlock>>>(a, b, c, n);
    CML_CHECK_LAUNCH();
}

const bool vector_add_float4_attempted = false;

void vector_add_float4(const float* a, const float* b, float* c, int n)
{
    (void)a, (void)b, (void)c, (void)n;
}
