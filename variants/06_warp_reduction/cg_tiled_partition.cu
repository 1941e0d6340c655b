// Lab 6 variant, correct: cooperative groups. The unrolled tail of warp 0 waits with its tiled_partition<32>'s
// sync() instead of __syncwarp(), the tree with block.sync(); the shuffle part is cg::reduce over each warp, then
// over the 8 warp sums.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "warp_reduction.hpp"

namespace cg = cooperative_groups;

namespace {

constexpr int kWarpSize = 32;
constexpr int kWarpsPerBlock = kBlock / kWarpSize;

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

__global__ void block_sums_unrolled_kernel(const float* __restrict__ in, float* __restrict__ partial, int n,
                                           int per_thread)
{
    __shared__ float cache[kBlock];
    const cg::thread_block block = cg::this_thread_block();
    const cg::thread_block_tile<kWarpSize> warp = cg::tiled_partition<kWarpSize>(block);
    const int t = int(block.thread_rank());
    cache[t] = thread_sum(in, n, per_thread);
    block.sync();
    for (int stride = kBlock / 2; stride > kWarpSize; stride /= 2) {
        if (t < stride) cache[t] += cache[t + stride];
        block.sync();
    }
    if (warp.meta_group_rank() == 0) {
        volatile float* v = cache;
        float sum = v[t];
        for (int stride = kWarpSize; stride > 0; stride /= 2) {
            sum += v[t + stride];
            warp.sync();  // every lane has read before any lane overwrites
            v[t] = sum;
            warp.sync();  // every lane has written before the next read
        }
        if (t == 0) partial[blockIdx.x] = sum;
    }
}

__global__ void block_sums_shuffle_kernel(const float* __restrict__ in, float* __restrict__ partial, int n,
                                          int per_thread)
{
    __shared__ float warp_sums[kWarpsPerBlock];
    const cg::thread_block block = cg::this_thread_block();
    const cg::thread_block_tile<kWarpSize> warp = cg::tiled_partition<kWarpSize>(block);
    const float sum = cg::reduce(warp, thread_sum(in, n, per_thread), cg::plus<float>());
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = sum;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        const int lane = int(warp.thread_rank());
        const float block_sum = cg::reduce(warp, lane < kWarpsPerBlock ? warp_sums[lane] : 0.0f, cg::plus<float>());
        if (lane == 0) partial[blockIdx.x] = block_sum;
    }
}

}  // namespace

void block_sums_unrolled(const float* in, float* partial, int n, int per_thread)
{
    if (n == 0) return;
    block_sums_unrolled_kernel<<<block_count(n, per_thread), kBlock>>>(in, partial, n, per_thread);
    CML_CHECK_LAUNCH();
}

void block_sums_shuffle(const float* in, float* partial, int n, int per_thread)
{
    if (n == 0) return;
    block_sums_shuffle_kernel<<<block_count(n, per_thread), kBlock>>>(in, partial, n, per_thread);
    CML_CHECK_LAUNCH();
}
