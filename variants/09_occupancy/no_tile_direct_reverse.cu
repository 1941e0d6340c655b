// Lab 9 variant, wrong on purpose: a faster idea that is not the lesson. A reversal needs no tile (a warp reading
// neighbouring floats in descending order is still coalesced), so this one drops the shared memory: every block
// fits, and the question of what limits them is gone with the lab. The launch keeps the reference's shape.
#include <algorithm>

#include "occupancy.hpp"

namespace {

constexpr int kWarp = 32;
constexpr int kMaxRegistersPerThread = 255;
constexpr int kMaxThreadsPerBlock = 1024;

std::size_t round_up(std::size_t value, std::size_t unit) { return (value + unit - 1) / unit * unit; }

}  // namespace

// ---- Part A: how many blocks fit on one SM ----

int resident_blocks(const BlockUse& use, const SmLimits& sm)
{
    if (use.threads < 1 || use.threads > kMaxThreadsPerBlock || use.registers > kMaxRegistersPerThread ||
        use.shared > sm.shared_per_block)
        return 0;
    const int warps = (use.threads + kWarp - 1) / kWarp;  // a partial warp takes a whole one
    int blocks = std::min(sm.max_blocks, sm.max_warps / warps);
    // Each quarter of the SM holds whole warps of its quarter of the registers, given in units per warp.
    const int per_warp = int(round_up(std::size_t(use.registers) * kWarp, std::size_t(sm.register_unit)));
    if (per_warp > 0) {
        const int warps_by_registers = sm.registers / sm.sub_partitions / per_warp * sm.sub_partitions;
        blocks = std::min(blocks, warps_by_registers / warps);
    }
    // The system keeps part of each block's shared memory, and gives it in units.
    const std::size_t per_block = round_up(use.shared + sm.reserved_shared_per_block, sm.shared_unit);
    if (per_block > 0) blocks = std::min(blocks, int(sm.shared / per_block));
    return blocks;
}

// ---- Part B: a launch that keeps the SM full ----

namespace {

// Each thread copies its elements straight to their mirror positions: no shared memory at all.
__global__ void reverse_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int tile)
{
    const int first = int(blockIdx.x) * tile;
    const int length = min(tile, n - first);
    const int mirror = n - first - length;
    for (int k = threadIdx.x; k < length; k += blockDim.x) out[mirror + k] = in[first + length - 1 - k];
}

template <class Kernel>
void allow_shared(Kernel* kernel, std::size_t bytes)
{
    CML_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
}

SmLimits limits_of_this_gpu()
{
    int device = 0;
    CML_CHECK(cudaGetDevice(&device));
    cudaDeviceProp p{};
    CML_CHECK(cudaGetDeviceProperties(&p, device));
    SmLimits sm;
    sm.max_warps = p.maxThreadsPerMultiProcessor / kWarp;
    sm.max_blocks = p.maxBlocksPerMultiProcessor;
    sm.registers = p.regsPerMultiprocessor;
    sm.shared = p.sharedMemPerMultiprocessor;
    sm.shared_per_block = p.sharedMemPerBlockOptin;
    sm.reserved_shared_per_block = p.reservedSharedMemPerBlock;
    sm.shared_unit = p.major >= 8 ? 128 : 256;  // the occupancy calculator's units (cuda_occupancy.h)
    return sm;
}

// 256 threads: 8 warps, so 8 blocks fill the 64 warps of an H100's SM. 8 floats per thread: a tile of 8 KB,
// small enough for 8 blocks (8 x 9 KB with the reserve, of 228 KB), large enough that a block does real work.
constexpr int kThreads = 256;
constexpr int kFloatsPerThread = 8;

}  // namespace

ReverseLaunch choose_launch(const SmLimits& sm, int registers)
{
    ReverseLaunch launch{kThreads, kThreads * kFloatsPerThread};
    // Smaller tiles first, then smaller blocks: the first launch of which enough blocks fit.
    for (int threads = kThreads; threads >= kWarp; threads /= 2) {
        for (int per_thread = kFloatsPerThread; per_thread >= 1; per_thread /= 2) {
            launch = {threads, threads * per_thread};
            const BlockUse use{threads, registers, std::size_t(launch.tile) * sizeof(float)};
            if (resident_blocks(use, sm) >= kMinBlocksPerSm) return launch;
        }
    }
    return launch;  // none fits: the smallest, which the runtime's check in launch_for_this_gpu reports
}

void reverse(const float* in, float* out, int n, ReverseLaunch launch)
{
    if (n == 0) return;  // a launch of 0 blocks is an error
    const std::size_t bytes = std::size_t(launch.tile) * sizeof(float);
    allow_shared(reverse_kernel, bytes);
    reverse_kernel<<<cml::ceil_div(n, launch.tile), launch.threads>>>(in, out, n, launch.tile);
    CML_CHECK_LAUNCH();
}

ReverseLaunch launch_for_this_gpu()
{
    cudaFuncAttributes attributes{};
    CML_CHECK(cudaFuncGetAttributes(&attributes, reverse_kernel));
    ReverseLaunch launch = choose_launch(limits_of_this_gpu(), attributes.numRegs);
    // The runtime knows this GPU best: if it fits fewer blocks than the arithmetic said, halve the tile.
    for (;;) {
        const std::size_t bytes = std::size_t(launch.tile) * sizeof(float);
        allow_shared(reverse_kernel, bytes);
        int blocks = 0;
        CML_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reverse_kernel, launch.threads, bytes));
        if (blocks >= kMinBlocksPerSm || launch.tile / 2 < launch.threads) return launch;
        launch.tile /= 2;
    }
}

// ---- Stretch: one block per SM, and still fast ----

namespace {

// The same reversal with 8 warps per SM. Latency is hidden by bytes in flight, not by warps: each thread issues
// two 16-byte loads before it needs either.
__global__ void reverse_in_flight_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int tile)
{
    extern __shared__ float4 staged4[];
    float* staged = reinterpret_cast<float*>(staged4);
    const int first = int(blockIdx.x) * tile;
    const int length = min(tile, n - first);
    // tile is a multiple of 4, so the block's first float is 16-byte aligned (cudaMalloc aligns `in`).
    const float4* in4 = reinterpret_cast<const float4*>(in + first);
    const int quads = length / 4;
    const int step = int(blockDim.x);
    int q = threadIdx.x;
    for (; q + step < quads; q += 2 * step) {
        const float4 a = in4[q];
        const float4 b = in4[q + step];
        staged4[q] = a;
        staged4[q + step] = b;
    }
    if (q < quads) staged4[q] = in4[q];
    for (int k = quads * 4 + threadIdx.x; k < length; k += step) staged[k] = in[first + k];
    __syncthreads();
    const int mirror = n - first - length;
#pragma unroll 4
    for (int k = threadIdx.x; k < length; k += step) out[mirror + k] = staged[length - 1 - k];
}

}  // namespace

const bool reverse_in_flight_attempted = true;

void reverse_in_flight(const float* in, float* out, int n)
{
    if (n == 0) return;
    const ReverseLaunch launch = kOneBlockPerSm;
    const std::size_t bytes = std::size_t(launch.tile) * sizeof(float);
    allow_shared(reverse_in_flight_kernel, bytes);
    reverse_in_flight_kernel<<<cml::ceil_div(n, launch.tile), launch.threads, bytes>>>(in, out, n, launch.tile);
    CML_CHECK_LAUNCH();
}
