// The grader's kernels for Lab 12 (baseline.hpp): the gather by plain loads, and the interpolation by hand.
#include <cmath>

#include "baseline.hpp"

namespace {

constexpr int kBlock = 256;
constexpr int kTile = 16;  // a 16 x 16 block of output pixels: neighbouring lanes write neighbouring pixels

// No __restrict__: out may overlap table for all nvcc knows, so a store could change what a later load reads.
__global__ void gather_plain_kernel(const float* table, const int* index, float* out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sum = 0.0f;
    for (int k = 0; k < kTaps; ++k) sum += table[index[std::size_t(i) * kTaps + k]];
    out[i] = sum;
}

__device__ float texel_clamped(const float* __restrict__ image, int width, int height, int i, int j)
{
    i = min(max(i, 0), width - 1);
    j = min(max(j, 0), height - 1);
    return image[std::size_t(j) * width + i];
}

__global__ void resample_by_hand_kernel(const float* __restrict__ image, int width, int height, float* __restrict__ out,
                                        int out_width, int out_height, Transform t)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= out_width || y >= out_height) return;
    const float2 p = source_point(t, x, y, width, height, out_width, out_height);
    // The four texels whose centres surround p, and p's place between them.
    const float xb = p.x - 0.5f, yb = p.y - 0.5f;
    const float fi = floorf(xb), fj = floorf(yb);
    const float a = xb - fi, b = yb - fj;
    const int i = int(fi), j = int(fj);
    const float top = (1.0f - a) * texel_clamped(image, width, height, i, j) + a * texel_clamped(image, width, height, i + 1, j);
    const float bottom =
        (1.0f - a) * texel_clamped(image, width, height, i, j + 1) + a * texel_clamped(image, width, height, i + 1, j + 1);
    out[std::size_t(y) * out_width + x] = (1.0f - b) * top + b * bottom;
}

}  // namespace

void gather_plain(const float* table, const int* index, float* out, int n)
{
    if (n == 0) return;
    gather_plain_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(table, index, out, n);
    CML_CHECK_LAUNCH();
}

void resample_by_hand(const float* image, int width, int height, float* out, int out_width, int out_height,
                      const Transform& t)
{
    if (out_width == 0 || out_height == 0) return;
    const dim3 grid(cml::ceil_div(out_width, kTile), cml::ceil_div(out_height, kTile));
    resample_by_hand_kernel<<<grid, dim3(kTile, kTile)>>>(image, width, height, out, out_width, out_height, t);
    CML_CHECK_LAUNCH();
}
