// Lab 5 variant, wrong on purpose: no shared tile at all, the naive transpose with its strided side moved from the
// writes to the reads: coalesced writes, and the lanes of a warp `cols` floats apart on the reads. The caches hide
// much of that on an H100 (x3.52 over naive against the x1.87 threshold), so only the counters can fail it: 32
// sectors per load request, and not one shared-memory access.
#include "transpose.hpp"

namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    const int x = blockIdx.x * kTile + threadIdx.x;  // column of out, row of in
    const int y = blockIdx.y * kTile + threadIdx.y;  // row of out, column of in
    for (int j = 0; j < kTile; j += kBlockRows)
        if (x < rows && y + j < cols) out[std::size_t(y + j) * rows + x] = in[std::size_t(x) * cols + y + j];
}

}  // namespace

void transpose(const float* in, float* out, int rows, int cols)
{
    if (rows == 0 || cols == 0) return;
    const dim3 grid(cml::ceil_div(rows, kTile), cml::ceil_div(cols, kTile));
    transpose_kernel<<<grid, dim3(kTile, kBlockRows)>>>(in, out, rows, cols);
    CML_CHECK_LAUNCH();
}

const bool transpose_swizzled_attempted = false;

void transpose_swizzled(const float* in, float* out, int rows, int cols)
{
    (void)in, (void)out, (void)rows, (void)cols;
}
