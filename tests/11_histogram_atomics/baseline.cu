// Baseline for Lab 11: every thread adds its byte to the histogram in global memory with atomicAdd. The bins
// of a text are few and some are hot (the space alone is a large share of the bytes: the benchmark prints it), so the additions queue at a few
// addresses in L2, one after another: the cost this lab's privatization removes.
#include "baseline.hpp"

#include "cml/lab.hpp"
#include "histogram.hpp"

namespace {

constexpr int kBlock = 256;

__global__ void global_atomics_kernel(const unsigned char* __restrict__ data, unsigned* __restrict__ bins, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[data[i]], 1u);
}

}  // namespace

void histogram_global_atomics(const unsigned char* data, unsigned* bins, int n)
{
    CML_CHECK(cudaMemsetAsync(bins, 0, kBins * sizeof(unsigned)));
    if (n == 0) return;
    global_atomics_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(data, bins, n);
    CML_CHECK_LAUNCH();
}
