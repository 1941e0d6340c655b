// Lab 6 variant, correct: 64-thread CUDA blocks, each thread adding 4 of the block's 256 slots (t, t + 64, t + 128,
// t + 192) per element step; then one __syncthreads() and warp 0's tail from stride 32 (unrolled), or 2 warps of
// shuffles.
#include "warp_reduction.hpp"

namespace {

constexpr int kThreads = 64;
constexpr int kSlotsPerThread = kBlock / kThreads;
constexpr int kWarpSize = 32;
constexpr int kWarps = kThreads / kWarpSize;
constexpr unsigned kFullMask = 0xffffffffu;

__device__ float four_slot_sum(const float* __restrict__ in, int n, int per_thread)
{
    const int first = blockIdx.x * kBlock * per_thread + threadIdx.x;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < kMaxPerThread; ++k) {
#pragma unroll
        for (int s = 0; s < kSlotsPerThread; ++s) {
            const int j = first + k * kBlock + s * kThreads;  // at each (k, s) the block reads 64 neighbours
            if (k < per_thread && j < n) sum += in[j];
        }
    }
    return sum;
}

__global__ void block_sums_unrolled_kernel(const float* __restrict__ in, float* __restrict__ partial, int n,
                                           int per_thread)
{
    __shared__ float cache[kThreads];
    const int t = threadIdx.x;
    cache[t] = four_slot_sum(in, n, per_thread);
    __syncthreads();  // stride 32 reads the slots warp 1 wrote
    if (t < kWarpSize) {
        volatile float* v = cache;
        float sum = v[t];
        for (int stride = kWarpSize; stride > 0; stride /= 2) {
            sum += v[t + stride];
            __syncwarp();
            v[t] = sum;
            __syncwarp();
        }
        if (t == 0) partial[blockIdx.x] = sum;
    }
}

__device__ float warp_sum(float value)
{
#pragma unroll
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) value += __shfl_down_sync(kFullMask, value, offset);
    return value;
}

__global__ void block_sums_shuffle_kernel(const float* __restrict__ in, float* __restrict__ partial, int n,
                                          int per_thread)
{
    __shared__ float warp_sums[kWarps];
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    const float sum = warp_sum(four_slot_sum(in, n, per_thread));
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        const float block_sum = warp_sum(lane < kWarps ? warp_sums[lane] : 0.0f);
        if (lane == 0) partial[blockIdx.x] = block_sum;
    }
}

}  // namespace

void block_sums_unrolled(const float* in, float* partial, int n, int per_thread)
{
    if (n == 0) return;
    block_sums_unrolled_kernel<<<block_count(n, per_thread), kThreads>>>(in, partial, n, per_thread);
    CML_CHECK_LAUNCH();
}

void block_sums_shuffle(const float* in, float* partial, int n, int per_thread)
{
    if (n == 0) return;
    block_sums_shuffle_kernel<<<block_count(n, per_thread), kThreads>>>(in, partial, n, per_thread);
    CML_CHECK_LAUNCH();
}
