// Lab 6 variant, wrong on purpose: the grader's baseline as a submission, for both parts: the full tree with a
// __syncthreads() after each of its 8 steps (H100, 1 element per thread: x1.00 of itself; solution x1.29 / x1.39).
#include "warp_reduction.hpp"

namespace {

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

void block_sums_unrolled(const float* in, float* partial, int n, int per_thread)
{
    if (n == 0) return;
    tree_kernel<<<block_count(n, per_thread), kBlock>>>(in, partial, n, per_thread);
    CML_CHECK_LAUNCH();
}

void block_sums_shuffle(const float* in, float* partial, int n, int per_thread)
{
    if (n == 0) return;
    tree_kernel<<<block_count(n, per_thread), kBlock>>>(in, partial, n, per_thread);
    CML_CHECK_LAUNCH();
}
