// Lab 2 variant, wrong on purpose: no atomics at all, by giving the whole sum to one block of 1024 threads, each
// summing a strided slice, then a tree in shared memory. The answer is right and no atomic queues, but one SM of
// the GPU's hundred or more does all the reading.
#include "dot_product.hpp"

namespace {

constexpr int kBlock = 1024;  // a power of two, so the tree halves it down to one

__global__ void dot_product_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ result, int n)
{
    __shared__ float sums[kBlock];
    const int t = threadIdx.x;
    float sum = 0.0f;
    for (int i = t; i < n; i += kBlock) sum += a[i] * b[i];
    sums[t] = sum;
    for (int stride = kBlock / 2; stride > 0; stride /= 2) {
        __syncthreads();
        if (t < stride) sums[t] += sums[t + stride];
    }
    if (t == 0) *result = sums[0];
}

}  // namespace

void dot_product(const float* a, const float* b, float* result, int n)
{
    dot_product_kernel<<<1, kBlock>>>(a, b, result, n);
    CML_CHECK_LAUNCH();
}

const bool dot_product_grid_stride_attempted = false;

void dot_product_grid_stride(const float* a, const float* b, float* result, int n)
{
    (void)a, (void)b, (void)result, (void)n;
}
