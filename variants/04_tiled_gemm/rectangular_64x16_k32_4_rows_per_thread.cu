// Lab 4 variant, correct: rectangular tiles the other way round, a 64 x 16 tile of C per block of 16 x 16 threads,
// each thread 4 outputs (rows 16 apart), steps of 32 along K; a cooperative loop fills the 64 x 32 tile of A (8
// floats per thread) and the 32 x 16 tile of B (2 per thread). 0.0625 of the naive kernel's global load sectors.
#include "gemm.hpp"

namespace {

constexpr int kTileM = 64, kTileN = 16, kTileK = 32;
constexpr int kThreadsY = 16, kRowsPerThread = kTileM / kThreadsY;
constexpr int kThreads = kTileN * kThreadsY;

__global__ void gemm_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k)
{
    __shared__ float a_tile[kTileM][kTileK];
    __shared__ float b_tile[kTileK][kTileN];
    const int tx = threadIdx.x, ty = threadIdx.y, t = ty * kTileN + tx;
    const int row0 = blockIdx.y * kTileM, col0 = blockIdx.x * kTileN;
    float sum[kRowsPerThread] = {};
    for (int k0 = 0; k0 < k; k0 += kTileK) {
        for (int i = t; i < kTileM * kTileK; i += kThreads) {
            const int r = row0 + i / kTileK, q = k0 + i % kTileK;
            a_tile[i / kTileK][i % kTileK] = r < m && q < k ? a[std::size_t(r) * k + q] : 0.0f;
        }
        for (int i = t; i < kTileK * kTileN; i += kThreads) {
            const int q = k0 + i / kTileN, col = col0 + i % kTileN;
            b_tile[i / kTileN][i % kTileN] = q < k && col < n ? b[std::size_t(q) * n + col] : 0.0f;
        }
        __syncthreads();
        for (int p = 0; p < kTileK; ++p) {
            const float from_b = b_tile[p][tx];  // shared by the thread's rows
            for (int j = 0; j < kRowsPerThread; ++j) sum[j] += a_tile[ty + j * kThreadsY][p] * from_b;
        }
        __syncthreads();
    }
    const int col = col0 + tx;
    for (int j = 0; j < kRowsPerThread; ++j) {
        const int row = row0 + ty + j * kThreadsY;
        if (row < m && col < n) c[std::size_t(row) * n + col] = sum[j];
    }
}

}  // namespace

void gemm_tiled(const float* a, const float* b, float* c, int m, int n, int k)
{
    if (m == 0 || n == 0) return;
    const dim3 grid(cml::ceil_div(n, kTileN), cml::ceil_div(m, kTileM));
    gemm_tiled_kernel<<<grid, dim3(kTileN, kThreadsY)>>>(a, b, c, m, n, k);
    CML_CHECK_LAUNCH();
}

const bool gemm_register_blocked_attempted = false;

void gemm_register_blocked(const float* a, const float* b, float* c, int m, int n, int k)
{
    (void)a, (void)b, (void)c, (void)m, (void)n, (void)k;
}
