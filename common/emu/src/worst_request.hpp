// The worst request of an instruction: the one warp's execution of it that cost the most (sectors of global
// memory, wavefronts beyond the conflict-free ones of shared memory, distinct addresses of __constant__), with
// its 32 lanes' addresses, so that a report can draw what the warp did rather than only count it. Kept per
// instruction beside its counters, and per source line in the profile's JSON ("worst"): the grader draws it
// beside the reference solution's (grader/steps/access.py). Ties go to the first request of the launch (lowest
// block, then warp, then execution), so that a run's picture does not depend on which worker ran which block.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "memory.hpp"

namespace cml_emu {

struct LineCounters;

struct WorstRequest {
    unsigned long long cost = 0;  // what makes a request worse than another (none kept: `lanes` is empty)
    unsigned long long block = 0;  // the block's linear index in its grid
    unsigned block_index[3] = {};  // its blockIdx
    unsigned warp = 0;             // the warp within its block
    unsigned long long execution = 0;  // which execution of the instruction by that warp, from 0
    Space space = Space::other;
    unsigned size = 0;             // bytes per lane
    unsigned long long units = 0;  // sectors, wavefronts or addresses of this one request
    unsigned long long ideal = 0;  // its wavefronts without a conflict (shared memory)
    unsigned max_units = 0;        // the most ways of a bank in it (shared memory)
    std::vector<std::uintptr_t> lanes;  // the 32 lanes' addresses, 0 for a lane that made no access

    bool found() const { return !lanes.empty(); }
    // Keeps the request `counted` (count_request's counters of it) if it is worse than the one kept, or as bad
    // and earlier.
    void offer(const LineCounters& counted, const std::uintptr_t* addresses, unsigned long long block_linear,
               const unsigned* block_xyz, unsigned warp_in_block, unsigned long long execution_number);
    // The worse of the two, for instructions counted on different workers, or several of one line.
    void keep_worse(const WorstRequest& other);
};

// The request as the profile's JSON gives it (a line's "worst"): each lane's address as an offset from the
// 128-byte boundary at or below the lowest of them, which keeps every lane's 32-byte sector and 4-byte bank,
// and no address of the machine's own (null for a lane that made no access).
std::string worst_request_json(const WorstRequest& worst);

}  // namespace cml_emu
