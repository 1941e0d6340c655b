// An OS thread that runs blocks, one at a time, with what it keeps from block to block: the threads'
// stacks, the shared memory, and what the checks and counters gathered in the current launch.
#pragma once

#include <memory>
#include <vector>

#include "block.hpp"
#include "fiber_stacks.hpp"
#include "findings.hpp"
#include "profile.hpp"
#include "racecheck.hpp"
#include "shared_memory.hpp"

namespace cml_emu {

struct Worker {
    explicit Worker(std::size_t stack_bytes) : stacks(stack_bytes) {}
    StackPool stacks;
    SharedMemory shared;
    std::unique_ptr<SharedShadow> shadow;  // with racecheck or initcheck
    BlockProfile profile;
    LineTotals counters;
    Findings findings;
    Block block;
};

extern __thread Worker* t_worker;        // the worker of this OS thread, while it runs a block
extern __thread ThreadState* t_thread;   // the GPU thread running on it, null between threads

// Runs block `linear` (x fastest) of `launch` on `worker`; false when the block could not finish (its
// threads wait for each other).
bool run_block(Worker& worker, const Launch& launch, unsigned long long linear);

}  // namespace cml_emu
