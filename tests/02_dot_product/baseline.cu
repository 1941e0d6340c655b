// Baseline for Lab 2: every thread adds its own product to the result with atomicAdd, so all n additions
// queue at one address in L2 and run one after another, ~1.7 ns each on an H100: 4.6 GB/s at 16M floats,
// against ~1040 GB/s for one atomicAdd per block of 256 (x225).
#include "baseline.hpp"

#include "cml/lab.hpp"

namespace {

constexpr int kBlock = 256;

__global__ void atomic_per_element_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                          float* __restrict__ result, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(result, a[i] * b[i]);
}

}  // namespace

void dot_product_atomic_per_element(const float* a, const float* b, float* result, int n)
{
    CML_CHECK(cudaMemsetAsync(result, 0, sizeof(float)));
    if (n == 0) return;
    atomic_per_element_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(a, b, result, n);
    CML_CHECK_LAUNCH();
}
