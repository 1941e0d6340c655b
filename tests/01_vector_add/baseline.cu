// Baseline for Lab 1: every thread adds one element, but lane l of a warp takes element 32*l (+ the warp's
// offset) inside each group of 1024, so one warp-wide load touches 32 sectors instead of 4.
// On an H100: ~150 GB/s, 0.05 of copy bandwidth, against ~2700 GB/s for the coalesced kernel.
#include "baseline.hpp"

#include "cml/lab.hpp"

namespace {

constexpr int kStride = 32;              // lanes this many elements apart
constexpr int kGroup = kStride * kStride;  // 1024 elements: 32 warps' worth, permuted within the group
constexpr int kBlock = 256;

__global__ void lanes_32_apart_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                      float* __restrict__ c, int n)
{
    const int rank = blockIdx.x * blockDim.x + threadIdx.x;
    if (rank >= n) return;
    const int group_start = rank - rank % kGroup;
    const int in_group = rank % kGroup;
    // Transpose the 32x32 group: lane -> row, warp -> column. The last, partial group keeps the plain order.
    const bool full_group = group_start + kGroup <= n;
    const int i = full_group ? group_start + (in_group % kStride) * kStride + in_group / kStride : rank;
    c[i] = a[i] + b[i];
}

}  // namespace

void vector_add_lanes_32_apart(const float* a, const float* b, float* c, int n)
{
    if (n == 0) return;
    lanes_32_apart_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(a, b, c, n);
    CML_CHECK_LAUNCH();
}
