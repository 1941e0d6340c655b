// Lab 7 variant, wrong on purpose: Part B's table in __constant__, where a warp's ~31.5 different entries are
// served one after another (H100: x2.3 slower than the same table in global memory; in this lab's kernels x11).
// Part A is correct.
#include "constant_memory.hpp"

namespace {

constexpr int kBlock = 256;

// All 32 lanes read the same coefficient at the same moment: the constant cache broadcasts it.
__constant__ float coefficients[kMaxCoefficients];
int coefficient_count = 0;  // host side: set by set_polynomial, passed to each launch

// Horner's rule over a loop of fixed length: each coefficients[k] has an address known at compile time.
__device__ float horner(float x, int count)
{
    float p = coefficients[count - 1];
#pragma unroll
    for (int k = kMaxCoefficients - 2; k >= 0; --k)
        if (k < count - 1) p = p * x + coefficients[k];
    return p;
}

__global__ void polynomial_kernel(const float* __restrict__ x, float* __restrict__ y, int n, int count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = horner(x[i], count);
}

__constant__ float table[kTableEntries];  // the bug: lanes read different entries, and the constant cache serialises

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
