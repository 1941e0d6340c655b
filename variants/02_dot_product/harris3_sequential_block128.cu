// Lab 2 variant, correct: Mark Harris's reduction 3 (sequential addressing) with 128-thread blocks, one element per
// thread, then one atomicAdd per block: twice the solution's atomics, so about half its speed where they bound it.
#include "dot_product.hpp"

namespace {

constexpr int kBlock = 128;  // a power of two: the tree halves it down to one slot

__global__ void dot_product_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ result, int n)
{
    __shared__ float products[kBlock];
    const int t = threadIdx.x;
    const int i = blockIdx.x * kBlock + t;
    products[t] = i < n ? a[i] * b[i] : 0.0f;
    __syncthreads();
    // Sequential addressing: the live slots stay contiguous, so the working threads fill whole warps.
    for (int stride = kBlock / 2; stride > 0; stride >>= 1) {
        if (t < stride) products[t] += products[t + stride];
        __syncthreads();  // the next step reads what other warps wrote in this one
    }
    if (t == 0) atomicAdd(result, products[0]);
}

}  // namespace

void dot_product(const float* a, const float* b, float* result, int n)
{
    CML_CHECK(cudaMemsetAsync(result, 0, sizeof(float)));  // ordered before the kernel's atomics
    if (n == 0) return;
    dot_product_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(a, b, result, n);
    CML_CHECK_LAUNCH();
}

const bool dot_product_grid_stride_attempted = false;

void dot_product_grid_stride(const float* a, const float* b, float* result, int n)
{
    (void)a, (void)b, (void)result, (void)n;
}
