// Lab 2 variant, wrong on purpose: the tree left out, the atomics thinned instead. Each thread sums 8 products
// (block-wide strides, so the loads stay coalesced) in a register and adds its partial sum with one atomicAdd:
// n / 8 same-address atomics where a tree per block leaves one per 256 or more elements.
#include "dot_product.hpp"

namespace {

constexpr int kBlock = 256;
constexpr int kPerThread = 8;

__global__ void dot_product_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ result, int n)
{
    const int first = blockIdx.x * kBlock * kPerThread + threadIdx.x;
    float sum = 0.0f;
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
        const int i = first + j * kBlock;
        if (i < n) sum += a[i] * b[i];
    }
    atomicAdd(result, sum);
}

}  // namespace

void dot_product(const float* a, const float* b, float* result, int n)
{
    CML_CHECK(cudaMemsetAsync(result, 0, sizeof(float)));
    if (n == 0) return;
    dot_product_kernel<<<cml::ceil_div(n, kBlock * kPerThread), kBlock>>>(a, b, result, n);
    CML_CHECK_LAUNCH();
}

const bool dot_product_grid_stride_attempted = false;

void dot_product_grid_stride(const float* a, const float* b, float* result, int n)
{
    (void)a, (void)b, (void)result, (void)n;
}
