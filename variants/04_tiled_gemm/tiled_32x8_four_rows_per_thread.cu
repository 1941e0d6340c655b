// Lab 4 variant, correct: 32 x 32 tiles moved by 32 x 8 threads, each loading 4 elements of each tile and
// computing 4 outputs of C (rows ty, ty + 8, ty + 16, ty + 24): each b_tile load now feeds 4 multiply-adds.
#include "gemm.hpp"

namespace {

constexpr int kTile = 32;
constexpr int kBlockRows = 8;
constexpr int kRowsPerThread = kTile / kBlockRows;

__global__ void gemm_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k)
{
    __shared__ float a_tile[kTile][kTile];
    __shared__ float b_tile[kTile][kTile];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row0 = blockIdx.y * kTile, col = blockIdx.x * kTile + tx;
    float sum[kRowsPerThread] = {};
    for (int k0 = 0; k0 < k; k0 += kTile) {
#pragma unroll
        for (int r = 0; r < kRowsPerThread; ++r) {
            const int y = ty + r * kBlockRows;
            a_tile[y][tx] = row0 + y < m && k0 + tx < k ? a[std::size_t(row0 + y) * k + k0 + tx] : 0.0f;
            b_tile[y][tx] = k0 + y < k && col < n ? b[std::size_t(k0 + y) * n + col] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int p = 0; p < kTile; ++p) {
            const float b_p = b_tile[p][tx];
#pragma unroll
            for (int r = 0; r < kRowsPerThread; ++r) sum[r] += a_tile[ty + r * kBlockRows][p] * b_p;
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < kRowsPerThread; ++r) {
        const int row = row0 + ty + r * kBlockRows;
        if (row < m && col < n) c[std::size_t(row) * n + col] = sum[r];
    }
}

}  // namespace

void gemm_tiled(const float* a, const float* b, float* c, int m, int n, int k)
{
    if (m == 0 || n == 0) return;
    const dim3 grid(cml::ceil_div(n, kTile), cml::ceil_div(m, kTile));
    gemm_tiled_kernel<<<grid, dim3(kTile, kBlockRows)>>>(a, b, c, m, n, k);
    CML_CHECK_LAUNCH();
}

const bool gemm_register_blocked_attempted = false;

void gemm_register_blocked(const float* a, const float* b, float* c, int m, int n, int k)
{
    (void)a, (void)b, (void)c, (void)m, (void)n, (void)k;
}
