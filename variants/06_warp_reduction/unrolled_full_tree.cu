// Lab 6 variant, wrong on purpose: the unrolled part left as the full tree, a __syncthreads() after each of its
// 8 steps, so every warp of the block issues every step; the shuffle part is written right. Correct and
// race-free, and on the H100 no slower than a correct kernel with 1024-thread blocks, so only the count of
// shared-memory loads its warps issue can show the lesson.
#include "warp_reduction.hpp"

namespace {

constexpr int kWarpSize = 32;
constexpr int kWarpsPerBlock = kBlock / kWarpSize;
constexpr unsigned kFullMask = 0xffffffffu;

// The skeleton's thread_sum: thread t of block b adds in[b * kBlock * per_thread + k * kBlock + t], k < per_thread.
__device__ float thread_sum(const float* __restrict__ in, int n, int per_thread)
{
    const int first = blockIdx.x * kBlock * per_thread + threadIdx.x;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < kMaxPerThread; ++k) {
        const int j = first + k * kBlock;
        if (k < per_thread && j < n) sum += in[j];
    }
    return sum;
}

__global__ void unrolled_as_full_tree_kernel(const float* __restrict__ in, float* __restrict__ partial, int n,
                                             int per_thread)
{
    __shared__ float cache[kBlock];
    const int t = threadIdx.x;
    cache[t] = thread_sum(in, n, per_thread);
    __syncthreads();
    for (int stride = kBlock / 2; stride > 0; stride /= 2) {  // the wrong part: the whole block to the end
        if (t < stride) cache[t] += cache[t + stride];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = cache[0];
}

__device__ float lanes_sum(float value)
{
#pragma unroll
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) value += __shfl_down_sync(kFullMask, value, offset);
    return value;
}

__global__ void shuffle_kernel(const float* __restrict__ in, float* __restrict__ partial, int n, int per_thread)
{
    __shared__ float per_warp[kWarpsPerBlock];
    const int lane = threadIdx.x % kWarpSize;
    const int warp = threadIdx.x / kWarpSize;
    const float sum = lanes_sum(thread_sum(in, n, per_thread));
    if (lane == 0) per_warp[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        const float total = lanes_sum(lane < kWarpsPerBlock ? per_warp[lane] : 0.0f);
        if (lane == 0) partial[blockIdx.x] = total;
    }
}

}  // namespace

void block_sums_unrolled(const float* in, float* partial, int n, int per_thread)
{
    if (n == 0) return;
    unrolled_as_full_tree_kernel<<<block_count(n, per_thread), kBlock>>>(in, partial, n, per_thread);
    CML_CHECK_LAUNCH();
}

void block_sums_shuffle(const float* in, float* partial, int n, int per_thread)
{
    if (n == 0) return;
    shuffle_kernel<<<block_count(n, per_thread), kBlock>>>(in, partial, n, per_thread);
    CML_CHECK_LAUNCH();
}
