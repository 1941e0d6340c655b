// Lab 4 variant, correct: the reference solution's 32 x 32 tiles, and its register-blocked stretch with the two
// buffers filled by cp.async (the pipeline primitives) instead of through registers. A's slice is stored
// transposed, so it goes as four 4-byte copies a thread; B's as one 16-byte copy. On the H100 it was slower than
// the solution's stretch, whose buffers are filled through registers (results/h100.md, "cp.async").
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
// Per step of 8 along K, a thread reads 8 floats of A and 8 of B from shared memory (four 16-byte loads)
// and does 64 multiply-adds with them from registers: 1 shared load per 16 FMAs, against 2 loads per FMA in
// the tiled kernel. A thread's 8 rows are two groups of 4, 64 apart, and so are its 8 columns: then the 16
// lanes that share a row group read 64 consecutive floats of the B tile (conflict-free 16-byte loads), and
// each lane writes 16 consecutive bytes of C.
//
// The tiles are double-buffered with cp.async (__pipeline_memcpy_async, LDGSTS in the machine code): the copy
// of the next step's slices goes from global memory straight to the other buffer while this step's 512
// multiply-adds run, with no register holding it on the way. One barrier per step: after it, this step's
// slices are complete, and every thread has finished reading the buffer that the next copy overwrites.

constexpr int kBlockM = 128, kBlockN = 128, kBlockK = 8;
constexpr int kThreads = 256;
constexpr int kLanesN = 16;  // threads along N (and 16 along M): each covers 8 columns (and 8 rows)
constexpr int kHalf = 64;    // distance between a thread's two groups of 4 rows (and of 4 columns)
constexpr int kFloat = sizeof(float);

// Starts the copy of a[row][col] (a rows x cols matrix) to *slot, or writes 0 there when it lies outside: a copy
// of 0 bytes with 4 of zero fill, from an address that stays inside the matrix.
__device__ void copy_or_zero(float* slot, const float* __restrict__ p, int rows, int cols, int row, int col)
{
    const bool inside = row < rows && col < cols;
    const float* from = inside ? p + std::size_t(row) * cols + col : p;
    __pipeline_memcpy_async(slot, from, kFloat, inside ? 0 : kFloat);
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
    gemm_register_blocked_kernel(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ c,
                                 int m, int n, int k)
{
    // A's tile is stored transposed, [p][row], so that a thread's 4 rows at one p are one 16-byte load.
    __shared__ __align__(16) float a_tile[2][kBlockK][kBlockM];
    __shared__ __align__(16) float b_tile[2][kBlockK][kBlockN];

    const int tid = threadIdx.x;
    const int tx = tid % kLanesN, ty = tid / kLanesN;
    const int block_row = blockIdx.y * kBlockM, block_col = blockIdx.x * kBlockN;
    // Who copies what: A's slice is 128 rows x 8 floats, 4 per thread; B's is 8 rows x 32 groups of 4 floats.
    const int a_row = tid / 2, a_col = (tid % 2) * 4;
    const int b_row = tid / 32, b_col = (tid % 32) * 4;

    // The copies of step `k0`'s slices into `buffer`, committed as one batch. A's four floats are copied one by
    // one, since each goes to another row of the transposed tile. B's four go as one 16-byte copy where rows of B
    // start on 16-byte boundaries (kVector: n % 4 == 0, so they are all inside or all outside).
    auto copy_slices = [&](int k0, int buffer) {
        for (int i = 0; i < 4; ++i)
            copy_or_zero(&a_tile[buffer][a_col + i][a_row], a, m, k, block_row + a_row, k0 + a_col + i);
        float* b_slot = &b_tile[buffer][b_row][b_col];
        const int row = k0 + b_row, col = block_col + b_col;
        if constexpr (kVector) {
            const bool inside = row < k && col < n;
            const float* from = inside ? b + std::size_t(row) * n + col : b;
            __pipeline_memcpy_async(b_slot, from, 4 * kFloat, inside ? 0 : 4 * kFloat);
        } else {
            for (int j = 0; j < 4; ++j) copy_or_zero(b_slot + j, b, k, n, row, col + j);
        }
        __pipeline_commit();
    };

    float acc[8][8] = {};
    const int steps = cml::ceil_div(k, kBlockK);
    if (steps > 0) copy_slices(0, 0);
    for (int step = 0; step < steps; ++step) {
        const int buffer = step % 2;
        // This thread's copies of this step have landed; the barrier waits for everyone else's. It also
        // orders the previous step's reads of the other buffer before the copy below overwrites it.
        __pipeline_wait_prior(0);
        __syncthreads();
        if (step + 1 < steps) copy_slices((step + 1) * kBlockK, 1 - buffer);  // in flight while we compute
#pragma unroll
        for (int p = 0; p < kBlockK; ++p) {
            const float4 a_lo = *reinterpret_cast<const float4*>(&a_tile[buffer][p][ty * 4]);
            const float4 a_hi = *reinterpret_cast<const float4*>(&a_tile[buffer][p][kHalf + ty * 4]);
            const float4 b_lo = *reinterpret_cast<const float4*>(&b_tile[buffer][p][tx * 4]);
            const float4 b_hi = *reinterpret_cast<const float4*>(&b_tile[buffer][p][kHalf + tx * 4]);
            const float a_reg[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
            const float b_reg[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += a_reg[i] * b_reg[j];
        }
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = block_row + (i < 4 ? ty * 4 + i : kHalf + ty * 4 + i - 4);
        const int col = block_col + tx * 4;
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
    // 16-byte copies and stores need rows of B and C that start on 16-byte boundaries: n a multiple of 4.
    if (n % 4 == 0)
        gemm_register_blocked_kernel<true><<<grid, kThreads>>>(a, b, c, m, n, k);
    else
        gemm_register_blocked_kernel<false><<<grid, kThreads>>>(a, b, c, m, n, k);
    CML_CHECK_LAUNCH();
}
