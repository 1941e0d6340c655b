// Baseline for Lab 6: the textbook tree with sequential addressing and a __syncthreads() after every one of
// its 8 steps, even the last 5, where only one warp is still working. One partial sum per block, no atomics.
// On an H100, 64M floats: 922 GB/s at 1 element per thread (latency-bound: the unrolled last warp is x1.29,
// shuffles x1.39), 2743 GB/s at 8 per thread (memory-bound: all three versions within 0.5%).
#include "baseline.hpp"

#include "warp_reduction.hpp"

namespace {

// The same loads as thread_sum in labs/06_warp_reduction/kernel.cu: coalesced, all in flight together.
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

__global__ void tree_kernel(const float* __restrict__ in, float* __restrict__ partial, int n, int per_thread)
{
    __shared__ float cache[kBlock];
    const int t = threadIdx.x;
    cache[t] = thread_sum(in, n, per_thread);
    __syncthreads();
    for (int stride = kBlock / 2; stride > 0; stride /= 2) {
        if (t < stride) cache[t] += cache[t + stride];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = cache[0];
}

}  // namespace

void block_sums_tree(const float* in, float* partial, int n, int per_thread)
{
    if (n == 0) return;
    tree_kernel<<<block_count(n, per_thread), kBlock>>>(in, partial, n, per_thread);
    CML_CHECK_LAUNCH();
}
