// Baseline for Lab 1: every thread adds one element, but the lanes of a warp are 32 elements apart: the
// array is read as a 32-column matrix, column by column, so one warp-wide load touches 32 sectors
// instead of 4, and the neighbours in each sector are read by threads far away in the grid (no reuse).
// On an H100: ~150 GB/s, 0.05 of copy bandwidth, against ~2700 GB/s for the coalesced kernel.
#include "baseline.hpp"

#include "cml/lab.hpp"

namespace {

constexpr int kStride = 32;  // lanes this many elements apart
constexpr int kBlock = 256;

__global__ void lanes_32_apart_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, int n)
{
    const int rank = blockIdx.x * blockDim.x + threadIdx.x;
    if (rank >= n) return;
    // rows x 32 elements, walked down the columns; the last n % 32 elements keep the plain order.
    const int rows = n / kStride;
    const int i = rank < rows * kStride ? (rank % rows) * kStride + rank / rows : rank;
    c[i] = a[i] + b[i];
}

}  // namespace

void vector_add_lanes_32_apart(const float* a, const float* b, float* c, int n)
{
    if (n == 0) return;
    lanes_32_apart_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(a, b, c, n);
    CML_CHECK_LAUNCH();
}
