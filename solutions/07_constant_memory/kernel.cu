// Lab 7 reference solution: constant memory where it pays, global memory where it would serialise.
// On an H100, 64M floats: polynomial with its coefficients in __constant__, x1.30 over a global pointer;
// table look-up from global memory, x2.3 over the same table in __constant__ (lanes read different entries).
#include "constant_memory.hpp"

namespace {
constexpr int kBlock = 256;
}  // namespace

// ---- Part A: a polynomial, every lane reading the same coefficient at the same time ----

namespace {

// All 32 lanes of a warp read the same coefficient at the same moment: the constant cache broadcasts it to
// the warp in one access, and no load/store-pipe instruction is spent on it.
__constant__ float coefficients[kMaxCoefficients];

int coefficient_count = 0;  // host side: set by set_polynomial, passed to each launch

__global__ void polynomial_kernel(const float* __restrict__ x, float* __restrict__ y, int n, int count)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float xi = x[i];
    float p = coefficients[count - 1];
    // A loop of fixed length, unrolled: each coefficients[k] then has an address known at compile time,
    // which the compiler folds into the multiply-add as a constant-bank operand. With a run-time trip
    // count every read is a separate load in the chain of dependent multiply-adds, and slower than global.
#pragma unroll
    for (int k = kMaxCoefficients - 2; k >= 0; --k)
        if (k < count - 1) p = p * xi + coefficients[k];
    y[i] = p;
}

}  // namespace

void set_polynomial(const float* host_coefficients, int count)
{
    // A copy from pageable host memory returns once the data is staged: the caller may reuse its array.
    CML_CHECK(cudaMemcpyToSymbol(coefficients, host_coefficients, count * sizeof(float)));
    coefficient_count = count;
}

void polynomial(const float* x, float* y, int n)
{
    if (n == 0) return;  // a launch of 0 blocks is an error
    polynomial_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(x, y, n, coefficient_count);
    CML_CHECK_LAUNCH();
}

// ---- Part B: a table look-up, every lane reading a different entry ----

namespace {

// Global memory, not __constant__: the constant cache serves one address per access, so a warp's ~31.5
// different entries (32 random indices) would be served one after another. L1 holds the whole 4 KB table
// and serves the warp in one pass per 128-byte line it touches, ~20 of the table's 32.
__device__ float table[kTableEntries];

__global__ void lookup_kernel(const int* __restrict__ index, float* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = table[index[i]];
}

}  // namespace

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
