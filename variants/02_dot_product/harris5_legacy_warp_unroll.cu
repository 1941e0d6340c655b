// Lab 2 variant, wrong on purpose: Mark Harris's reduction 5 as printed in 2007: the last warp unrolled with
// volatile and no __syncwarp(), trusting lock-step lanes. Since Volta that is a race within the warp: racecheck
// reports it (as warnings), and the CPU emulator, which runs the lanes apart, gets wrong sums.
#include "dot_product.hpp"

namespace {

constexpr int kBlock = 256;
constexpr int kPerBlock = 2 * kBlock;
constexpr int kWarpSize = 32;

__device__ void warp_reduce(volatile float* sdata, int tid)
{
    sdata[tid] += sdata[tid + 32];
    sdata[tid] += sdata[tid + 16];
    sdata[tid] += sdata[tid + 8];
    sdata[tid] += sdata[tid + 4];
    sdata[tid] += sdata[tid + 2];
    sdata[tid] += sdata[tid + 1];
}

__global__ void dot_product_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ result, int n)
{
    __shared__ float sdata[kBlock];
    const int tid = threadIdx.x;
    const int i = blockIdx.x * kPerBlock + tid;
    float sum = i < n ? a[i] * b[i] : 0.0f;
    if (i + kBlock < n) sum += a[i + kBlock] * b[i + kBlock];
    sdata[tid] = sum;
    __syncthreads();
    for (int s = kBlock / 2; s > kWarpSize; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < kWarpSize) warp_reduce(sdata, tid);
    if (tid == 0) atomicAdd(result, sdata[0]);
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
