// Lab 1 variant, correct: 128-thread blocks over the first half of the arrays, each thread adding element i and
// element i + half: both accesses coalesced, half as many threads.
#include "vector_add.hpp"

namespace {

constexpr int kBlock = 128;

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, int n, int half)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= half) return;
    c[i] = a[i] + b[i];
    const int j = i + half;  // the upper half; with n odd it holds one element more than the lower
    if (j < n) c[j] = a[j] + b[j];
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, int n)
{
    if (n == 0) return;
    const int half = (n + 1) / 2;  // threads needed: the upper half is [half, n), at most half long
    vector_add_kernel<<<cml::ceil_div(half, kBlock), kBlock>>>(a, b, c, n, half);
    CML_CHECK_LAUNCH();
}

const bool vector_add_float4_attempted = false;

void vector_add_float4(const float* a, const float* b, float* c, int n)
{
    (void)a, (void)b, (void)c, (void)n;
}
