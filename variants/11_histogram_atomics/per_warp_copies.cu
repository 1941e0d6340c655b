// Lab 11 variant (correct): histogram itself keeps a copy of the bins per warp, 8 copies per block of 256, added up
// bin by bin before one global atomic per bin and block. The stretch is the same kernel.
#include <algorithm>

#include "histogram.hpp"

namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

__global__ void per_warp_kernel(const unsigned char* __restrict__ data, unsigned* __restrict__ bins, int n)
{
    __shared__ unsigned copies[kWarps * kBins];
    for (int k = threadIdx.x; k < kWarps * kBins; k += blockDim.x) copies[k] = 0;
    __syncthreads();
    unsigned* own = copies + (threadIdx.x / 32) * kBins;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&own[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
        unsigned total = 0;
        for (int w = 0; w < kWarps; ++w) total += copies[w * kBins + b];
        if (total) atomicAdd(&bins[b], total);
    }
}

void launch(const unsigned char* data, unsigned* bins, int n)
{
    CML_CHECK(cudaMemsetAsync(bins, 0, kBins * sizeof(unsigned)));
    if (n == 0) return;
    int device = 0, sms = 0;
    CML_CHECK(cudaGetDevice(&device));
    CML_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    per_warp_kernel<<<std::min(cml::ceil_div(n, kThreads), 4 * sms), kThreads>>>(data, bins, n);
    CML_CHECK_LAUNCH();
}

}  // namespace

void histogram(const unsigned char* data, unsigned* bins, int n) { launch(data, bins, n); }

const bool histogram_per_warp_attempted = true;

void histogram_per_warp(const unsigned char* data, unsigned* bins, int n) { launch(data, bins, n); }
