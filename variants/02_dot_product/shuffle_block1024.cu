// Lab 2 variant, correct: 1024-thread blocks summed with warp shuffles (__shfl_down_sync), 32 warp sums in shared
// memory, warp 0 adds them: Justin Luitjens's "Faster Parallel Reductions on Kepler". The stretch is his
// grid-stride version of the same block sum.
#include "dot_product.hpp"

namespace {

constexpr int kBlock = 1024;
constexpr int kWarpSize = 32;
constexpr int kWarps = kBlock / kWarpSize;  // 32: warp 0 sums them in one more round of shuffles
constexpr unsigned kFullMask = 0xffffffffu;
constexpr int kBlocksPerSm = 2;  // 2 x 1024 threads: what an H100 SM holds at once

__device__ float warp_sum(float value)
{
#pragma unroll
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) value += __shfl_down_sync(kFullMask, value, offset);
    return value;
}

// The block's sum of `value`, in thread 0.
__device__ float block_sum(float value)
{
    __shared__ float warp_sums[kWarps];
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    value = warp_sum(value);
    if (lane == 0) warp_sums[warp] = value;
    __syncthreads();
    return warp == 0 ? warp_sum(warp_sums[lane]) : 0.0f;
}

__global__ void dot_product_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ result, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float sum = block_sum(i < n ? a[i] * b[i] : 0.0f);
    if (threadIdx.x == 0) atomicAdd(result, sum);
}

__global__ void dot_product_grid_stride_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                               float* __restrict__ result, int n)
{
    float partial = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) partial += a[i] * b[i];
    const float sum = block_sum(partial);
    if (threadIdx.x == 0) atomicAdd(result, sum);
}

int sm_count()
{
    static const int count = [] {
        int device = 0, sms = 0;
        CML_CHECK(cudaGetDevice(&device));
        CML_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        return sms;
    }();
    return count;
}

}  // namespace

void dot_product(const float* a, const float* b, float* result, int n)
{
    CML_CHECK(cudaMemsetAsync(result, 0, sizeof(float)));
    if (n == 0) return;
    dot_product_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(a, b, result, n);
    CML_CHECK_LAUNCH();
}

const bool dot_product_grid_stride_attempted = true;

void dot_product_grid_stride(const float* a, const float* b, float* result, int n)
{
    CML_CHECK(cudaMemsetAsync(result, 0, sizeof(float)));
    if (n == 0) return;
    const int needed = cml::ceil_div(n, kBlock), full_gpu = sm_count() * kBlocksPerSm;
    dot_product_grid_stride_kernel<<<needed < full_gpu ? needed : full_gpu, kBlock>>>(a, b, result, n);
    CML_CHECK_LAUNCH();
}
