// Lab 6 variant, wrong on purpose: the tempting half-fix of the handout (and of NVIDIA's "Using CUDA Warp-Level
// Primitives", as the incorrect use): a __syncwarp() after each `v[t] += v[t + s]`. Lane t still reads slot t + s
// in the same step that lane t + s writes it: racecheck reports it. The shuffle part is correct.
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

__global__ void block_sums_unrolled_kernel(const float* __restrict__ in, float* __restrict__ partial, int n,
                                           int per_thread)
{
    __shared__ float cache[kBlock];
    const int t = threadIdx.x;
    cache[t] = thread_sum(in, n, per_thread);
    __syncthreads();
    for (int stride = kBlock / 2; stride > kWarpSize; stride /= 2) {
        if (t < stride) cache[t] += cache[t + stride];
        __syncthreads();
    }
    if (t < kWarpSize) {
        volatile float* v = cache;
        for (int stride = kWarpSize; stride > 0; stride /= 2) {
            v[t] += v[t + stride];
            __syncwarp();  // too late: the read and the write of this step are not separated
        }
        if (t == 0) partial[blockIdx.x] = v[0];
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
    __shared__ float warp_sums[kWarpsPerBlock];
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    const float sum = warp_sum(thread_sum(in, n, per_thread));
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
        const float block_sum = warp_sum(lane < kWarpsPerBlock ? warp_sums[lane] : 0.0f);
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
