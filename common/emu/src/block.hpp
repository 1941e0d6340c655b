// One launch, one block of it, and the threads of that block as the scheduler keeps them.
#pragma once

#include <boost/context/fiber.hpp>

#include <cstdint>
#include <vector>

#include "cml_emu/device.hpp"
#include "cml_emu/launch.hpp"
#include "memory.hpp"

namespace cml_emu {

constexpr int kWarpSize = 32;

struct Launch {
    const void* kernel = nullptr;
    LaunchConfig config{};
    ThreadBody body = nullptr;
    const void* closure = nullptr;
    unsigned threads_per_block = 0;
    unsigned long long blocks = 0;
    std::size_t closure_bytes = 0;
    GlobalMemory global;                  // what global memory the kernel may touch
    bool cooperative = false;             // cudaLaunchCooperativeKernel: every block at once, grid.sync() allowed
    int profile_group = 0;                // profile.hpp
};

// Where a thread waits: __syncthreads(), a warp-level call, a barrier of part of the block (a named barrier with
// a count, a tile of more than 32 threads), a grid-wide barrier.
enum class Status : std::uint8_t { ready, at_barrier, at_warp, at_partial, at_grid, done };

struct ThreadState {
    uint3 index{};
    int rank = 0;  // in the block, x fastest
    int warp = 0;
    int lane = 0;
    Status status = Status::ready;
    boost::context::fiber fiber;      // the thread, while it is suspended
    boost::context::fiber scheduler;  // the block's scheduler, while the thread runs
    Region stack;                     // its local memory
    // The warp-level call or barrier the thread waits in.
    WarpOp op = WarpOp::sync;
    unsigned mask = 0;
    std::uint64_t value = 0;
    std::uint64_t result = 0;
    int argument = 0;
    int width = kWarpSize;
    int predicate = 0;
    std::uint64_t key = 0;  // of the barrier of part of the block it waits at
    std::vector<AsyncCopy> copies;  // cooperative_groups::memcpy_async's, not yet waited for
    // racecheck: what this thread knows of each lane of its warp (a vector clock, advanced by __syncwarp).
    std::uint32_t clock[kWarpSize] = {};
};

struct WarpState {
    unsigned exists = 0;   // lanes the block has
    unsigned done = 0;     // lanes that returned
    unsigned arrived = 0;  // lanes waiting in a warp-level call
};

// A barrier of part of the block: the threads that called with one key, until `expected` of them have.
struct PartialBarrier {
    std::uint64_t key = 0;
    int expected = 0;
    int arrived = 0;
};

struct Block {
    const Launch* launch = nullptr;
    uint3 index{};
    std::vector<ThreadState> threads;
    std::vector<WarpState> warps;
    int done = 0;
    int at_barrier = 0;
    std::uint32_t epoch = 0;  // barriers passed: accesses in different epochs are ordered
    int barrier_result = 0;   // of __syncthreads_count, _and, _or
    int barrier_all = 0;
    int barrier_any = 0;
    int at_grid = 0;          // threads waiting at a grid-wide barrier
    std::vector<PartialBarrier> partial;
    // Why the block stopped early: a thread made an access outside every allocation with no memcheck to
    // report it (cudaErrorIllegalAddress), or trapped (cudaErrorLaunchFailure).
    cudaError_t fault = cudaSuccess;

    // Threads ready to run, in the order they run: each runs until it waits or returns.
    void push(int rank)
    {
        queue_[tail_++ % queue_.size()] = rank;
    }
    bool pop(int& rank)
    {
        if (head_ == tail_) return false;
        rank = queue_[head_++ % queue_.size()];
        return true;
    }
    void reset_queue(std::size_t threads)
    {
        queue_.assign(threads + 1, 0);
        head_ = tail_ = 0;
    }

private:
    std::vector<int> queue_;
    std::size_t head_ = 0, tail_ = 0;
};

}  // namespace cml_emu
