// Lab 6 variant, correct: Mark Harris's reduction 4 (first add during the load) applied to the lab's blocks: 128
// threads per CUDA block, each adding two of the block's 256 slots per element step, then one tree step with
// __syncthreads() and warp 0's tail (unrolled), or 4 warps of shuffles.
#include "warp_reduction.hpp"

namespace {

constexpr int kThreads = kBlock / 2;  // 128: each thread takes slot t and slot t + 128
constexpr int kWarpSize = 32;
constexpr int kWarps = kThreads / kWarpSize;
constexpr unsigned kFullMask = 0xffffffffu;

// The elements of slots t and t + kThreads of block blockIdx.x (warp_reduction.hpp's layout), added at load.
__device__ float two_slot_sum(const float* __restrict__ in, int n, int per_thread)
{
    const int first = blockIdx.x * kBlock * per_thread + threadIdx.x;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < kMaxPerThread; ++k) {
        const int j = first + k * kBlock;
        if (k < per_thread && j < n) sum += in[j];
        if (k < per_thread && j + kThreads < n) sum += in[j + kThreads];
    }
    return sum;
}

__global__ void block_sums_unrolled_kernel(const float* __restrict__ in, float* __restrict__ partial, int n,
                                           int per_thread)
{
    __shared__ float cache[kThreads];
    const int t = threadIdx.x;
    cache[t] = two_slot_sum(in, n, per_thread);
    __syncthreads();
    if (t < 64) cache[t] += cache[t + 64];  // warps 0 and 1 read what warps 2 and 3 wrote
    __syncthreads();
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
    const float sum = warp_sum(two_slot_sum(in, n, per_thread));
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
