// Lab 9: occupancy. The only file you edit; the handout is README.md beside it.
// A memory-bound reversal whose blocks each hold a 115 KB tile: one block fits on an SM, and its 8 warps are too
// few to keep DRAM busy. Part A counts the blocks an SM holds; Part B chooses a launch that fits several.
#include <algorithm>

#include "occupancy.hpp"

namespace {

constexpr int kWarp = 32;

}  // namespace

// ---- Part A: how many blocks fit on one SM ----

int resident_blocks(const BlockUse& use, const SmLimits& sm)
{
    // TODO 1: return how many blocks of `use` fit on one SM at once: the least of what each limit allows, and
    //   0 where a single block does not fit (more than 1024 threads, 255 registers or sm.shared_per_block bytes).
    //   Then delete the CML_TODO line.
    //   Hint: warps: sm.max_warps / warps per block (a partial warp takes a whole one). Registers: a warp gets
    //   registers * 32 rounded up to sm.register_unit, and each of the sm.sub_partitions quarters of the SM
    //   holds only whole warps of its sm.registers / sm.sub_partitions. Shared memory: each block takes
    //   use.shared plus sm.reserved_shared_per_block, rounded up to sm.shared_unit. Blocks: sm.max_blocks.
    //   The handout works an example of each.
    CML_TODO("TODO 1: count the resident blocks (labs/09_occupancy/kernel.cu)");
    (void)use;
    (void)sm;
    return 0;
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

}  // namespace

ReverseLaunch choose_launch(const SmLimits& sm, int registers)
{
    // TODO 2: return a launch of which at least kMinBlocksPerSm blocks fit on an SM of `sm` (ask resident_blocks),
    //   with 32 to 1024 threads and at least one float of tile per thread. Then delete the CML_TODO line.
    //   Hint: the block's shared memory is its tile, launch.tile * sizeof(float) bytes. Try a few shapes, largest
    //   first, and return the first that fits: what decides for 256 threads and a tile of 8 floats per thread on
    //   an H100? What else must shrink when a kernel has many registers?
    CML_TODO("TODO 2: choose a launch that fits kMinBlocksPerSm blocks (labs/09_occupancy/kernel.cu)");
    (void)sm;
    (void)registers;
    return kOneBlockPerSm;
}

void reverse(const float* in, float* out, int n, ReverseLaunch launch)
{
    if (n == 0) return;  // a launch of 0 blocks is an error
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
    // TODO 3: ask the runtime how many blocks of this launch fit on this GPU, and while fewer than kMinBlocksPerSm
    //   do (and the tile still has a float per thread), halve the tile and ask again. Then delete the CML_TODO line.
    //   Hint: cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, reverse_kernel, threads, dynamic shared
    //   bytes), checked with CML_CHECK; call allow_shared for those bytes first, or above 48 KB the answer is 0.
    CML_TODO("TODO 3: confirm the launch with cudaOccupancyMaxActiveBlocksPerMultiprocessor (labs/09_occupancy/kernel.cu)");
    return launch;
}

// ---- Stretch: one block per SM, and still fast ----

// TODO 4 (stretch, optional): write reverse_in_flight, the same reversal with kOneBlockPerSm's launch (one block
//   per SM on an H100), each thread issuing two float4 loads before it uses either. Then set the flag to true.
//   Hint: the tile is a multiple of 4 floats, so each block's part of `in` starts 16-byte aligned; copy the
//   float4s into the tile, the last few floats one by one. The handout says why it pays ("Occupancy is one way to hide latency").
const bool reverse_in_flight_attempted = false;

void reverse_in_flight(const float* in, float* out, int n)
{
    (void)in;
    (void)out;
    (void)n;
}
