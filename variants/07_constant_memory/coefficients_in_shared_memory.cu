// Lab 7 variant, wrong on purpose: Part A side-steps constant memory. Each block copies the coefficients from a
// global buffer into shared memory, waits, and evaluates from there. A warp's reads of one coefficient are a
// broadcast here too, but each is a shared-memory load instruction, where a __constant__ coefficient is an operand
// of the multiply-add itself. Part B is the reference's (the table in global memory).
#include "constant_memory.hpp"

namespace {

constexpr int kBlock = 256;  // at least kMaxCoefficients, so one pass of the block copies them all

float* device_coefficients = nullptr;  // kMaxCoefficients floats, allocated on first use
int coefficient_count = 0;

__global__ void polynomial_kernel(const float* __restrict__ coefficients, int count, const float* __restrict__ x,
                                  float* __restrict__ y, int n)
{
    __shared__ float shared_coefficients[kMaxCoefficients];
    if (threadIdx.x < count) shared_coefficients[threadIdx.x] = coefficients[threadIdx.x];
    __syncthreads();
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float xi = x[i];
    float p = shared_coefficients[count - 1];
#pragma unroll
    for (int k = kMaxCoefficients - 2; k >= 0; --k)
        if (k < count - 1) p = p * xi + shared_coefficients[k];
    y[i] = p;
}

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
