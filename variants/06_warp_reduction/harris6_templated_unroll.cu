// Lab 6 variant, correct: Mark Harris's reduction 6, every step unrolled at compile time by a template on the block
// size (steps a smaller block does not need vanish), the warp tail with __syncwarp(); shuffles unrolled the same way.
#include "warp_reduction.hpp"

namespace {

constexpr int kWarpSize = 32;
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

// One block-wide step, compiled only where the block has more than kStride threads and the step spans warps.
template <int kThreads, int kStride>
__device__ void block_step(float* cache, int t)
{
    if constexpr (kThreads > kStride && kStride >= kWarpSize * 2) {
        if (t < kStride) cache[t] += cache[t + kStride];
        __syncthreads();
    }
}

template <int kStride>
__device__ float warp_step(volatile float* v, int t, float sum)
{
    sum += v[t + kStride];
    __syncwarp();
    v[t] = sum;
    __syncwarp();
    if constexpr (kStride > 1) return warp_step<kStride / 2>(v, t, sum);
    return sum;
}

template <int kThreads>
__global__ void block_sums_unrolled_kernel(const float* __restrict__ in, float* __restrict__ partial, int n,
                                           int per_thread)
{
    static_assert(kThreads >= 2 * kWarpSize && kThreads <= 1024, "warp 0's tail starts at stride 32");
    __shared__ float cache[kThreads];
    const int t = threadIdx.x;
    cache[t] = thread_sum(in, n, per_thread);
    __syncthreads();
    block_step<kThreads, 512>(cache, t);
    block_step<kThreads, 256>(cache, t);
    block_step<kThreads, 128>(cache, t);
    block_step<kThreads, 64>(cache, t);
    if (t < kWarpSize) {
        volatile float* v = cache;
        const float sum = warp_step<kWarpSize>(v, t, v[t]);
        if (t == 0) partial[blockIdx.x] = sum;
    }
}

template <int kOffset>
__device__ float warp_sum(float value)
{
    value += __shfl_down_sync(kFullMask, value, kOffset);
    if constexpr (kOffset > 1) return warp_sum<kOffset / 2>(value);
    return value;
}

template <int kThreads>
__global__ void block_sums_shuffle_kernel(const float* __restrict__ in, float* __restrict__ partial, int n,
                                          int per_thread)
{
    constexpr int kWarps = kThreads / kWarpSize;
    __shared__ float warp_sums[kWarps];
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    const float sum = warp_sum<kWarpSize / 2>(thread_sum(in, n, per_thread));
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        const float block_sum = warp_sum<kWarpSize / 2>(lane < kWarps ? warp_sums[lane] : 0.0f);
        if (lane == 0) partial[blockIdx.x] = block_sum;
    }
}

}  // namespace

void block_sums_unrolled(const float* in, float* partial, int n, int per_thread)
{
    if (n == 0) return;
    block_sums_unrolled_kernel<kBlock><<<block_count(n, per_thread), kBlock>>>(in, partial, n, per_thread);
    CML_CHECK_LAUNCH();
}

void block_sums_shuffle(const float* in, float* partial, int n, int per_thread)
{
    if (n == 0) return;
    block_sums_shuffle_kernel<kBlock><<<block_count(n, per_thread), kBlock>>>(in, partial, n, per_thread);
    CML_CHECK_LAUNCH();
}
