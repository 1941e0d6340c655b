// Lab 9 variant, correct: 128-thread blocks filling a 16 KB tile with float4 loads, 32 floats per thread.
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

// The tile filled with float4 loads where the block's part of `in` allows (its first float 16-byte aligned),
// then written out reversed one float per thread.
__global__ void reverse_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int tile)
{
    extern __shared__ float staged[];
    const int first = int(blockIdx.x) * tile;
    const int length = min(tile, n - first);
    const int step = int(blockDim.x);
    int done = 0;
    if (tile % 4 == 0) {
        const float4* in4 = reinterpret_cast<const float4*>(in + first);
        float4* staged4 = reinterpret_cast<float4*>(staged);
        for (int q = threadIdx.x; q < length / 4; q += step) staged4[q] = in4[q];
        done = length / 4 * 4;
    }
    for (int k = done + threadIdx.x; k < length; k += step) staged[k] = in[first + k];
    __syncthreads();
    const int mirror = n - first - length;
    for (int k = threadIdx.x; k < length; k += step) out[mirror + k] = staged[length - 1 - k];
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

// 128 threads of 32 floats: a 16 KB tile, 13 blocks per H100 SM by shared memory.
constexpr int kThreads = 128;
constexpr int kFloatsPerThread = 32;

}  // namespace

ReverseLaunch choose_launch(const SmLimits& sm, int registers)
{
    ReverseLaunch launch{kThreads, kThreads * kFloatsPerThread};
    for (int threads = kThreads; threads >= kWarp; threads /= 2) {
        for (int per_thread = kFloatsPerThread; per_thread >= 1; per_thread /= 2) {
            launch = {threads, threads * per_thread};
            const BlockUse use{threads, registers, std::size_t(launch.tile) * sizeof(float)};
            if (resident_blocks(use, sm) >= kMinBlocksPerSm) return launch;
        }
    }
    return launch;
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
    cudaFuncAttributes attributes{};
    CML_CHECK(cudaFuncGetAttributes(&attributes, reverse_kernel));
    ReverseLaunch launch = choose_launch(limits_of_this_gpu(), attributes.numRegs);
    for (;;) {
        const std::size_t bytes = std::size_t(launch.tile) * sizeof(float);
        allow_shared(reverse_kernel, bytes);
        int blocks = 0;
        CML_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reverse_kernel, launch.threads, bytes));
        if (blocks >= kMinBlocksPerSm || launch.tile / 2 < launch.threads) return launch;
        launch.tile /= 2;
    }
}

const bool reverse_in_flight_attempted = false;

void reverse_in_flight(const float*, float*, int) {}
