// The grader's pipelines for Lab 10. A copy from pageable memory goes through the driver's own small pinned
// buffer, a piece at a time, with the CPU copying each piece in first; and nothing overlaps anything else.
#include "baseline.hpp"

#include <algorithm>

#include "host_memory.hpp"

namespace {

constexpr int kBlock = 256;

__global__ void polynomial_kernel(const float* __restrict__ in, float* __restrict__ out, int n)
{
    const int i = int(blockIdx.x) * blockDim.x + int(threadIdx.x);
    if (i < n) out[i] = polynomial(in[i]);
}

__global__ void polynomial_added_kernel(const float* __restrict__ in, float* __restrict__ out, int n)
{
    const int i = int(blockIdx.x) * blockDim.x + int(threadIdx.x);
    if (i < n) out[i] += polynomial(in[i]);
}

}  // namespace

void pipeline_pageable(const float* in, float* out, int n)
{
    if (n == 0) return;
    const std::size_t bytes = std::size_t(n) * sizeof(float);
    float* in_dev = nullptr;
    float* out_dev = nullptr;
    CML_CHECK(cudaMalloc(&in_dev, bytes));
    CML_CHECK(cudaMalloc(&out_dev, bytes));
    CML_CHECK(cudaMemcpy(in_dev, in, bytes, cudaMemcpyHostToDevice));
    polynomial_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(in_dev, out_dev, n);
    CML_CHECK_LAUNCH();
    CML_CHECK(cudaMemcpy(out, out_dev, bytes, cudaMemcpyDeviceToHost));
    CML_CHECK(cudaFree(in_dev));
    CML_CHECK(cudaFree(out_dev));
}

void pipeline_managed_faulting(const float* in, float* out, int n)
{
    if (n == 0) return;
    const std::size_t bytes = std::size_t(n) * sizeof(float);
    float* in_managed = nullptr;
    float* out_managed = nullptr;
    CML_CHECK(cudaMallocManaged(&in_managed, bytes));
    CML_CHECK(cudaMallocManaged(&out_managed, bytes));
    std::copy(in, in + n, in_managed);
    polynomial_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(in_managed, out_managed, n);
    CML_CHECK_LAUNCH();
    CML_CHECK(cudaDeviceSynchronize());
    std::copy(out_managed, out_managed + n, out);
    CML_CHECK(cudaFree(in_managed));
    CML_CHECK(cudaFree(out_managed));
}

void pipeline_staged_copies(const float* in, float* out, int n, int passes)
{
    if (n == 0) return;
    const std::size_t bytes = std::size_t(n) * sizeof(float);
    float* in_staged = nullptr;
    float* out_staged = nullptr;
    float* in_dev = nullptr;
    float* out_dev = nullptr;
    CML_CHECK(cudaHostAlloc(&in_staged, bytes, cudaHostAllocDefault));
    CML_CHECK(cudaHostAlloc(&out_staged, bytes, cudaHostAllocDefault));
    CML_CHECK(cudaMalloc(&in_dev, bytes));
    CML_CHECK(cudaMalloc(&out_dev, bytes));
    std::copy(in, in + n, in_staged);
    CML_CHECK(cudaMemcpy(in_dev, in_staged, bytes, cudaMemcpyHostToDevice));
    polynomial_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(in_dev, out_dev, n);
    CML_CHECK_LAUNCH();
    for (int pass = 1; pass < passes; ++pass) {
        polynomial_added_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(in_dev, out_dev, n);
        CML_CHECK_LAUNCH();
    }
    CML_CHECK(cudaMemcpy(out_staged, out_dev, bytes, cudaMemcpyDeviceToHost));
    std::copy(out_staged, out_staged + n, out);
    CML_CHECK(cudaFree(in_dev));
    CML_CHECK(cudaFree(out_dev));
    CML_CHECK(cudaFreeHost(in_staged));
    CML_CHECK(cudaFreeHost(out_staged));
}
