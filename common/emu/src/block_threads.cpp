// The threads of one block, as Boost.Context fibers on the worker that runs the block. A thread runs until it
// waits (a barrier, a warp-level call) or returns, then the next ready thread runs, lowest rank first: lane 0
// of a warp may run far ahead of lane 1, as independent thread scheduling allows, so code that assumes
// lock-step warps without __syncwarp() reads stale values and racecheck sees it.
#include <algorithm>
#include <iterator>
#include <string>

#include "options.hpp"
#include "runtime_state.hpp"
#include "worker.hpp"

__thread uint3 threadIdx;
__thread uint3 blockIdx;
__thread dim3 blockDim;
__thread dim3 gridDim;

namespace cml_emu {

__thread ThreadState* t_thread = nullptr;
__thread FastRegions t_fast;

namespace {

using boost::context::fiber;

void suspend(ThreadState& thread) { thread.scheduler = std::move(thread.scheduler).resume(); }

void release_barrier(Block& block)
{
    int count = 0, all = 1, any = 0;
    for (const ThreadState& t : block.threads) {
        if (t.status != Status::at_barrier) continue;
        count += t.predicate != 0;
        all &= t.predicate != 0;
        any |= t.predicate != 0;
    }
    block.barrier_result = count;
    block.barrier_all = all;
    block.barrier_any = any;
    ++block.epoch;
    block.at_barrier = 0;
    for (ThreadState& t : block.threads) {
        if (t.status != Status::at_barrier) continue;
        t.status = Status::ready;
        block.push(t.rank);
    }
}

int source_lane(const ThreadState& t)
{
    const int width = t.width > 0 && t.width <= kWarpSize ? t.width : kWarpSize;
    const int segment = t.lane & ~(width - 1);
    int source = t.lane;
    switch (t.op) {
    case WarpOp::shfl: source = segment + (t.argument & (width - 1)); break;
    case WarpOp::shfl_up: source = t.lane - t.argument >= segment ? t.lane - t.argument : t.lane; break;
    case WarpOp::shfl_down: source = t.lane + t.argument < segment + width ? t.lane + t.argument : t.lane; break;
    case WarpOp::shfl_xor: {
        const int x = t.lane ^ t.argument;
        source = (x & ~(width - 1)) == segment ? x : t.lane;
        break;
    }
    default: break;
    }
    return source;
}

// Completes the calls of `group`, lanes of one warp that called with one mask: each gets its result, a
// __syncwarp() among them joins what they know (racecheck), and they are ready to run again.
void complete_warp_call(Block& block, int warp, unsigned group)
{
    WarpState& w = block.warps[std::size_t(warp)];
    ThreadState* lanes = &block.threads[std::size_t(warp * kWarpSize)];
    const unsigned arrived = w.arrived;
    bool sync = false;
    for (int lane = 0; lane < kWarpSize; ++lane) {
        if (!(group >> lane & 1u)) continue;
        ThreadState& t = lanes[lane];
        switch (t.op) {
        case WarpOp::sync: sync = true; t.result = 0; break;
        case WarpOp::ballot:
        case WarpOp::any:
        case WarpOp::all: {
            unsigned votes = 0;
            for (int other = 0; other < kWarpSize; ++other)
                if ((arrived & t.mask) >> other & 1u && lanes[other].value) votes |= 1u << other;
            const unsigned voters = arrived & t.mask;
            t.result = t.op == WarpOp::ballot ? votes : t.op == WarpOp::any ? votes != 0 : votes == voters;
            break;
        }
        default: {
            const int source = source_lane(t);
            t.result = arrived >> source & 1u ? lanes[source].value : t.value;
        }
        }
    }
    if (sync && options().racecheck) join_clocks(block, warp, group);
    w.arrived &= ~group;
    for (int lane = 0; lane < kWarpSize; ++lane) {
        if (!(group >> lane & 1u)) continue;
        lanes[lane].status = Status::ready;
        block.push(lanes[lane].rank);
    }
}

// Completes each warp-level call, among those of the lanes in `candidates`, that every lane it names has
// reached (or returned from the kernel). The lanes that called with one mask complete together, apart from
// those of another mask: two tiles of 16 of one warp sync each on its own, as on a GPU.
void try_complete_warp(Block& block, int warp, unsigned candidates)
{
    WarpState& w = block.warps[std::size_t(warp)];
    const ThreadState* lanes = &block.threads[std::size_t(warp * kWarpSize)];
    const unsigned live = w.exists & ~w.done;
    for (unsigned pending = candidates & w.arrived; pending;) {
        const unsigned mask = lanes[__builtin_ctz(pending)].mask;
        unsigned group = 0;
        for (unsigned rest = w.arrived; rest; rest &= rest - 1) {
            const int lane = __builtin_ctz(rest);
            if (lanes[lane].mask == mask) group |= 1u << lane;
        }
        pending &= ~group;
        const unsigned needed = (mask | group) & live;
        if ((w.arrived & needed) == needed) complete_warp_call(block, warp, group);
    }
}

void thread_returned(Block& block, ThreadState& thread)
{
    thread.status = Status::done;
    ++block.done;
    WarpState& w = block.warps[std::size_t(thread.warp)];
    w.done |= 1u << thread.lane;
    try_complete_warp(block, thread.warp, w.arrived);  // any call may have waited for this lane
    if (block.at_barrier > 0 && block.at_barrier + block.done == int(block.threads.size())) release_barrier(block);
}

// Where the built-in variables (threadIdx...) of the calling OS thread are: kernels read them there.
Region builtin_variables()
{
    const std::uintptr_t starts[] = {std::uintptr_t(&threadIdx), std::uintptr_t(&blockIdx), std::uintptr_t(&blockDim),
                                     std::uintptr_t(&gridDim)};
    const std::uintptr_t ends[] = {starts[0] + sizeof threadIdx, starts[1] + sizeof blockIdx, starts[2] + sizeof blockDim,
                                   starts[3] + sizeof gridDim};
    return Region{*std::min_element(std::begin(starts), std::end(starts)),
                  *std::max_element(std::begin(ends), std::end(ends)), Space::other};
}

std::string describe_stuck(const Block& block)
{
    int at_barrier = 0, at_warp = 0;
    for (const ThreadState& t : block.threads) {
        at_barrier += t.status == Status::at_barrier;
        at_warp += t.status == Status::at_warp;
    }
    return std::to_string(at_barrier) + " threads wait at __syncthreads() and " + std::to_string(at_warp) +
           " in a warp-level call (__syncwarp, shuffle, vote) for lanes that never arrive; " +
           std::to_string(block.done) + " of " + std::to_string(block.threads.size()) + " returned";
}

}  // namespace

cudaError_t run_block(Worker& worker, const Launch& launch, unsigned long long linear)
{
    const Options& o = options();
    const dim3 grid = launch.config.grid, shape = launch.config.block;
    Block& block = worker.block;
    block.launch = &launch;
    block.index = uint3{unsigned(linear % grid.x), unsigned(linear / grid.x % grid.y),
                        unsigned(linear / (std::uint64_t(grid.x) * grid.y))};
    blockIdx = block.index;
    blockDim = shape;
    gridDim = grid;
    worker.shared.begin_block(launch.config.shared_bytes);
    if (worker.shadow) worker.shadow->begin_block();
    const int n = int(launch.threads_per_block);
    const int warps = (n + kWarpSize - 1) / kWarpSize;
    if (!o.profile.empty()) worker.profile.begin_block(warps);

    block.threads.resize(std::size_t(n));
    block.warps.assign(std::size_t(warps), WarpState{});
    block.done = block.at_barrier = 0;
    block.epoch = 0;
    block.faulted = false;
    block.reset_queue(std::size_t(n));
    for (int rank = 0; rank < n; ++rank) {
        ThreadState& t = block.threads[std::size_t(rank)];
        t.index = uint3{unsigned(rank % int(shape.x)), unsigned(rank / int(shape.x) % int(shape.y)),
                        unsigned(rank / int(shape.x * shape.y))};
        t.rank = rank;
        t.warp = rank / kWarpSize;
        t.lane = rank % kWarpSize;
        t.status = Status::ready;
        std::fill(std::begin(t.clock), std::end(t.clock), 0u);
        block.warps[std::size_t(t.warp)].exists |= 1u << t.lane;
        char* const stack = worker.stacks.stack(std::size_t(rank));
        t.stack = Region{std::uintptr_t(stack) - worker.stacks.bytes(), std::uintptr_t(stack), Space::other};
        t.fiber = fiber(std::allocator_arg, PooledStack{stack, worker.stacks.bytes()},
                        [&block, &t](fiber&& scheduler) {
                            t.scheduler = std::move(scheduler);
                            block.launch->body(block.launch->closure);
                            thread_returned(block, t);
                            return std::move(t.scheduler);
                        });
        block.push(rank);
    }

    t_fast = FastRegions{};  // what the last block touched may be gone
    worker.builtins = builtin_variables();
    const auto arguments = std::uintptr_t(launch.closure);
    worker.arguments = Region{arguments, arguments + launch.closure_bytes, Space::other};
    worker.found[0] = worker.found[1] = Region{};
    cudaError_t result = cudaSuccess;
    for (int rank; block.done < n;) {
        if (!block.pop(rank)) {
            report_barrier_error(launch.kernel, block.index, describe_stuck(block));
            result = cudaErrorLaunchFailure;
            break;
        }
        ThreadState& t = block.threads[std::size_t(rank)];
        t_thread = &t;
        threadIdx = t.index;
        if (!o.watching()) t_fast.stack = t.stack;
        t.fiber = std::move(t.fiber).resume();
        if (block.faulted) {
            result = cudaErrorIllegalAddress;
            break;
        }
    }
    // Threads that can never go on (or that faulted) are unwound, their fibers destroyed, as a GPU would abort
    // the kernel.
    for (ThreadState& t : block.threads) {
        t_thread = &t;
        t.fiber = fiber();
    }
    t_thread = nullptr;
    t_fast = FastRegions{};
    if (!o.profile.empty()) worker.profile.end_block(launch.profile_group, worker.counters);
    return result;
}

void stop_at_fault(bool launch_fails)
{
    ThreadState& thread = *t_thread;
    Block& block = t_worker->block;
    if (launch_fails) {
        block.faulted = true;
    } else {
        thread_returned(block, thread);  // a barrier or warp-level call no longer waits for it
    }
    suspend(thread);  // for good: the fiber is unwound when the block ends
    fatal("a thread went on after its fault");
}

// ---- what kernels call ----

int block_barrier(int predicate, int reduction)
{
    ThreadState* thread = t_thread;
    if (!thread) fatal("__syncthreads() called outside a kernel");
    Block& block = t_worker->block;
    thread->status = Status::at_barrier;
    thread->predicate = predicate;
    ++block.at_barrier;
    if (block.at_barrier + block.done == int(block.threads.size())) release_barrier(block);
    suspend(*thread);
    return reduction == 1 ? block.barrier_result : reduction == 2 ? block.barrier_all : reduction == 3 ? block.barrier_any : 0;
}

std::uint64_t warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int argument, int width)
{
    ThreadState* thread = t_thread;
    if (!thread) fatal("a warp-level function called outside a kernel");
    Block& block = t_worker->block;
    thread->op = op;
    thread->mask = mask;
    thread->value = value;
    thread->argument = argument;
    thread->width = width;
    thread->status = Status::at_warp;
    WarpState& w = block.warps[std::size_t(thread->warp)];
    w.arrived |= 1u << thread->lane;
    const unsigned needed = (mask | 1u << thread->lane) & w.exists & ~w.done;
    if ((w.arrived & needed) == needed) try_complete_warp(block, thread->warp, 1u << thread->lane);
    suspend(*thread);
    return thread->result;
}

void unsupported(const char* what)
{
    fatal((std::string("not emulated: ") + what).c_str());
}

}  // namespace cml_emu
