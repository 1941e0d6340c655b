// Lab 11 variant (correct): a coarsened loop with a fixed grid of 16 bytes per thread, no grid-stride loop: each
// block of 128 threads covers 2 KB, its 16 passes 128 bytes apart, unrolled.
#include "histogram.hpp"

namespace {

constexpr int kThreads = 128;
constexpr int kPerThread = 16;

__global__ void coarsened_kernel(const unsigned char* __restrict__ data, unsigned* __restrict__ bins, int n)
{
    __shared__ unsigned local[kBins];
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    const int first = blockIdx.x * kThreads * kPerThread + threadIdx.x;
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
        const int i = first + k * kThreads;
        if (i < n) atomicAdd(&local[data[i]], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
        if (local[b]) atomicAdd(&bins[b], local[b]);
    }
}

}  // namespace

void histogram(const unsigned char* data, unsigned* bins, int n)
{
    CML_CHECK(cudaMemsetAsync(bins, 0, kBins * sizeof(unsigned)));
    if (n == 0) return;
    coarsened_kernel<<<cml::ceil_div(n, kThreads * kPerThread), kThreads>>>(data, bins, n);
    CML_CHECK_LAUNCH();
}

const bool histogram_per_warp_attempted = false;

void histogram_per_warp(const unsigned char*, unsigned*, int) {}
