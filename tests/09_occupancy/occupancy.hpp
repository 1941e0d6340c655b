// Lab 9's interface: what labs/09_occupancy/kernel.cu must define. The grader always builds its own copy.
#pragma once

#include <cstddef>

#include "cml/lab.hpp"

// ---- Part A: how many blocks fit on one SM ----

// What decides how many blocks of a kernel one SM holds at once; cudaDeviceProp gives each of a GPU's.
struct SmLimits {
    int max_warps = 0;                           // maxThreadsPerMultiProcessor / 32
    int max_blocks = 0;                          // maxBlocksPerMultiProcessor
    int registers = 0;                           // regsPerMultiprocessor
    int register_unit = 256;                     // registers are given to a warp in multiples of this
    int sub_partitions = 4;                      // the SM's quarters: each holds whole warps, and 1/4 of the registers
    std::size_t shared = 0;                      // sharedMemPerMultiprocessor, bytes
    std::size_t shared_per_block = 0;            // sharedMemPerBlockOptin: the most one block may have
    std::size_t reserved_shared_per_block = 0;   // reservedSharedMemPerBlock: the system's part of each block's
    std::size_t shared_unit = 128;               // shared memory is given to a block in multiples of this
};

// What one block of a launch uses.
struct BlockUse {
    int threads = 0;          // 1 to 1024
    int registers = 0;        // per thread, as the compiler reports them (0 to 255)
    std::size_t shared = 0;   // bytes of shared memory, static and dynamic
};

// How many blocks of `use` one SM of `sm` holds at once: the least that its warps, its registers, its shared
// memory and its limit of blocks each allow; 0 where a single block does not fit.
int resident_blocks(const BlockUse& use, const SmLimits& sm);

// ---- Part B: a launch that keeps the SM full ----

// A launch of reverse(): `threads` per block, and each block's tile of `tile` floats, which it holds in dynamic
// shared memory (tile * sizeof(float) bytes, the launch's third parameter).
struct ReverseLaunch {
    int threads = 0;
    int tile = 0;
};

// How many blocks per SM the chosen launch must fit.
constexpr int kMinBlocksPerSm = 4;

// A launch with 32 to 1024 threads per block and a tile of at least one float per thread, for which
// kMinBlocksPerSm or more blocks fit on an SM of `sm` when the kernel uses `registers` registers per thread.
ReverseLaunch choose_launch(const SmLimits& sm, int registers);

// out[i] = in[n - 1 - i] for 0 <= i < n, with `launch`: ceil(n / launch.tile) blocks of launch.threads threads,
// block b staging in[b * tile, (b + 1) * tile) in its launch.tile floats of dynamic shared memory. Device
// pointers from cudaMalloc, n >= 0; nothing outside [0, n) may be read or written.
void reverse(const float* in, float* out, int n, ReverseLaunch launch);

// The launch reverse() gets on the GPU in use: choose_launch with this GPU's limits and the registers the
// compiler gave the kernel, confirmed by cudaOccupancyMaxActiveBlocksPerMultiprocessor.
ReverseLaunch launch_for_this_gpu();

// ---- Stretch: one block per SM, and still fast ----

// The launch that leaves one block per SM on an H100: 115 KB of tile in each block.
constexpr ReverseLaunch kOneBlockPerSm = {256, 115 * 1024 / 4};

// TODO 4 (stretch): the same result with kOneBlockPerSm's launch, each thread keeping more bytes in flight.
void reverse_in_flight(const float* in, float* out, int n);

// kernel.cu sets this to true once reverse_in_flight is written; until then its checks are skipped.
extern const bool reverse_in_flight_attempted;
