// Lab 5 variant, correct: the unpadded 32 x 32 tile with the XOR swizzle (element (r, c) in column c ^ r) in the
// graded transpose itself, 32 x 8 threads; the stretch is the same function.
#include "transpose.hpp"

namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_kernel(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)
{
    __shared__ float tile[kTile][kTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tile_row = blockIdx.y * kTile, tile_col = blockIdx.x * kTile;
    for (int j = 0; j < kTile; j += kBlockRows) {
        const int r = tile_row + ty + j, c = tile_col + tx;
        // Row ty + j of the tile, its columns permuted by XOR with the row: still 32 banks for 32 lanes.
        if (r < rows && c < cols) tile[ty + j][tx ^ (ty + j)] = in[std::size_t(r) * cols + c];
    }
    __syncthreads();
    for (int j = 0; j < kTile; j += kBlockRows) {
        const int r = tile_col + ty + j, c = tile_row + tx;
        // Column ty + j of the tile, row tx, is stored in column (ty + j) ^ tx: 32 lanes, 32 different banks.
        if (r < cols && c < rows) out[std::size_t(r) * rows + c] = tile[tx][(ty + j) ^ tx];
    }
}

void launch(const float* in, float* out, int rows, int cols)
{
    if (rows == 0 || cols == 0) return;
    const dim3 grid(cml::ceil_div(cols, kTile), cml::ceil_div(rows, kTile));
    transpose_kernel<<<grid, dim3(kTile, kBlockRows)>>>(in, out, rows, cols);
    CML_CHECK_LAUNCH();
}

}  // namespace

void transpose(const float* in, float* out, int rows, int cols)
{
    launch(in, out, rows, cols);
}

const bool transpose_swizzled_attempted = true;

void transpose_swizzled(const float* in, float* out, int rows, int cols)
{
    launch(in, out, rows, cols);
}
