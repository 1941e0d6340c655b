// The profiler's counters, per source line, from the kernel's own accesses. A request is one execution of a
// memory instruction by a warp: the k-th execution of an instruction by each lane of a warp belongs to the
// warp's k-th request of it. Per request: global memory, the 32-byte sectors it touches; shared memory, the
// wavefronts its bank conflicts cost; __constant__, the distinct addresses the constant cache serves in turn.
// Atomics are requests of their own, apart from the loads and stores, as Nsight Compute counts them.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "memory.hpp"
#include "worst_request.hpp"

namespace cml_emu {

struct LineCounters {
    Space space = Space::other;
    bool store = false;
    bool atomic = false;                // an atomic function's request (store is then true as well)
    unsigned size = 0;                  // bytes per lane
    unsigned long long requests = 0;
    unsigned long long units = 0;       // sectors (global), wavefronts (shared), distinct addresses (constant)
    unsigned long long ideal = 0;       // wavefronts without conflicts (shared)
    unsigned long long serialised = 0;  // requests needing more than one unit where one would do
    unsigned max_units = 0;             // the most in one request (sectors, ways of a conflict, addresses)
    WorstRequest worst;                 // the request that cost the most, its lanes' addresses (worst_request.hpp)
    void add(const LineCounters& other);
};

using LineKey = std::pair<int, const void*>;  // (launch group: a kernel in an NVTX range, instruction)
using LineTotals = std::map<LineKey, LineCounters>;

// Per worker: the requests of the block it runs, turned into counters when the block ends.
class BlockProfile {
public:
    void begin_block(int warps, unsigned long long block = 0, const unsigned* block_index = nullptr);
    void record(const void* pc, int warp, int lane, Space space, bool store, bool atomic, std::uintptr_t address,
                unsigned size);
    void end_block(int group, LineTotals& totals);

private:
    struct Instruction {
        Space space = Space::other;
        bool store = false;
        bool atomic = false;
        unsigned size = 0;
        std::uint32_t executed[32] = {};    // per lane
        std::vector<std::uintptr_t> slots;  // [request * 32 + lane]: the address, 0 when the lane had none
    };
    std::vector<std::unordered_map<const void*, Instruction>> warps_;
    unsigned long long block_ = 0;  // the block's linear index, and its blockIdx: where a worst request was
    unsigned block_index_[3] = {};
};

// The shape of a group's launches, summed over them as Nsight Compute's launch__* metrics are summed over the
// launches a profile holds: for one launch, that launch's block, grid and dynamic shared memory.
struct LaunchShapes {
    unsigned long long block_size = 0;      // threads per block
    unsigned long long grid_size = 0;       // blocks
    unsigned long long dynamic_shared = 0;  // bytes per block, the launch's third parameter
    void add(const LaunchShapes& other)
    {
        block_size += other.block_size;
        grid_size += other.grid_size;
        dynamic_shared += other.dynamic_shared;
    }
};

// Counts a launch of `kernel`, of the given shape; returns its group: the kernel within the NVTX range open at the launch
// (the benchmark opens one per role, "baseline" or "student", as ncu --nvtx-include selects them).
int note_launch(const void* kernel, const LaunchShapes& shape);
void merge_profile(LineTotals& worker_totals);  // at the end of a launch
void write_profile();                           // at exit: the table on stderr, the JSON to the file asked for

}  // namespace cml_emu
