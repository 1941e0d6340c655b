// Lab 9 variant, correct: the runtime sizes the tile, cudaOccupancyAvailableDynamicSMemPerBlock for 8 blocks of 256.
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

// Block b stages its tile of `in` in shared memory, then writes it reversed at the mirror position of out.
// Both the reads and the writes are coalesced; the tile is what the block needs its shared memory for.
__global__ void reverse_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int tile)
{
    extern __shared__ float staged[];
    const int first = int(blockIdx.x) * tile;  // < n, so it fits an int
    const int length = min(tile, n - first);
    for (int k = threadIdx.x; k < length; k += blockDim.x) staged[k] = in[first + k];
    __syncthreads();  // every element of the tile is written before any thread reads another's
    const int mirror = n - first - length;
    for (int k = threadIdx.x; k < length; k += blockDim.x) out[mirror + k] = staged[length - 1 - k];
}

// Above 48 KB of dynamic shared memory per block, a kernel must be allowed it first.
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

// 256 threads; the tile is whatever shared memory 8 blocks of them leave each block, by the runtime's count.
constexpr int kThreads = 256;
constexpr int kBlocksWanted = 8;

}  // namespace

ReverseLaunch choose_launch(const SmLimits& sm, int registers)
{
    // The arithmetic's answer: the largest tile (a multiple of the block) with which 8 blocks fit, else
    // kMinBlocksPerSm; smaller blocks where the registers allow too few of 256 threads.
    for (int wanted : {kBlocksWanted, kMinBlocksPerSm}) {
        for (int threads = kThreads; threads >= kWarp; threads /= 2) {
            for (int tile = 64 * threads; tile >= threads; tile -= threads) {
                const BlockUse use{threads, registers, std::size_t(tile) * sizeof(float)};
                if (resident_blocks(use, sm) >= wanted) return {threads, tile};
            }
        }
    }
    return {kWarp, kWarp};
}

void reverse(const float* in, float* out, int n, ReverseLaunch launch)
{
    if (n == 0) return;
    const std::size_t bytes = std::size_t(launch.tile) * sizeof(float);
    allow_shared(reverse_kernel, bytes);
    reverse_kernel<<<cml::ceil_div(n, launch.tile), launch.threads, bytes>>>(in, out, n, launch.tile);
    CML_CHECK_LAUNCH();
}

ReverseLaunch launch_for_this_gpu()
{
    // Let the runtime size the tile: the most dynamic shared memory a block may have for 8 to fit.
    allow_shared(reverse_kernel, 64 * kThreads * sizeof(float));
    std::size_t bytes = 0;
    CML_CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&bytes, reverse_kernel, kBlocksWanted, kThreads));
    const int tile = std::max(kThreads, int(bytes / sizeof(float)) / kThreads * kThreads);
    const ReverseLaunch launch{kThreads, std::min(tile, 64 * kThreads)};
    int blocks = 0;
    allow_shared(reverse_kernel, std::size_t(launch.tile) * sizeof(float));
    CML_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reverse_kernel, launch.threads,
                                                            std::size_t(launch.tile) * sizeof(float)));
    return blocks >= kMinBlocksPerSm ? launch : choose_launch(limits_of_this_gpu(), 0);
}

const bool reverse_in_flight_attempted = false;

void reverse_in_flight(const float*, float*, int) {}
