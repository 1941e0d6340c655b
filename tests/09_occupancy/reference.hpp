// CPU reference for Lab 9: the reversal, and the occupancy calculator's rules (cuda_occupancy.h) as the grader
// applies them (grader/steps/occupancy.py, tested against that header), with the limits of two GPUs.
#pragma once

#include <algorithm>
#include <vector>

#include "occupancy.hpp"

inline std::vector<double> reverse_reference(const std::vector<float>& in)
{
    return std::vector<double>(in.rbegin(), in.rend());
}

// As grader/gpu_limits.toml gives them (grader/tests/test_occupancy.py checks that the two agree).
constexpr SmLimits kH100 = {64, 32, 65536, 256, 4, 233472, 232448, 1024, 128};
constexpr SmLimits kT4 = {32, 16, 65536, 256, 4, 65536, 65536, 0, 256};

// The blocks each limit allows, and the least of them; 0 where one block does not fit.
inline int reference_resident_blocks(const BlockUse& use, const SmLimits& sm)
{
    constexpr int kWarp = 32;
    if (use.threads < 1 || use.threads > 1024 || use.registers > 255 || use.shared > sm.shared_per_block) return 0;
    const int warps = (use.threads + kWarp - 1) / kWarp;
    const int unit = sm.register_unit;
    const int register_per_warp = (use.registers * kWarp + unit - 1) / unit * unit;
    const int by_warps = sm.max_warps / warps;
    const int by_registers =
        register_per_warp ? sm.registers / sm.sub_partitions / register_per_warp * sm.sub_partitions / warps : by_warps;
    const std::size_t taken = use.shared + sm.reserved_shared_per_block;
    const std::size_t shared_per_block = (taken + sm.shared_unit - 1) / sm.shared_unit * sm.shared_unit;
    const int by_shared = shared_per_block ? int(sm.shared / shared_per_block) : sm.max_blocks;
    return std::min({sm.max_blocks, by_warps, by_registers, by_shared});
}
