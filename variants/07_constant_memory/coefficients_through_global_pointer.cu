// Lab 7 variant, wrong on purpose: Part A's baseline as a submission, the coefficients copied to a cudaMalloc'd
// array and read through a pointer: 32 uniform global loads per warp besides x (H100: x2.10 slower than
// __constant__ in this lab's kernels). Part B is correct.
#include "constant_memory.hpp"

namespace {

constexpr int kBlock = 256;

float* device_coefficients = nullptr;  // kMaxCoefficients floats, allocated on first use
int coefficient_count = 0;

__global__ void polynomial_kernel(const float* __restrict__ coefficients, int count, const float* __restrict__ x,
                                  float* __restrict__ y, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float xi = x[i];
    float p = coefficients[count - 1];
#pragma unroll
    for (int k = kMaxCoefficients - 2; k >= 0; --k)
        if (k < count - 1) p = p * xi + coefficients[k];
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
    if (device_coefficients == nullptr) CML_CHECK(cudaMalloc(&device_coefficients, kMaxCoefficients * sizeof(float)));
    CML_CHECK(cudaMemcpy(device_coefficients, host_coefficients, count * sizeof(float), cudaMemcpyHostToDevice));
    coefficient_count = count;
}

void polynomial(const float* x, float* y, int n)
{
    if (n == 0) return;
    polynomial_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(device_coefficients, coefficient_count, x, y, n);
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
