// Lab 11 reference solution: a private histogram per block in shared memory, merged with one global atomic per
// bin and block; the stretch keeps a copy per warp.
#include <algorithm>

#include "histogram.hpp"

namespace {

constexpr int kThreads = 256;     // threads per block
constexpr int kBlocksPerSm = 4;   // the grid fills every SM this many times over; each thread loops over the rest
constexpr int kWarps = kThreads / 32;

// Each thread counts the bytes i, i + the grid's threads, ...: consecutive lanes read consecutive bytes.
__global__ void histogram_kernel(const unsigned char* __restrict__ data, unsigned* __restrict__ bins, int n)
{
    __shared__ unsigned local[kBins];
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
    __syncthreads();  // every bin is 0 before any thread adds to one
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&local[data[i]], 1u);
    __syncthreads();  // every thread's additions are done before any bin is read
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
        if (local[b] != 0) atomicAdd(&bins[b], local[b]);
    }
}

// A copy per warp: the warps of a block no longer queue at the same hot bin, only the lanes within one warp.
__global__ void histogram_per_warp_kernel(const unsigned char* __restrict__ data, unsigned* __restrict__ bins, int n)
{
    __shared__ unsigned local[kWarps][kBins];
    for (int k = threadIdx.x; k < kWarps * kBins; k += blockDim.x) local[k / kBins][k % kBins] = 0;
    __syncthreads();  // every copy is 0 before any thread adds to one
    unsigned* mine = local[threadIdx.x / 32];
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&mine[data[i]], 1u);
    __syncthreads();  // every warp's additions are done before the copies are added up
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
        unsigned sum = 0;
        for (int w = 0; w < kWarps; ++w) sum += local[w][b];
        if (sum != 0) atomicAdd(&bins[b], sum);
    }
}

// The grid: kBlocksPerSm blocks per SM of this GPU, fewer where n needs fewer.
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
    CML_CHECK(cudaMemsetAsync(bins, 0, kBins * sizeof(unsigned)));  // the kernel only adds
    if (n == 0) return;  // a launch of 0 blocks is an error
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
