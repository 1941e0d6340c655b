// Lab 1 variant, wrong on purpose: the grader's baseline as a submission. The lanes of a warp are 32 elements
// apart, so each warp-wide load touches 32 sectors instead of 4 (H100: ~150 GB/s, 0.05 of copy).
#include "vector_add.hpp"

namespace {

constexpr int kStride = 32;  // lanes this many elements apart
constexpr int kBlock = 256;

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, int n)
{
    const int rank = blockIdx.x * blockDim.x + threadIdx.x;
    if (rank >= n) return;
    // The first rows * 32 elements read as a 32-column matrix, column by column; the rest in plain order.
    const int rows = n / kStride;
    const int i = rank < rows * kStride ? (rank % rows) * kStride + rank / rows : rank;
    c[i] = a[i] + b[i];
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, int n)
{
    if (n == 0) return;
    vector_add_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(a, b, c, n);
    CML_CHECK_LAUNCH();
}

const bool vector_add_float4_attempted = false;

void vector_add_float4(const float* a, const float* b, float* c, int n)
{
    (void)a, (void)b, (void)c, (void)n;
}
