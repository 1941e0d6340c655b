// Lab 4 variant, correct: 64 x 64 tiles of C per block of 16 x 16 threads, steps of 16 along K, each thread 4 x 4
// outputs 16 rows and 16 columns apart (so a half-warp reads and writes 16 neighbouring floats).
#include "gemm.hpp"

namespace {

constexpr int kBlockTile = 64;  // of C, per block
constexpr int kStepK = 16;
constexpr int kSide = 16;                       // threads per side of the block
constexpr int kThreads = kSide * kSide;         // 256
constexpr int kPerThread = kBlockTile / kSide;  // 4 x 4 outputs per thread

__global__ void gemm_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k)
{
    __shared__ float a_tile[kBlockTile][kStepK];  // 64 rows of A, 16 columns from k0
    __shared__ float b_tile[kStepK][kBlockTile];  // 16 rows of B from k0, 64 columns
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * kSide + tx;
    const int row0 = blockIdx.y * kBlockTile, col0 = blockIdx.x * kBlockTile;
    float acc[kPerThread][kPerThread] = {};
    for (int k0 = 0; k0 < k; k0 += kStepK) {
        // 1024 elements of each tile, 4 per thread; neighbouring threads take neighbouring columns.
#pragma unroll
        for (int r = 0; r < kBlockTile * kStepK / kThreads; ++r) {
            const int e = tid + r * kThreads;
            const int ay = e / kStepK, ax = e % kStepK;
            a_tile[ay][ax] = row0 + ay < m && k0 + ax < k ? a[std::size_t(row0 + ay) * k + k0 + ax] : 0.0f;
            const int by = e / kBlockTile, bx = e % kBlockTile;
            b_tile[by][bx] = k0 + by < k && col0 + bx < n ? b[std::size_t(k0 + by) * n + col0 + bx] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int p = 0; p < kStepK; ++p) {
            float a_reg[kPerThread], b_reg[kPerThread];
#pragma unroll
            for (int i = 0; i < kPerThread; ++i) a_reg[i] = a_tile[ty + i * kSide][p];
#pragma unroll
            for (int j = 0; j < kPerThread; ++j) b_reg[j] = b_tile[p][tx + j * kSide];
#pragma unroll
            for (int i = 0; i < kPerThread; ++i)
#pragma unroll
                for (int j = 0; j < kPerThread; ++j) acc[i][j] += a_reg[i] * b_reg[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < kPerThread; ++i)
#pragma unroll
        for (int j = 0; j < kPerThread; ++j) {
            const int row = row0 + ty + i * kSide, col = col0 + tx + j * kSide;
            if (row < m && col < n) c[std::size_t(row) * n + col] = acc[i][j];
        }
}

}  // namespace

void gemm_tiled(const float* a, const float* b, float* c, int m, int n, int k)
{
    if (m == 0 || n == 0) return;
    const dim3 grid(cml::ceil_div(n, kBlockTile), cml::ceil_div(m, kBlockTile));
    gemm_tiled_kernel<<<grid, dim3(kSide, kSide)>>>(a, b, c, m, n, k);
    CML_CHECK_LAUNCH();
}

const bool gemm_register_blocked_attempted = false;

void gemm_register_blocked(const float* a, const float* b, float* c, int m, int n, int k)
{
    (void)a, (void)b, (void)c, (void)m, (void)n, (void)k;
}
