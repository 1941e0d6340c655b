// Lab 4 variant, correct: the shape of cuda-samples' matrixMul, a kernel templated on its block size that walks
// A's row of tiles and B's column of tiles with pointer steps, here instantiated at 32 and given ragged edges.
#include "gemm.hpp"

namespace {

constexpr int kBlockSize = 32;

template <int kSide>
__global__ void matrix_mul_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k)
{
    __shared__ float as[kSide][kSide];
    __shared__ float bs[kSide][kSide];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kSide + ty, col = blockIdx.x * kSide + tx;
    // The first tile of A this block uses starts at its first row; B's at its first column. Each step moves
    // kSide columns along A and kSide rows down B.
    const float* a_tile = a + std::size_t(blockIdx.y) * kSide * k;
    const float* b_tile = b + std::size_t(blockIdx.x) * kSide;
    const std::size_t b_step = std::size_t(kSide) * n;
    float csub = 0.0f;
    for (int k0 = 0; k0 < k; k0 += kSide, a_tile += kSide, b_tile += b_step) {
        as[ty][tx] = row < m && k0 + tx < k ? a_tile[std::size_t(ty) * k + tx] : 0.0f;
        bs[ty][tx] = k0 + ty < k && col < n ? b_tile[std::size_t(ty) * n + tx] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int p = 0; p < kSide; ++p) csub += as[ty][p] * bs[p][tx];
        __syncthreads();
    }
    if (row < m && col < n) c[std::size_t(row) * n + col] = csub;
}

}  // namespace

void gemm_tiled(const float* a, const float* b, float* c, int m, int n, int k)
{
    if (m == 0 || n == 0) return;
    const dim3 threads(kBlockSize, kBlockSize);
    const dim3 grid(cml::ceil_div(n, kBlockSize), cml::ceil_div(m, kBlockSize));
    matrix_mul_kernel<kBlockSize><<<grid, threads>>>(a, b, c, m, n, k);
    CML_CHECK_LAUNCH();
}

const bool gemm_register_blocked_attempted = false;

void gemm_register_blocked(const float* a, const float* b, float* c, int m, int n, int k)
{
    (void)a, (void)b, (void)c, (void)m, (void)n, (void)k;
}
