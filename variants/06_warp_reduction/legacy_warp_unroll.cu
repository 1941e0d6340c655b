// Lab 6 variant, wrong on purpose: the unrolled part is Mark Harris's 2007 last warp (volatile, no __syncwarp()),
// which trusts lock-step lanes: a race since Volta that racecheck reports as warnings while a GPU's sums come out
// right (the CPU emulator runs the lanes apart and gets them wrong). The shuffle part is correct.
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
    __shared__ float sdata[kBlock];
    const int tid = threadIdx.x;
    sdata[tid] = thread_sum(in, n, per_thread);
    __syncthreads();
    for (int s = kBlock / 2; s > kWarpSize; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < kWarpSize) {
        volatile float* smem = sdata;
        smem[tid] += smem[tid + 32];
        smem[tid] += smem[tid + 16];
        smem[tid] += smem[tid + 8];
        smem[tid] += smem[tid + 4];
        smem[tid] += smem[tid + 2];
        smem[tid] += smem[tid + 1];
    }
    if (tid == 0) partial[blockIdx.x] = sdata[0];
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
