// An OS thread that runs blocks, one at a time, with what it keeps from block to block: the threads'
// stacks, the shared memory, and what the checks and counters gathered in the current launch.
#pragma once

#include <memory>
#include <vector>

#include "block.hpp"
#include "findings.hpp"
#include "profile.hpp"
#include "racecheck.hpp"

namespace cml_emu {

class StackPool {
public:
    explicit StackPool(std::size_t bytes) : bytes_(bytes) {}
    ~StackPool();
    char* stack(std::size_t index);  // the top of stack `index`, with a guard page below its bottom
    std::size_t bytes() const { return bytes_; }

private:
    std::size_t bytes_;
    std::vector<char*> stacks_;
};

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

}  // namespace cml_emu
