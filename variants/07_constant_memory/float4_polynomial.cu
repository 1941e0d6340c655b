// Lab 7 variant, correct: Part A reads x and writes y as float4s (4 elements per thread, 16-byte accesses, after
// Justin Luitjens's vectorized-access tip), the coefficients in __constant__; Part B as the solution.
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
    const int vectors = n / 4;  // cudaMalloc'd arrays: float4 i is 16-byte aligned
    if (i < vectors) {
        const float4 v = reinterpret_cast<const float4*>(x)[i];
        reinterpret_cast<float4*>(y)[i] =
            make_float4(horner(v.x, count), horner(v.y, count), horner(v.z, count), horner(v.w, count));
    }
    if (i < n % 4) y[vectors * 4 + i] = horner(x[vectors * 4 + i], count);  // the last n % 4 elements
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
    const int threads = n / 4 > n % 4 ? n / 4 : n % 4;
    if (threads == 0) return;
    polynomial_kernel<<<cml::ceil_div(threads, kBlock), kBlock>>>(x, y, n, coefficient_count);
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
