// Lab 6 variant, correct: 1024-thread CUDA blocks, each computing four of the lab's partial sums (one per group of
// 256 threads, warps 8g to 8g + 7); the barriers are the whole CUDA block's, the warp tails each group's warp 0.
#include "warp_reduction.hpp"

namespace {

constexpr int kThreads = 1024;
constexpr int kGroups = kThreads / kBlock;  // partial sums per CUDA block
constexpr int kWarpSize = 32;
constexpr int kWarpsPerGroup = kBlock / kWarpSize;
constexpr unsigned kFullMask = 0xffffffffu;

// Thread t of group g: the lab's thread t of block 4 blockIdx.x + g (warp_reduction.hpp's layout).
__device__ float thread_sum(const float* __restrict__ in, int n, int per_thread, int block, int t)
{
    const long long first = (long long)block * kBlock * per_thread + t;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < kMaxPerThread; ++k) {
        const long long j = first + k * kBlock;
        if (k < per_thread && j < n) sum += in[j];
    }
    return sum;
}

__global__ void block_sums_unrolled_kernel(const float* __restrict__ in, float* __restrict__ partial, int n,
                                           int per_thread)
{
    __shared__ float cache[kThreads];
    const int group = threadIdx.x / kBlock, t = threadIdx.x % kBlock;
    const int block = blockIdx.x * kGroups + group;
    float* mine = cache + group * kBlock;
    mine[t] = thread_sum(in, n, per_thread, block, t);  // 0 for a group past the last block
    __syncthreads();
    for (int stride = kBlock / 2; stride > kWarpSize; stride /= 2) {
        if (t < stride) mine[t] += mine[t + stride];
        __syncthreads();  // every thread of the CUDA block reaches it, whatever its group
    }
    if (t < kWarpSize) {
        volatile float* v = mine;
        float sum = v[t];
        for (int stride = kWarpSize; stride > 0; stride /= 2) {
            sum += v[t + stride];
            __syncwarp();
            v[t] = sum;
            __syncwarp();
        }
        if (t == 0 && block < block_count(n, per_thread)) partial[block] = sum;
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
    __shared__ float warp_sums[kThreads / kWarpSize];
    const int group = threadIdx.x / kBlock, t = threadIdx.x % kBlock;
    const int block = blockIdx.x * kGroups + group;
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    const float sum = warp_sum(thread_sum(in, n, per_thread, block, t));
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (t < kWarpSize) {  // the group's first warp adds the group's 8 warp sums
        const float block_sum = warp_sum(lane < kWarpsPerGroup ? warp_sums[group * kWarpsPerGroup + lane] : 0.0f);
        if (lane == 0 && block < block_count(n, per_thread)) partial[block] = block_sum;
    }
}

}  // namespace

void block_sums_unrolled(const float* in, float* partial, int n, int per_thread)
{
    if (n == 0) return;
    block_sums_unrolled_kernel<<<cml::ceil_div(block_count(n, per_thread), kGroups), kThreads>>>(in, partial, n,
                                                                                             per_thread);
    CML_CHECK_LAUNCH();
}

void block_sums_shuffle(const float* in, float* partial, int n, int per_thread)
{
    if (n == 0) return;
    block_sums_shuffle_kernel<<<cml::ceil_div(block_count(n, per_thread), kGroups), kThreads>>>(in, partial, n,
                                                                                            per_thread);
    CML_CHECK_LAUNCH();
}
