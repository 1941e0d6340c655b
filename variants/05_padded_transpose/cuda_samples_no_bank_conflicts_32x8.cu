// Lab 5 variant, correct: cuda-samples' transposeNoBankConflicts (Mark Harris, "An Efficient Matrix Transpose in
// CUDA C/C++"): TILE_DIM 32, BLOCK_ROWS 8, a [32][33] tile, written in the sample's xIndex / yIndex style with
// bounds for ragged edges.
#include "transpose.hpp"

namespace {

constexpr int kTileDim = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_no_bank_conflicts(const float* __restrict__ idata, float* __restrict__ odata, int rows,
                                            int cols)
{
    __shared__ float tile[kTileDim][kTileDim + 1];
    int x_index = blockIdx.x * kTileDim + threadIdx.x;
    int y_index = blockIdx.y * kTileDim + threadIdx.y;
    for (int i = 0; i < kTileDim; i += kBlockRows)
        if (x_index < cols && y_index + i < rows)
            tile[threadIdx.y + i][threadIdx.x] = idata[std::size_t(y_index + i) * cols + x_index];
    __syncthreads();
    // The output block is the input block with its indices swapped; threadIdx.x still walks a row of odata.
    x_index = blockIdx.y * kTileDim + threadIdx.x;
    y_index = blockIdx.x * kTileDim + threadIdx.y;
    for (int i = 0; i < kTileDim; i += kBlockRows)
        if (x_index < rows && y_index + i < cols)
            odata[std::size_t(y_index + i) * rows + x_index] = tile[threadIdx.x][threadIdx.y + i];
}

}  // namespace

void transpose(const float* in, float* out, int rows, int cols)
{
    if (rows == 0 || cols == 0) return;
    const dim3 grid(cml::ceil_div(cols, kTileDim), cml::ceil_div(rows, kTileDim));
    transpose_no_bank_conflicts<<<grid, dim3(kTileDim, kBlockRows)>>>(in, out, rows, cols);
    CML_CHECK_LAUNCH();
}

const bool transpose_swizzled_attempted = false;

void transpose_swizzled(const float* in, float* out, int rows, int cols)
{
    (void)in, (void)out, (void)rows, (void)cols;
}
