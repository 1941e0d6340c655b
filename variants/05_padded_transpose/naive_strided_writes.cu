// Lab 5 variant, wrong on purpose: the grader's baseline as a submission, coalesced reads and writes with the lanes
// of a warp rows floats apart: 32 sectors per store request (H100, 8192^2: 417 GB/s, 0.14 of copy).
#include "transpose.hpp"

namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    const int x = blockIdx.x * kTile + threadIdx.x;  // column of in
    const int y = blockIdx.y * kTile + threadIdx.y;  // row of in
    for (int j = 0; j < kTile; j += kBlockRows)
        if (x < cols && y + j < rows) out[std::size_t(x) * rows + y + j] = in[std::size_t(y + j) * cols + x];
}

}  // namespace

void transpose(const float* in, float* out, int rows, int cols)
{
    if (rows == 0 || cols == 0) return;
    const dim3 grid(cml::ceil_div(cols, kTile), cml::ceil_div(rows, kTile));
    transpose_kernel<<<grid, dim3(kTile, kBlockRows)>>>(in, out, rows, cols);
    CML_CHECK_LAUNCH();
}

const bool transpose_swizzled_attempted = false;

void transpose_swizzled(const float* in, float* out, int rows, int cols)
{
    (void)in, (void)out, (void)rows, (void)cols;
}
