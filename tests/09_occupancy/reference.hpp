// CPU reference for Lab 9: the reversal, and the toolkit's occupancy calculator (cuda_occupancy.h) on the
// limits of two GPUs, the same rules the grader applies (grader/steps/occupancy.py, tested against that header).
#pragma once

#include <cuda_occupancy.h>

#include <algorithm>
#include <cstddef>
#include <vector>

#include "occupancy.hpp"

inline std::vector<double> reverse_reference(const std::vector<float>& in)
{
    return std::vector<double>(in.rbegin(), in.rend());
}

// As grader/gpu_limits.toml gives them (grader/tests/steps/test_occupancy.py checks that the two agree).
constexpr SmLimits kH100 = {64, 32, 65536, 256, 4, 233472, 232448, 1024, 128};
constexpr SmLimits kT4 = {32, 16, 65536, 256, 4, 65536, 65536, 0, 256};

// Compute capabilities of those two, which the toolkit's calculator needs to know their allocation rules by.
struct Capability {
    int major;
    int minor;
};
constexpr Capability kH100Capability = {9, 0};
constexpr Capability kT4Capability = {7, 5};

// The blocks of `use` that fit on an SM of `sm`, by the toolkit's own occupancy calculator (cuda_occupancy.h,
// host code, no GPU needed): the oracle of TODO 1, which is not the answer's arithmetic written out. 0 where one
// block does not fit, as the calculator's refusal of a block it cannot place.
inline int calculator_resident_blocks(const BlockUse& use, const SmLimits& sm, Capability capability)
{
    cudaOccDeviceProp gpu;
    gpu.computeMajor = capability.major;
    gpu.computeMinor = capability.minor;
    gpu.maxThreadsPerBlock = 1024;
    gpu.maxThreadsPerMultiprocessor = sm.max_warps * 32;
    gpu.regsPerBlock = sm.registers;
    gpu.regsPerMultiprocessor = sm.registers;
    gpu.warpSize = 32;
    gpu.sharedMemPerBlock = std::min<std::size_t>(48 * 1024, sm.shared_per_block);
    gpu.sharedMemPerMultiprocessor = sm.shared;
    gpu.sharedMemPerBlockOptin = sm.shared_per_block;
    gpu.reservedSharedMemPerBlock = sm.reserved_shared_per_block;
    gpu.numSms = 1;
    cudaOccFuncAttributes kernel;
    kernel.maxThreadsPerBlock = 1024;
    kernel.numRegs = use.registers;
    kernel.sharedSizeBytes = 0;
    kernel.partitionedGCConfig = PARTITIONED_GC_OFF;
    kernel.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;
    kernel.maxDynamicSharedSizeBytes = sm.shared_per_block;
    kernel.numBlockBarriers = 1;
    kernel.virtualResourceCount = 0;
    cudaOccDeviceState state;  // the default carve-out: the most shared memory the SM has
    cudaOccResult result;
    const cudaOccError error =
        cudaOccMaxActiveBlocksPerMultiprocessor(&result, &gpu, &kernel, &state, use.threads, use.shared);
    return error == CUDA_OCC_SUCCESS ? result.activeBlocksPerMultiprocessor : 0;
}
