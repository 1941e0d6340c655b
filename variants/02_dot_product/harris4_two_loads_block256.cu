// Lab 2 variant, correct: Mark Harris's reduction 4 (first add during the global load): 256 threads, each adding two
// products kBlock apart before the tree, so one atomicAdd per 512 elements.
#include "dot_product.hpp"

namespace {

constexpr int kBlock = 256;
constexpr int kPerBlock = 2 * kBlock;  // elements per block

__global__ void dot_product_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ result, int n)
{
    __shared__ float products[kBlock];
    const int t = threadIdx.x;
    const int i = blockIdx.x * kPerBlock + t;
    const int j = i + kBlock;  // both loads coalesced: the block's two halves
    float sum = i < n ? a[i] * b[i] : 0.0f;
    if (j < n) sum += a[j] * b[j];
    products[t] = sum;
    for (int stride = kBlock / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        if (t < stride) products[t] += products[t + stride];
    }
    if (t == 0) atomicAdd(result, products[0]);
}

}  // namespace

void dot_product(const float* a, const float* b, float* result, int n)
{
    CML_CHECK(cudaMemsetAsync(result, 0, sizeof(float)));
    if (n == 0) return;
    dot_product_kernel<<<cml::ceil_div(n, kPerBlock), kBlock>>>(a, b, result, n);
    CML_CHECK_LAUNCH();
}

const bool dot_product_grid_stride_attempted = false;

void dot_product_grid_stride(const float* a, const float* b, float* result, int n)
{
    (void)a, (void)b, (void)result, (void)n;
}
