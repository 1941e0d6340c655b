// Lab 5 variant, wrong on purpose: the padded 32 x 33 tile of cuda_samples_no_bank_conflicts_32x8 with the
// __syncthreads() between writing the tile and reading it transposed left out. Each warp reads a column that
// the other seven warps write, so the result depends on their timing; racecheck sees it whatever the output.
#include "transpose.hpp"

namespace {

constexpr int kTileDim = 32;
constexpr int kBlockRows = 8;

__global__ void transpose_padded_no_sync(const float* __restrict__ idata, float* __restrict__ odata, int rows, int cols)
{
    __shared__ float tile[kTileDim][kTileDim + 1];
    int x_index = blockIdx.x * kTileDim + threadIdx.x;
    int y_index = blockIdx.y * kTileDim + threadIdx.y;
    for (int i = 0; i < kTileDim; i += kBlockRows)
        if (x_index < cols && y_index + i < rows)
            tile[threadIdx.y + i][threadIdx.x] = idata[std::size_t(y_index + i) * cols + x_index];
    // missing: __syncthreads(), so a warp may read slots of the tile that other warps have not written yet
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
    transpose_padded_no_sync<<<grid, dim3(kTileDim, kBlockRows)>>>(in, out, rows, cols);
    CML_CHECK_LAUNCH();
}

const bool transpose_swizzled_attempted = false;

void transpose_swizzled(const float* in, float* out, int rows, int cols)
{
    (void)in, (void)out, (void)rows, (void)cols;
}
