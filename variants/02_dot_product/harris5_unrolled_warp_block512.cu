// Lab 2 variant, correct: Mark Harris's reduction 5 (reduction 4 with the last warp unrolled) with 512 threads and
// two products per thread, the last warp written for Volta and later: a register, and __syncwarp() around each write.
#include "dot_product.hpp"

namespace {

constexpr int kBlock = 512;
constexpr int kPerBlock = 2 * kBlock;
constexpr int kWarpSize = 32;

__global__ void dot_product_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ result, int n)
{
    __shared__ float products[kBlock];
    const int t = threadIdx.x;
    const int i = blockIdx.x * kPerBlock + t;
    const int j = i + kBlock;
    float sum = i < n ? a[i] * b[i] : 0.0f;
    if (j < n) sum += a[j] * b[j];
    products[t] = sum;
    __syncthreads();
    // While more than one warp works, the whole block meets after each step.
    for (int stride = kBlock / 2; stride > kWarpSize; stride >>= 1) {
        if (t < stride) products[t] += products[t + stride];
        __syncthreads();
    }
    if (t < kWarpSize) {
        // Lanes are scheduled independently since Volta: read, wait for the warp, write, wait again.
        volatile float* v = products;
        float warp_sum = v[t];
        for (int stride = kWarpSize; stride > 0; stride >>= 1) {
            warp_sum += v[t + stride];
            __syncwarp();
            v[t] = warp_sum;
            __syncwarp();
        }
        if (t == 0) atomicAdd(result, warp_sum);
    }
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
