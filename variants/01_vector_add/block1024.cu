// Lab 1 variant, correct: the coalesced kernel with the largest block, 1024 threads, one element each.
#include "vector_add.hpp"

namespace {

constexpr int kBlock = 1024;  // the most threads a block may have; 2 blocks fill an H100 SM

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, int n)
{
    if (n == 0) return;
    vector_add_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(a, b, c, n);
    CML_CHECK_LAUNCH();
}

const bool vector_add_float4_attempted = false;

void vector_add_float4(const float* a, const float* b, float* c, int n)
{
    (void)a, (void)b, (void)c, (void)n;
}
