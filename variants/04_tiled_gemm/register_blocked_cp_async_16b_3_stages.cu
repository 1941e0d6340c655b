// Lab 4 variant, correct: register_blocked_cp_async_16b with three buffers of each slice instead of two: the
// copies of the next two steps are in flight while one is used, so a copy has two steps of multiply-adds to land
// in, not one. 24 KB of shared memory a block instead of 16. The H100's figure is for the benchmark to say.
#include <cuda_pipeline.h>

#include "gemm.hpp"

namespace {

// ---- gemm_tiled: a 32 x 32 block of threads computes a 32 x 32 tile of C ----

constexpr int kTile = 32;

__global__ void gemm_tiled_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                  int m, int n, int k)
{
    __shared__ float a_tile[kTile][kTile];  // rows of A: the block's 32 rows, 32 columns starting at k0
    __shared__ float b_tile[kTile][kTile];  // columns of B: 32 rows starting at k0, the block's 32 columns
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * kTile + ty;  // of C and of A
    const int col = blockIdx.x * kTile + tx;  // of C and of B

    float sum = 0.0f;
    for (int k0 = 0; k0 < k; k0 += kTile) {
        // Every thread fetches one element of each tile; tx varies fastest, so a warp reads 32 neighbouring
        // floats of one row of A and of B. Past an edge the slot gets 0, which adds nothing to the sums.
        a_tile[ty][tx] = row < m && k0 + tx < k ? a[std::size_t(row) * k + k0 + tx] : 0.0f;
        b_tile[ty][tx] = k0 + ty < k && col < n ? b[std::size_t(k0 + ty) * n + col] : 0.0f;
        // Barrier 1: the loop below reads slots that 62 other threads wrote.
        __syncthreads();
        // a_tile[ty][p] is one address for the whole warp (a broadcast); b_tile[p][tx] is 32 banks.
#pragma unroll
        for (int p = 0; p < kTile; ++p) sum += a_tile[ty][p] * b_tile[p][tx];
        // Barrier 2: the next iteration overwrites the tiles, which slower warps may still be reading.
        __syncthreads();
    }
    if (row < m && col < n) c[std::size_t(row) * n + col] = sum;
}

// ---- gemm_register_blocked: a 128 x 128 tile of C per block of 256 threads, 8 x 8 per thread ----
//
// Per step of 8 along K, each thread does 64 multiply-adds per p from 8 values of A and 8 of B in registers, as
// in the reference solution. What differs is how the slices reach shared memory: cp.async (__pipeline_memcpy_async,
// LDGSTS in the machine code) copies 16 bytes from global memory straight into shared memory, with no register on
// the way, while the block computes on another buffer. A 16-byte copy moves 4 neighbouring floats of one row, so
// A's slice is stored as A is, a_tile[row][p]: a thread reads 4 values of p of one row in one 16-byte load, and
// works through a step in two halves of 4 p, with 8 rows x 4 p of A in registers.
//
// A thread's 8 rows are ty, ty + 16, ..., ty + 112. The 32 lanes of a warp share two values of ty, so a load
// of A reads two neighbouring rows, 32 bytes apart (in other banks), each a broadcast to 16 lanes. Rows 4
// apart, as the solution's transposed tile has them, would be 128 bytes apart: the same banks.
// Its 8 columns are two groups of 4, 64 apart, as in the solution: 16 lanes read 64 consecutive floats of B.

constexpr int kBlockM = 128, kBlockN = 128, kBlockK = 8;
constexpr int kThreads = 256;
constexpr int kLanesN = 16;                     // threads along N (and 16 along M): each covers 8 columns (and 8 rows)
constexpr int kRowStride = kThreads / kLanesN;  // 16: between a thread's rows
constexpr int kHalf = 64;                       // distance between a thread's two groups of 4 columns
constexpr int kVec = 4;                         // floats per 16-byte copy or load
constexpr int kStages = 3;  // buffers of each slice: the copies of kStages - 1 steps are in flight as one is used

// Starts the copy of x[row][col..col+3] (a rows x cols matrix) to slot[0..3]; zeros where it lies outside.
// kVector: cols % 4 == 0, so the four floats are 16-byte aligned and all inside or all outside: one 16-byte copy
// (0 bytes copied and 16 filled with zeros outside, from an address that stays inside the matrix). Otherwise four
// 4-byte copies, each with its own bounds check.
template <bool kVector>
__device__ void copy4_or_zero(float* slot, const float* __restrict__ x, int rows, int cols, int row, int col)
{
    constexpr int kWord = sizeof(float);
    if constexpr (kVector) {
        const bool inside = row < rows && col < cols;
        __pipeline_memcpy_async(slot, inside ? x + std::size_t(row) * cols + col : x, kVec * kWord,
                                inside ? 0 : kVec * kWord);
    } else {
        for (int i = 0; i < kVec; ++i) {
            const bool inside = row < rows && col + i < cols;
            __pipeline_memcpy_async(slot + i, inside ? x + std::size_t(row) * cols + col + i : x, kWord,
                                    inside ? 0 : kWord);
        }
    }
}

template <bool kVector>
__device__ void store4(float* __restrict__ p, int rows, int cols, int row, int col, float4 v)
{
    if (row >= rows) return;
    float* q = p + std::size_t(row) * cols + col;
    if constexpr (kVector) {
        if (col < cols) *reinterpret_cast<float4*>(q) = v;
        return;
    }
    if (col < cols) q[0] = v.x;
    if (col + 1 < cols) q[1] = v.y;
    if (col + 2 < cols) q[2] = v.z;
    if (col + 3 < cols) q[3] = v.w;
}

template <bool kVector>
__global__ void __launch_bounds__(kThreads, 2)
    gemm_register_blocked_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c, int m,
                                 int n, int k)
{
    // Rows of 8 floats, 32 bytes: every 16-byte copy and load lands on a 16-byte boundary.
    __shared__ __align__(16) float a_tile[kStages][kBlockM][kBlockK];
    __shared__ __align__(16) float b_tile[kStages][kBlockK][kBlockN];

    const int tid = threadIdx.x;
    const int tx = tid % kLanesN, ty = tid / kLanesN;
    const int block_row = blockIdx.y * kBlockM, block_col = blockIdx.x * kBlockN;
    // Who copies what: A's slice is 128 rows x 2 groups of 4 floats, B's 8 rows x 32 groups; one of each a thread,
    // so a warp's copies fill 512 consecutive bytes of each tile.
    const int a_row = tid / 2, a_col = (tid % 2) * kVec;
    const int b_row = tid / 32, b_col = (tid % 32) * kVec;

    // The copies of one step's slices into `buffer`, started; they land some time after.
    auto copy_slices = [&](int step, int buffer) {
        const int k0 = step * kBlockK;
        copy4_or_zero<kVector>(&a_tile[buffer][a_row][a_col], a, m, k, block_row + a_row, k0 + a_col);
        copy4_or_zero<kVector>(&b_tile[buffer][b_row][b_col], b, k, n, k0 + b_row, block_col + b_col);
    };

    float acc[8][8] = {};
    const int steps = cml::ceil_div(k, kBlockK);
    // The first kStages - 1 steps' copies, each committed as its own batch (an empty one past the last step, so
    // that batch s is always step s's).
    for (int s = 0; s < kStages - 1; ++s) {
        if (s < steps) copy_slices(s, s);
        __pipeline_commit();
    }
    for (int step = 0; step < steps; ++step) {
        const int buffer = step % kStages;
        // Batches 0..step have landed for this thread once at most kStages - 2 newer ones are pending; the
        // barrier waits for every thread's. It also orders the previous step's reads of the buffer that the
        // copy below overwrites before that copy.
        __pipeline_wait_prior(kStages - 2);
        __syncthreads();
        const int ahead = step + kStages - 1;
        if (ahead < steps) copy_slices(ahead, ahead % kStages);  // in flight while we compute
        __pipeline_commit();

#pragma unroll
        for (int half = 0; half < kBlockK / kVec; ++half) {
            float a_reg[8][kVec];  // this thread's 8 rows at 4 values of p
#pragma unroll
            for (int i = 0; i < 8; ++i) {
                const float4 v = *reinterpret_cast<const float4*>(&a_tile[buffer][ty + i * kRowStride][half * kVec]);
                a_reg[i][0] = v.x, a_reg[i][1] = v.y, a_reg[i][2] = v.z, a_reg[i][3] = v.w;
            }
#pragma unroll
            for (int q = 0; q < kVec; ++q) {
                const int p = half * kVec + q;
                const float4 b_lo = *reinterpret_cast<const float4*>(&b_tile[buffer][p][tx * kVec]);
                const float4 b_hi = *reinterpret_cast<const float4*>(&b_tile[buffer][p][kHalf + tx * kVec]);
                const float b_reg[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
                for (int i = 0; i < 8; ++i)
#pragma unroll
                    for (int j = 0; j < 8; ++j) acc[i][j] += a_reg[i][q] * b_reg[j];
            }
        }
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = block_row + ty + i * kRowStride;
        const int col = block_col + tx * kVec;
        store4<kVector>(c, m, n, row, col, make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
        store4<kVector>(c, m, n, row, col + kHalf, make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
    }
}

}  // namespace

void gemm_tiled(const float* a, const float* b, float* c, int m, int n, int k)
{
    if (m == 0 || n == 0) return;  // a launch of 0 blocks is an error
    const dim3 block(kTile, kTile);
    const dim3 grid(cml::ceil_div(n, kTile), cml::ceil_div(m, kTile));  // x across the columns of C
    gemm_tiled_kernel<<<grid, block>>>(a, b, c, m, n, k);
    CML_CHECK_LAUNCH();
}

const bool gemm_register_blocked_attempted = true;

void gemm_register_blocked(const float* a, const float* b, float* c, int m, int n, int k)
{
    if (m == 0 || n == 0) return;
    const dim3 grid(cml::ceil_div(n, kBlockN), cml::ceil_div(m, kBlockM));
    // 16-byte copies and stores need rows of A and B (and C) that start on 16-byte boundaries: k and n multiples
    // of 4.
    if (k % 4 == 0 && n % 4 == 0)
        gemm_register_blocked_kernel<true><<<grid, kThreads>>>(a, b, c, m, n, k);
    else
        gemm_register_blocked_kernel<false><<<grid, kThreads>>>(a, b, c, m, n, k);
    CML_CHECK_LAUNCH();
}
