// Lab 4 variant, correct: the tiled matrix multiplication of PMPP (Kirk and Hwu), 16 x 16 tiles and threads, with
// zeros staged past the edges. H100 calibration: x1.34 over naive at N = 4096 (x1.13 at 512), threshold x1.30.
#include "gemm.hpp"

namespace {

constexpr int kTileWidth = 16;

__global__ void gemm_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k)
{
    __shared__ float a_tile[kTileWidth][kTileWidth];
    __shared__ float b_tile[kTileWidth][kTileWidth];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kTileWidth + ty;
    const int col = blockIdx.x * kTileWidth + tx;
    float value = 0.0f;
    // One phase per tile of K; each thread loads one element of each tile.
    for (int phase = 0; phase < cml::ceil_div(k, kTileWidth); ++phase) {
        const int p = phase * kTileWidth;
        a_tile[ty][tx] = row < m && p + tx < k ? a[std::size_t(row) * k + p + tx] : 0.0f;
        b_tile[ty][tx] = p + ty < k && col < n ? b[std::size_t(p + ty) * n + col] : 0.0f;
        __syncthreads();  // the tiles are complete
        for (int q = 0; q < kTileWidth; ++q) value += a_tile[ty][q] * b_tile[q][tx];
        __syncthreads();  // everyone is done with them before the next phase overwrites them
    }
    if (row < m && col < n) c[std::size_t(row) * n + col] = value;
}

}  // namespace

void gemm_tiled(const float* a, const float* b, float* c, int m, int n, int k)
{
    if (m == 0 || n == 0) return;
    const dim3 block(kTileWidth, kTileWidth);
    const dim3 grid(cml::ceil_div(n, kTileWidth), cml::ceil_div(m, kTileWidth));
    gemm_tiled_kernel<<<grid, block>>>(a, b, c, m, n, k);
    CML_CHECK_LAUNCH();
}

const bool gemm_register_blocked_attempted = false;

void gemm_register_blocked(const float* a, const float* b, float* c, int m, int n, int k)
{
    (void)a, (void)b, (void)c, (void)m, (void)n, (void)k;
}
