// Lab 4 variant, correct: the reference solution's 32 x 32 tiles, and a register-blocked stretch laid out as the
// classic fast SGEMMs are: 128 x 128 per block, 8 x 8 per thread, each warp a 32 x 64 tile of C, fragments of A and
// B double-buffered in registers and slices double-buffered through registers. Written to reach for 0.9 of
// cuBLAS fp32 on an H100; the benchmark says how close it comes.
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
// The reference solution's arithmetic (per step of 8 along K, 8 values of A and 8 of B per thread and p, 64
// multiply-adds from registers), with three changes that fast SGEMM kernels commonly make:
// - Warp tiles. The 8 warps split the block's tile 4 down x 2 across, 32 x 64 each, and a warp's lanes 4 down x
//   8 across. A lane's 8 rows are two groups of 4, 16 apart, and its 8 columns two groups of 4, 32 apart. At one
//   p a warp then reads 4 different float4s of A and 8 of B: 64 and 128 consecutive bytes, against 32 and 256 in
//   the solution's layout, whose warps are 2 x 16 lanes.
// - Fragments double-buffered in registers: the 16 values of p + 1 are loaded from shared memory before the 64
//   multiply-adds of p, so that those need not wait for a load.
// - A's transposed tile padded by 4 floats a row: the four floats a thread stores at one p then land in banks 16
//   apart from its neighbour's (the two threads of a row of A), not in the same one.
// As in the solution, the next step's slices come from global memory into registers while this one is used, and
// go to the other buffer after the multiply-adds: one barrier per step.

constexpr int kBlockM = 128, kBlockN = 128, kBlockK = 8;
constexpr int kThreads = 256;
constexpr int kWarpSize = 32;
constexpr int kWarpsN = 2;                // warps across the block's columns (4 down its rows)
constexpr int kWarpM = 32, kWarpN = 64;   // each warp's tile of C
constexpr int kLanesN = 8;                // lanes across a warp's columns (4 down its rows)
constexpr int kRowGap = kWarpM / 2;       // 16: between a lane's two groups of 4 rows
constexpr int kColGap = kWarpN / 2;       // 32: between its two groups of 4 columns
constexpr int kVec = 4;                   // floats per 16-byte load or store
constexpr int kPaddedM = kBlockM + kVec;  // a row of A's transposed tile, padded (still a multiple of 4 floats)

// Four consecutive floats of row `row` of a rows x cols matrix, from column `col`; zeros outside it.
// kVector: cols % 4 == 0, so the four are 16-byte aligned and either all inside or all outside.
template <bool kVector>
__device__ float4 load4(const float* __restrict__ p, int rows, int cols, int row, int col)
{
    float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    if (row >= rows) return v;
    const float* q = p + std::size_t(row) * cols + col;
    if constexpr (kVector) {
        return col < cols ? *reinterpret_cast<const float4*>(q) : v;
    }
    if (col < cols) v.x = q[0];
    if (col + 1 < cols) v.y = q[1];
    if (col + 2 < cols) v.z = q[2];
    if (col + 3 < cols) v.w = q[3];
    return v;
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
    // A's tile is stored transposed, [p][row], so that a lane's 4 rows at one p are one 16-byte load.
    __shared__ __align__(16) float a_tile[2][kBlockK][kPaddedM];
    __shared__ __align__(16) float b_tile[2][kBlockK][kBlockN];

    const int tid = threadIdx.x;
    const int warp = tid / kWarpSize, lane = tid % kWarpSize;
    // The first of this lane's rows and columns within the block's tile.
    const int row0 = (warp / kWarpsN) * kWarpM + (lane / kLanesN) * kVec;
    const int col0 = (warp % kWarpsN) * kWarpN + (lane % kLanesN) * kVec;
    const int block_row = blockIdx.y * kBlockM, block_col = blockIdx.x * kBlockN;
    // Who loads what: A's slice is 128 rows x 8 floats, two float4s per row; B's is 8 rows x 32 float4s.
    const int a_row = tid / 2, a_col = (tid % 2) * kVec;
    const int b_row = tid / 32, b_col = (tid % 32) * kVec;

    float4 a_next = {}, b_next = {};
    auto fetch = [&](int k0) {
        a_next = load4<kVector>(a, m, k, block_row + a_row, k0 + a_col);
        b_next = load4<kVector>(b, k, n, k0 + b_row, block_col + b_col);
    };
    auto stage = [&](int buffer) {
        a_tile[buffer][a_col + 0][a_row] = a_next.x;
        a_tile[buffer][a_col + 1][a_row] = a_next.y;
        a_tile[buffer][a_col + 2][a_row] = a_next.z;
        a_tile[buffer][a_col + 3][a_row] = a_next.w;
        *reinterpret_cast<float4*>(&b_tile[buffer][b_row][b_col]) = b_next;
    };
    // This lane's 8 values of A and 8 of B at one p, from shared memory into registers.
    auto load_fragments = [&](int buffer, int p, float(&a_reg)[8], float(&b_reg)[8]) {
        const float4 a_lo = *reinterpret_cast<const float4*>(&a_tile[buffer][p][row0]);
        const float4 a_hi = *reinterpret_cast<const float4*>(&a_tile[buffer][p][row0 + kRowGap]);
        const float4 b_lo = *reinterpret_cast<const float4*>(&b_tile[buffer][p][col0]);
        const float4 b_hi = *reinterpret_cast<const float4*>(&b_tile[buffer][p][col0 + kColGap]);
        a_reg[0] = a_lo.x, a_reg[1] = a_lo.y, a_reg[2] = a_lo.z, a_reg[3] = a_lo.w;
        a_reg[4] = a_hi.x, a_reg[5] = a_hi.y, a_reg[6] = a_hi.z, a_reg[7] = a_hi.w;
        b_reg[0] = b_lo.x, b_reg[1] = b_lo.y, b_reg[2] = b_lo.z, b_reg[3] = b_lo.w;
        b_reg[4] = b_hi.x, b_reg[5] = b_hi.y, b_reg[6] = b_hi.z, b_reg[7] = b_hi.w;
    };

    float acc[8][8] = {};
    float a_reg[2][8], b_reg[2][8];  // the fragments of p (in use) and of p + 1 (loading)
    const int steps = cml::ceil_div(k, kBlockK);
    if (steps > 0) {
        fetch(0);
        stage(0);
    }
    __syncthreads();
    for (int step = 0; step < steps; ++step) {
        const int buffer = step % 2;
        if (step + 1 < steps) fetch((step + 1) * kBlockK);  // in flight while we compute
        load_fragments(buffer, 0, a_reg[0], b_reg[0]);
#pragma unroll
        for (int p = 0; p < kBlockK; ++p) {
            if (p + 1 < kBlockK) load_fragments(buffer, p + 1, a_reg[(p + 1) % 2], b_reg[(p + 1) % 2]);
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] += a_reg[p % 2][i] * b_reg[p % 2][j];
        }
        // The other buffer was last read in the previous step, which every thread finished before the
        // barrier at its end; after this step's barrier, the next step finds it complete.
        if (step + 1 < steps) stage(1 - buffer);
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 8; ++i) {
        const int row = block_row + row0 + (i < 4 ? i : kRowGap + i - 4);
        const int col = block_col + col0;
        store4<kVector>(c, m, n, row, col, make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
        store4<kVector>(c, m, n, row, col + kColGap, make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
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
    // 16-byte accesses need rows of A and B (and C) that start on 16-byte boundaries: k and n multiples of 4.
    if (k % 4 == 0 && n % 4 == 0)
        gemm_register_blocked_kernel<true><<<grid, kThreads>>>(a, b, c, m, n, k);
    else
        gemm_register_blocked_kernel<false><<<grid, kThreads>>>(a, b, c, m, n, k);
    CML_CHECK_LAUNCH();
}
