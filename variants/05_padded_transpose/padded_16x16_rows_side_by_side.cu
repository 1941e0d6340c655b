// Lab 5 variant, wrong on purpose: 16 x 16 tiles and threads, the tile padded by two columns ([16][18]) so that a
// warp's read of two columns is conflict-free, but each warp stores two neighbouring rows, 18 floats apart: lanes
// 14 and 15 of the first row share banks with lanes 0 and 1 of the second, 1 conflict per store (padded_16x16_tile
// stores rows 8 apart instead). The same one extra pass per access that padded_by_two costs on its loads.
#include "transpose.hpp"

namespace {

constexpr int kTile = 16;
constexpr int kPadding = 2;

__global__ void transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    __shared__ float tile[kTile][kTile + kPadding];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tile_row = blockIdx.y * kTile, tile_col = blockIdx.x * kTile;
    if (tile_row + ty < rows && tile_col + tx < cols) tile[ty][tx] = in[std::size_t(tile_row + ty) * cols + tile_col + tx];
    __syncthreads();
    if (tile_col + ty < cols && tile_row + tx < rows) out[std::size_t(tile_col + ty) * rows + tile_row + tx] = tile[tx][ty];
}

}  // namespace

void transpose(const float* in, float* out, int rows, int cols)
{
    if (rows == 0 || cols == 0) return;
    const dim3 grid(cml::ceil_div(cols, kTile), cml::ceil_div(rows, kTile));
    transpose_kernel<<<grid, dim3(kTile, kTile)>>>(in, out, rows, cols);
    CML_CHECK_LAUNCH();
}

const bool transpose_swizzled_attempted = false;

void transpose_swizzled(const float* in, float* out, int rows, int cols)
{
    (void)in, (void)out, (void)rows, (void)cols;
}
