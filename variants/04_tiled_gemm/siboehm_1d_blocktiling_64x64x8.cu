// Lab 4 variant, correct, beyond the lab: 1D block tiling as in Simon Boehm's "How to Optimize a CUDA Matmul Kernel
// for cuBLAS-like Performance" (kernel 4): 64 x 64 tiles of C, steps of 8 along K, 512 threads of 8 outputs each
// (a column of 8 rows). Edges padded with zeros.
#include "gemm.hpp"

namespace {

constexpr int kBM = 64, kBN = 64, kBK = 8;  // the block's tile of C, and its step along K
constexpr int kTM = 8;                      // outputs per thread, down a column
constexpr int kThreads = kBM * kBN / kTM;   // 512

__global__ void gemm_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k)
{
    __shared__ float as[kBM * kBK];
    __shared__ float bs[kBK * kBN];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
    // Each thread loads one element of each tile: A's 64 x 8 and B's 8 x 64.
    const int inner_row_a = tid / kBK, inner_col_a = tid % kBK;
    const int inner_row_b = tid / kBN, inner_col_b = tid % kBN;
    // Each thread owns rows thread_row * 8 .. + 7 of column thread_col; a warp shares thread_row.
    const int thread_col = tid % kBN, thread_row = tid / kBN;
    float acc[kTM] = {};
    for (int k0 = 0; k0 < k; k0 += kBK) {
        const int ar = row0 + inner_row_a, ac = k0 + inner_col_a;
        as[inner_row_a * kBK + inner_col_a] = ar < m && ac < k ? a[std::size_t(ar) * k + ac] : 0.0f;
        const int br = k0 + inner_row_b, bc = col0 + inner_col_b;
        bs[inner_row_b * kBN + inner_col_b] = br < k && bc < n ? b[std::size_t(br) * n + bc] : 0.0f;
        __syncthreads();
#pragma unroll
        for (int dot = 0; dot < kBK; ++dot) {
            const float b_tmp = bs[dot * kBN + thread_col];  // one B value reused for 8 outputs
#pragma unroll
            for (int r = 0; r < kTM; ++r) acc[r] += as[(thread_row * kTM + r) * kBK + dot] * b_tmp;
        }
        __syncthreads();
    }
    const int col = col0 + thread_col;
#pragma unroll
    for (int r = 0; r < kTM; ++r) {
        const int row = row0 + thread_row * kTM + r;
        if (row < m && col < n) c[std::size_t(row) * n + col] = acc[r];
    }
}

}  // namespace

void gemm_tiled(const float* a, const float* b, float* c, int m, int n, int k)
{
    if (m == 0 || n == 0) return;
    const dim3 grid(cml::ceil_div(n, kBN), cml::ceil_div(m, kBM));
    gemm_tiled_kernel<<<grid, kThreads>>>(a, b, c, m, n, k);
    CML_CHECK_LAUNCH();
}

const bool gemm_register_blocked_attempted = false;

void gemm_register_blocked(const float* a, const float* b, float* c, int m, int n, int k)
{
    (void)a, (void)b, (void)c, (void)m, (void)n, (void)k;
}
