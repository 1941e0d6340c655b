// Lab 4 variant, correct: the lab's 32 x 32 tiles, one output per thread, double-buffered with cp.async
// (__pipeline_memcpy_async): the next step's tiles are copied while this one is used. The benchmark of this file
// against the solution measures what cp.async does here: 32 multiply-adds per 8 bytes copied, each with a shared
// load, leave little global latency to hide, the second pair of tiles doubles the block's shared memory, and each
// step still waits at a barrier for the copies.
#include <cuda_pipeline.h>

#include "gemm.hpp"

namespace {

constexpr int kTile = 32;

// Starts the copy of x[row][col] (a rows x cols matrix) to *slot; outside it, 0 bytes copied and 4 filled with
// zeros, from an address that stays inside the matrix.
__device__ void copy_or_zero(float* slot, const float* __restrict__ x, int rows, int cols, int row, int col)
{
    const bool inside = row < rows && col < cols;
    __pipeline_memcpy_async(slot, inside ? x + std::size_t(row) * cols + col : x, sizeof(float),
                            inside ? 0 : sizeof(float));
}

__global__ void gemm_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k)
{
    __shared__ float a_tile[2][kTile][kTile];
    __shared__ float b_tile[2][kTile][kTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kTile + ty;
    const int col = blockIdx.x * kTile + tx;

    auto copy_tiles = [&](int k0, int buffer) {
        copy_or_zero(&a_tile[buffer][ty][tx], a, m, k, row, k0 + tx);
        copy_or_zero(&b_tile[buffer][ty][tx], b, k, n, k0 + ty, col);
        __pipeline_commit();
    };

    float sum = 0.0f;
    const int steps = cml::ceil_div(k, kTile);
    if (steps > 0) copy_tiles(0, 0);
    for (int step = 0; step < steps; ++step) {
        const int buffer = step % 2;
        // The wait covers this thread's copies; the barrier everyone's, and it orders the previous step's reads
        // of the other buffer before the copy below overwrites it.
        __pipeline_wait_prior(0);
        __syncthreads();
        if (step + 1 < steps) copy_tiles((step + 1) * kTile, 1 - buffer);
#pragma unroll
        for (int p = 0; p < kTile; ++p) sum += a_tile[buffer][ty][p] * b_tile[buffer][p][tx];
    }
    if (row < m && col < n) c[std::size_t(row) * n + col] = sum;
}

}  // namespace

void gemm_tiled(const float* a, const float* b, float* c, int m, int n, int k)
{
    if (m == 0 || n == 0) return;
    const dim3 grid(cml::ceil_div(n, kTile), cml::ceil_div(m, kTile));
    gemm_tiled_kernel<<<grid, dim3(kTile, kTile)>>>(a, b, c, m, n, k);
    CML_CHECK_LAUNCH();
}

const bool gemm_register_blocked_attempted = false;

void gemm_register_blocked(const float* a, const float* b, float* c, int m, int n, int k)
{
    (void)a, (void)b, (void)c, (void)m, (void)n, (void)k;
}
