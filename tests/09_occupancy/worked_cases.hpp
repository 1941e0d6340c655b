// Worked cases of each occupancy rule, at the boundary of its granularity: for every rule, a calculator that
// leaves it out (or rounds to another unit) gets at least one of its cases wrong, whatever the run's seed, and a
// calculator that gives 0 for everything gets all of them wrong. Each count is the toolkit's own calculator's
// (cuda_occupancy.h); grader/tests/steps/test_occupancy.py reads this file and holds both to it, rule by rule.
// Every figure is a literal, {{threads, registers, shared bytes}, blocks per SM}, so that it can be read there.
#pragma once

#include <vector>

#include "occupancy.hpp"

struct WorkedCase {
    BlockUse use;
    int blocks;
};

// On an H100 (64 warps, 32 blocks per SM): a partial warp takes a whole one (257 threads are 9 warps, not 8),
// and 32 blocks is the most, however small (32 threads would allow 64 by warps).
const std::vector<WorkedCase> kWarpCases = {
    {{256, 16, 0}, 8},
    {{1024, 16, 0}, 2},
    {{257, 16, 0}, 7},
    {{32, 16, 0}, 32},
};

// On an H100: a warp's registers are rounded up to 256 (41 per thread: 1312 to 1536), and each quarter of the
// SM holds whole warps of its 16,384 (32 threads of 80 registers: 6 warps a quarter, 24 in all, not 25).
const std::vector<WorkedCase> kRegisterCases = {
    {{256, 64, 0}, 4}, {{256, 65, 0}, 3}, {{256, 255, 0}, 1}, {{32, 80, 0}, 24}, {{64, 41, 0}, 20},
};

// On an H100 (228 KB per SM, 1 KB reserved per block, units of 128 bytes): 27.5 KB and the reserve are 228
// units exactly, 8 blocks, and a byte more takes another unit, 7; 32,300 bytes and the reserve round up to
// 33,408, 6 blocks (7 unrounded, 7 without the reserve); 20,000 bytes and the reserve round to 21,120 by
// units of 128, 11 blocks (10 by units of 256).
const std::vector<WorkedCase> kSharedCases = {
    {{256, 16, 117760}, 1}, {{256, 16, 28160}, 8}, {{256, 16, 28161}, 7}, {{64, 16, 32300}, 6}, {{64, 16, 20000}, 11},
};

// On an H100, each limit at its edge: 1024 threads of 64 registers fit once, of 65 not at all; 227 KB fit, a
// byte more does not; 1024 threads fit, 1025 do not.
const std::vector<WorkedCase> kFitCases = {
    {{1024, 64, 0}, 1},     {{1024, 65, 0}, 0}, {{256, 16, 232448}, 1},
    {{256, 16, 232449}, 0}, {{1024, 16, 0}, 2}, {{1025, 16, 0}, 0},
};

// On a T4 (32 warps, 16 blocks, 64 KB per SM, no reserve, units of 256 bytes): 16 KB fit 4 times and a byte
// more 3; 10,800 bytes round to 11,008 by units of 256, 5 blocks (6 by units of 128, or unrounded); 65 threads
// are 3 warps, 10 blocks (16 as 2 warps).
const std::vector<WorkedCase> kT4Cases = {
    {{128, 16, 16384}, 4}, {{128, 16, 16385}, 3}, {{1024, 16, 0}, 1}, {{64, 16, 10800}, 5}, {{65, 16, 0}, 10},
};
