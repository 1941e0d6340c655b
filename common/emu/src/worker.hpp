// An OS thread that runs blocks, one at a time (or, for a cooperative launch, several in turns), with what it
// keeps from block to block: the threads' stacks, the shared memory, and what the checks and counters gathered
// in the current launch.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "block.hpp"
#include "fiber_stacks.hpp"
#include "findings.hpp"
#include "profile.hpp"
#include "racecheck.hpp"
#include "shared_memory.hpp"

namespace cml_emu {

// A block on a worker, with what it keeps while it runs: its threads' stacks, its shared memory, and what the
// checks and counters gather per block. A worker has one, reused from block to block; a cooperative launch
// keeps every block of the grid on the workers at once (a grid-wide barrier needs them all), one each.
struct Resident {
    Resident(std::size_t stack_bytes, bool guarded_stacks) : stacks(stack_bytes, guarded_stacks) {}
    Block block;
    StackPool stacks;
    SharedMemory shared;
    std::unique_ptr<SharedShadow> shadow;  // with racecheck or initcheck
    BlockProfile profile;
};

struct Worker {
    explicit Worker(std::size_t stack_bytes) : own(stack_bytes, true), resident(&own) {}
    Resident own;
    Resident* resident;  // the block running now
    std::vector<std::unique_ptr<Resident>> cooperative;  // the blocks of a cooperative launch given to this worker
    LineTotals counters;
    Findings findings;
    // For the access check (instrument.cpp): where this OS thread's built-in variables and the running
    // launch's arguments are, and the last two global regions that a look-up found.
    Region builtins, arguments, found[2];

    Block& block() { return resident->block; }
    SharedMemory& shared() { return resident->shared; }
};

// What the access check (instrument.cpp) settles with no look-up, per OS thread. For the pages the running
// block's accesses fell in last, the bytes of each that it may touch (of global or shared memory, the
// built-in variables, the launch's arguments): one slot per page number modulo kSlots, so the check costs
// the same however many allocations a kernel reads. The last two regions those accesses fell in, for
// accesses that stride over many pages of one (a transpose's). And the stack of the running thread. Empty
// while no block runs, and while a check or the counters are on (they see every access).
struct FastRegions {
    static constexpr int kSlots = 64;
    static constexpr std::uintptr_t kPage = 4096;
    struct Slot {  // the bytes [start, end) of one page; an address of another page is never between them
        std::uintptr_t start = 0, end = 0;
    };
    Slot slots[kSlots];
    Region recent[2];  // newest first
    Region stack;

    bool settle(std::uintptr_t address, std::size_t size) const
    {
        const Slot& slot = slots[address / kPage % kSlots];
        return (address >= slot.start && address + size <= slot.end) || recent[0].holds(address, size) ||
               recent[1].holds(address, size) || stack.holds(address, size);
    }
    // Remembers `region`, and the part of it in the page of `address`.
    void add(const Region& region, std::uintptr_t address)
    {
        const std::uintptr_t first = address / kPage * kPage;
        slots[address / kPage % kSlots] = Slot{std::max(region.start, first), std::min(region.end, first + kPage)};
        recent[1] = recent[0];
        recent[0] = region;
    }
};

extern __thread Worker* t_worker;        // the worker of this OS thread, while it runs a block
extern __thread ThreadState* t_thread;   // the GPU thread running on it, null between threads
extern __thread FastRegions t_fast;

// Makes block `linear` (x fastest) of `launch` the resident's: its threads, ready to run, and its shared memory.
void begin_block(Worker& worker, Resident& resident, const Launch& launch, unsigned long long linear);
// Runs the resident's threads until each has returned, or waits at a grid-wide barrier (`parked`), or none can
// go on. What a GPU would then say of the launch: cudaSuccess, cudaErrorLaunchFailure (its threads wait for
// each other) or cudaErrorIllegalAddress (a thread made an access outside every allocation, with no memcheck to
// report it).
cudaError_t run_resident(Worker& worker, Resident& resident, bool& parked);
// Lets the threads of a parked block past the grid-wide barrier.
void release_grid_barrier(Resident& resident);
// Destroys the resident's threads (those that can never go on are unwound) and counts its block's requests.
void end_block(Worker& worker, Resident& resident);

// The running thread made an access outside everything it may touch; the access is not made. With
// `launch_fails` the block stops there and the launch fails (cudaErrorIllegalAddress); otherwise (memcheck
// reported it) this thread ends as if it returned, and the others go on.
[[noreturn]] void stop_at_fault(bool launch_fails);

}  // namespace cml_emu
