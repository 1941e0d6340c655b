// Lab 11 in forms a student may write that use what device code gets from the toolkit: histogram aggregates the
// lanes of a warp that hold the same byte (__match_any_sync), and one of them adds their count to a shared bin
// with a block-scoped atomic; histogram_per_warp groups them with cooperative groups (labeled_partition of the
// coalesced threads), and adds its copies to the global bins with system-scoped atomics. A correct kernel: it
// passes every test on a GPU as on the CPU emulator (grader/tests/emulator/test_emulator_device_api.py).
#include <cooperative_groups.h>

#include <algorithm>

#include "histogram.hpp"

namespace cg = cooperative_groups;

namespace {

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 4;
constexpr int kWarps = kThreads / 32;

__global__ void histogram_kernel(const unsigned char* __restrict__ data, unsigned* __restrict__ bins, int n)
{
    __shared__ unsigned local[kBins];
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    const int stride = gridDim.x * blockDim.x;
    const int lane = threadIdx.x % 32;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const unsigned byte = data[i];
        const unsigned same = __match_any_sync(__activemask(), byte);  // the lanes here with this byte
        if (lane == __ffs(int(same)) - 1) atomicAdd_block(&local[byte], unsigned(__popc(same)));
    }
    __syncthreads();
    for (int b = threadIdx.x; b < kBins; b += blockDim.x)
        if (local[b] != 0) atomicAdd(&bins[b], local[b]);
}

__global__ void histogram_per_warp_kernel(const unsigned char* __restrict__ data, unsigned* __restrict__ bins, int n)
{
    __shared__ unsigned local[kWarps][kBins];
    for (int k = threadIdx.x; k < kWarps * kBins; k += blockDim.x) local[k / kBins][k % kBins] = 0;
    __syncthreads();
    unsigned* mine = local[threadIdx.x / 32];
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const unsigned byte = data[i];
        const cg::coalesced_group same = cg::labeled_partition(cg::coalesced_threads(), byte);
        if (same.thread_rank() == 0) atomicAdd_block(&mine[byte], same.size());
    }
    __syncthreads();
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
        unsigned sum = 0;
        for (int w = 0; w < kWarps; ++w) sum += local[w][b];
        if (sum != 0) atomicAdd_system(&bins[b], sum);
    }
}

int blocks_for(int n)
{
    int device = 0, sms = 0;
    CML_CHECK(cudaGetDevice(&device));
    CML_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return std::min(cml::ceil_div(n, kThreads), sms * kBlocksPerSm);
}

}  // namespace

void histogram(const unsigned char* data, unsigned* bins, int n)
{
    CML_CHECK(cudaMemsetAsync(bins, 0, kBins * sizeof(unsigned)));
    if (n == 0) return;
    histogram_kernel<<<blocks_for(n), kThreads>>>(data, bins, n);
    CML_CHECK_LAUNCH();
}

const bool histogram_per_warp_attempted = true;

void histogram_per_warp(const unsigned char* data, unsigned* bins, int n)
{
    CML_CHECK(cudaMemsetAsync(bins, 0, kBins * sizeof(unsigned)));
    if (n == 0) return;
    histogram_per_warp_kernel<<<blocks_for(n), kThreads>>>(data, bins, n);
    CML_CHECK_LAUNCH();
}
