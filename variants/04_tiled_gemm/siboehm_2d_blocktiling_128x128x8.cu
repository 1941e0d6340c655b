// Lab 4 variant, correct, beyond the lab: 2D block tiling as in Simon Boehm's SGEMM series (kernel 5): 128 x 128
// tiles of C, steps of 8 along K, 256 threads of 8 x 8 outputs from registers. No float4s, no double buffering
// (the solution's stretch has both). Edges padded with zeros.
#include "gemm.hpp"

namespace {

constexpr int kBM = 128, kBN = 128, kBK = 8;
constexpr int kTM = 8, kTN = 8;                     // outputs per thread
constexpr int kThreads = (kBM / kTM) * (kBN / kTN);  // 256
constexpr int kStrideA = kThreads / kBK;            // rows of A's tile loaded per pass: 32
constexpr int kStrideB = kThreads / kBN;            // rows of B's tile loaded per pass: 2

__global__ void gemm_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k)
{
    __shared__ float as[kBM * kBK];
    __shared__ float bs[kBK * kBN];
    const int tid = threadIdx.x;
    const int row0 = blockIdx.y * kBM, col0 = blockIdx.x * kBN;
    const int inner_row_a = tid / kBK, inner_col_a = tid % kBK;
    const int inner_row_b = tid / kBN, inner_col_b = tid % kBN;
    const int thread_row = tid / (kBN / kTN), thread_col = tid % (kBN / kTN);
    float acc[kTM][kTN] = {};
    float reg_m[kTM], reg_n[kTN];
    for (int k0 = 0; k0 < k; k0 += kBK) {
        for (int offset = 0; offset < kBM; offset += kStrideA) {
            const int ar = row0 + inner_row_a + offset, ac = k0 + inner_col_a;
            as[(inner_row_a + offset) * kBK + inner_col_a] = ar < m && ac < k ? a[std::size_t(ar) * k + ac] : 0.0f;
        }
        for (int offset = 0; offset < kBK; offset += kStrideB) {
            const int br = k0 + inner_row_b + offset, bc = col0 + inner_col_b;
            bs[(inner_row_b + offset) * kBN + inner_col_b] = br < k && bc < n ? b[std::size_t(br) * n + bc] : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int dot = 0; dot < kBK; ++dot) {
#pragma unroll
            for (int i = 0; i < kTM; ++i) reg_m[i] = as[(thread_row * kTM + i) * kBK + dot];
#pragma unroll
            for (int j = 0; j < kTN; ++j) reg_n[j] = bs[dot * kBN + thread_col * kTN + j];
#pragma unroll
            for (int i = 0; i < kTM; ++i)
#pragma unroll
                for (int j = 0; j < kTN; ++j) acc[i][j] += reg_m[i] * reg_n[j];
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < kTM; ++i)
#pragma unroll
        for (int j = 0; j < kTN; ++j) {
            const int row = row0 + thread_row * kTM + i, col = col0 + thread_col * kTN + j;
            if (row < m && col < n) c[std::size_t(row) * n + col] = acc[i][j];
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
