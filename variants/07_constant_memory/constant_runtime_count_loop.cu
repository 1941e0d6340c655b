// Lab 7 variant, wrong on purpose: coefficients in __constant__, but Horner's loop runs to the run-time count, which
// the handout forbids: each read becomes a separate load in the chain of dependent multiply-adds (the project's first
// solution did this: x0.68 against a global pointer on an H100). Only time shows it. Part B is correct.
#include "constant_memory.hpp"

namespace {

constexpr int kBlock = 256;

__constant__ float coefficients[kMaxCoefficients];
int coefficient_count = 0;

__global__ void polynomial_kernel(const float* __restrict__ x, float* __restrict__ y, int n, int count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float xi = x[i];
    float p = coefficients[count - 1];
    for (int k = count - 2; k >= 0; --k) p = p * xi + coefficients[k];  // the bug: a run-time trip count
    y[i] = p;
}

// Global memory: L1 serves a warp's ~32 different entries in one pass per line touched.
__device__ float table[kTableEntries];

__global__ void lookup_kernel(const int* __restrict__ index, float* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = table[index[i]];
}

}  // namespace

void set_polynomial(const float* host_coefficients, int count)
{
    CML_CHECK(cudaMemcpyToSymbol(coefficients, host_coefficients, count * sizeof(float)));
    coefficient_count = count;
}

void polynomial(const float* x, float* y, int n)
{
    if (n == 0) return;
    polynomial_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(x, y, n, coefficient_count);
    CML_CHECK_LAUNCH();
}

void set_table(const float* host_table)
{
    CML_CHECK(cudaMemcpyToSymbol(table, host_table, sizeof table));
}

void lookup(const int* index, float* out, int n)
{
    if (n == 0) return;
    lookup_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(index, out, n);
    CML_CHECK_LAUNCH();
}
