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

// Lets the threads waiting at the barrier of part of the block `key` go on: each gets the value that the
// thread it named gave (a tile's shuffle), or its own, and how many of them gave a true predicate.
void release_partial(Block& block, std::uint64_t key)
{
    int count = 0;
    for (const ThreadState& t : block.threads)
        if (t.status == Status::at_partial && t.key == key) count += t.predicate != 0;
    for (ThreadState& t : block.threads) {
        if (t.status != Status::at_partial || t.key != key) continue;
        const bool named = t.argument >= 0 && t.argument < int(block.threads.size());
        t.result = named ? block.threads[std::size_t(t.argument)].value : t.value;
        t.predicate = count;
    }
    for (ThreadState& t : block.threads) {
        if (t.status != Status::at_partial || t.key != key) continue;
        t.status = Status::ready;
        block.push(t.rank);
    }
    // Accesses on either side are ordered for racecheck, for every thread of the block: a barrier of part of it
    // hides a race between threads that it does not hold (README: Limits).
    ++block.epoch;
    block.partial.erase(std::remove_if(block.partial.begin(), block.partial.end(),
                                       [key](const PartialBarrier& b) { return b.key == key; }),
                        block.partial.end());
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

// __reduce_*_sync over `voters`, on the lanes' 32-bit values (signed for min and max, unsigned for umin, umax).
std::uint64_t reduce_lanes(WarpOp op, const ThreadState* lanes, unsigned voters)
{
    std::uint32_t out = 0;
    bool first = true;
    for (int lane = 0; lane < kWarpSize; ++lane) {
        if (!(voters >> lane & 1u)) continue;
        const auto v = std::uint32_t(lanes[lane].value);
        const auto s = std::int32_t(v), o = std::int32_t(out);
        switch (op) {
        case WarpOp::reduce_add: out += v; break;
        case WarpOp::reduce_min: out = first || s < o ? v : out; break;
        case WarpOp::reduce_max: out = first || s > o ? v : out; break;
        case WarpOp::reduce_umin: out = first || v < out ? v : out; break;
        case WarpOp::reduce_umax: out = first || v > out ? v : out; break;
        case WarpOp::reduce_and: out = first ? v : out & v; break;
        case WarpOp::reduce_or: out |= v; break;
        default: out ^= v; break;
        }
        first = false;
    }
    return out;
}

// Completes the calls of `group`, lanes of one warp that called with one mask: each gets its result, a
// __syncwarp() among them joins what they know (racecheck), and they are ready to run again.
// The lanes of a warp that wait in __activemask(): no other call counts them as arrived.
unsigned in_activemask(const Block& block, int warp)
{
    const WarpState& w = block.warps[std::size_t(warp)];
    const ThreadState* lanes = &block.threads[std::size_t(warp * kWarpSize)];
    unsigned active = 0;
    for (unsigned rest = w.arrived; rest; rest &= rest - 1)
        if (lanes[__builtin_ctz(rest)].op == WarpOp::active) active |= 1u << __builtin_ctz(rest);
    return active;
}

void complete_warp_call(Block& block, int warp, unsigned group)
{
    WarpState& w = block.warps[std::size_t(warp)];
    ThreadState* lanes = &block.threads[std::size_t(warp * kWarpSize)];
    const unsigned arrived = w.arrived & ~in_activemask(block, warp);
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
        case WarpOp::match_any:
        case WarpOp::match_all: {
            unsigned same = 0;
            for (int other = 0; other < kWarpSize; ++other)
                if ((arrived & t.mask) >> other & 1u && lanes[other].value == t.value) same |= 1u << other;
            t.result = t.op == WarpOp::match_any ? same : same == (arrived & t.mask) ? same : 0u;
            break;
        }
        case WarpOp::reduce_add:
        case WarpOp::reduce_min:
        case WarpOp::reduce_max:
        case WarpOp::reduce_umin:
        case WarpOp::reduce_umax:
        case WarpOp::reduce_and:
        case WarpOp::reduce_or:
        case WarpOp::reduce_xor: t.result = reduce_lanes(t.op, lanes, arrived & t.mask); break;
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
    const unsigned active = in_activemask(block, warp);  // release_active_lanes completes theirs
    const unsigned arrived = w.arrived & ~active;
    for (unsigned pending = candidates & arrived; pending;) {
        const unsigned mask = lanes[__builtin_ctz(pending)].mask;
        unsigned group = 0;
        for (unsigned rest = arrived; rest; rest &= rest - 1) {
            const int lane = __builtin_ctz(rest);
            if (lanes[lane].mask == mask) group |= 1u << lane;
        }
        pending &= ~group;
        const unsigned needed = (mask | group) & live;
        if ((arrived & needed) == needed) complete_warp_call(block, warp, group);
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

// The lanes of each warp that wait in __activemask(), once no thread of the block can run: those of one call
// site are the lanes active there together, as a GPU's converged lanes are; each gets their mask. False when
// there were none.
// `settled_only`: only in warps none of whose lanes can run on yet (a thread that yields, polling, is no reason
// to split lanes that are still on their way to the call).
bool release_active_lanes(Block& block, bool settled_only = false)
{
    bool released = false;
    for (std::size_t warp = 0; warp < block.warps.size(); ++warp) {
        WarpState& w = block.warps[warp];
        ThreadState* lanes = &block.threads[warp * kWarpSize];
        bool running = false;
        for (unsigned rest = w.exists & ~w.done; rest; rest &= rest - 1)
            running |= lanes[__builtin_ctz(rest)].status == Status::ready;
        if (settled_only && running) continue;
        unsigned waiting = 0;
        for (unsigned rest = w.arrived; rest; rest &= rest - 1)
            if (lanes[__builtin_ctz(rest)].op == WarpOp::active) waiting |= 1u << __builtin_ctz(rest);
        while (waiting) {
            const std::uint64_t site = lanes[__builtin_ctz(waiting)].value;
            unsigned group = 0;
            for (unsigned rest = waiting; rest; rest &= rest - 1)
                if (lanes[__builtin_ctz(rest)].value == site) group |= 1u << __builtin_ctz(rest);
            waiting &= ~group;
            w.arrived &= ~group;
            for (unsigned rest = group; rest; rest &= rest - 1) {
                ThreadState& t = lanes[__builtin_ctz(rest)];
                t.result = group;
                t.status = Status::ready;
                block.push(t.rank);
            }
            released = true;
        }
    }
    return released;
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
    std::string text = std::to_string(at_barrier) + " threads wait at __syncthreads() and " + std::to_string(at_warp) +
                       " in a warp-level call (__syncwarp, shuffle, vote) for lanes that never arrive; ";
    int at_partial = 0;
    for (const ThreadState& t : block.threads) at_partial += t.status == Status::at_partial;
    if (at_partial) text += std::to_string(at_partial) + " at a barrier of part of the block (a tile's sync); ";
    if (block.at_grid) text += std::to_string(block.at_grid) + " at grid.sync(); ";
    return text + std::to_string(block.done) + " of " + std::to_string(block.threads.size()) + " returned";
}

}  // namespace

void begin_block(Worker& worker, Resident& resident, const Launch& launch, unsigned long long linear)
{
    const Options& o = options();
    const dim3 grid = launch.config.grid, shape = launch.config.block;
    Block& block = resident.block;
    worker.resident = &resident;
    block.launch = &launch;
    block.index = uint3{unsigned(linear % grid.x), unsigned(linear / grid.x % grid.y),
                        unsigned(linear / (std::uint64_t(grid.x) * grid.y))};
    blockIdx = block.index;
    blockDim = shape;
    gridDim = grid;
    resident.shared.begin_block(launch.config.shared_bytes);
    if (o.shared_tracking() && !resident.shadow) resident.shadow = std::make_unique<SharedShadow>();
    if (resident.shadow) resident.shadow->begin_block();
    const int n = int(launch.threads_per_block);
    const int warps = (n + kWarpSize - 1) / kWarpSize;
    if (!o.profile.empty()) resident.profile.begin_block(warps);

    block.threads.resize(std::size_t(n));
    block.warps.assign(std::size_t(warps), WarpState{});
    block.done = block.at_barrier = block.at_grid = 0;
    block.partial.clear();
    block.epoch = 0;
    block.fault = cudaSuccess;
    block.reset_queue(std::size_t(n));
    resident.stacks.reserve(std::size_t(n));
    for (int rank = 0; rank < n; ++rank) {
        ThreadState& t = block.threads[std::size_t(rank)];
        t.index = uint3{unsigned(rank % int(shape.x)), unsigned(rank / int(shape.x) % int(shape.y)),
                        unsigned(rank / int(shape.x * shape.y))};
        t.rank = rank;
        t.warp = rank / kWarpSize;
        t.lane = rank % kWarpSize;
        t.status = Status::ready;
        t.copies.clear();
        std::fill(std::begin(t.clock), std::end(t.clock), 0u);
        block.warps[std::size_t(t.warp)].exists |= 1u << t.lane;
        char* const stack = resident.stacks.stack(std::size_t(rank));
        t.stack = Region{std::uintptr_t(stack) - resident.stacks.bytes(), std::uintptr_t(stack), Space::other};
        t.fiber = fiber(std::allocator_arg, PooledStack{stack, resident.stacks.bytes()},
                        [&block, &t](fiber&& scheduler) {
                            t.scheduler = std::move(scheduler);
                            block.launch->body(block.launch->closure);
                            thread_returned(block, t);
                            return std::move(t.scheduler);
                        });
        block.push(rank);
    }
    worker.builtins = builtin_variables();
    const auto arguments = std::uintptr_t(launch.closure);
    worker.arguments = Region{arguments, arguments + launch.closure_bytes, Space::other};
    worker.found[0] = worker.found[1] = Region{};
}

cudaError_t run_resident(Worker& worker, Resident& resident, bool& parked)
{
    const Options& o = options();
    Block& block = resident.block;
    worker.resident = &resident;
    blockIdx = block.index;
    blockDim = block.launch->config.block;
    gridDim = block.launch->config.grid;
    t_fast = FastRegions{};  // what another block touched may be gone, or its own
    parked = false;
    const int n = int(block.threads.size());
    cudaError_t result = cudaSuccess;
    for (int rank; block.done < n;) {
        if (!block.pop(rank)) {
            if (release_active_lanes(block)) continue;
            if (block.at_grid > 0 && block.at_grid + block.done == n) {
                parked = true;
                break;
            }
            report_barrier_error(block.launch->kernel, block.index, describe_stuck(block));
            result = cudaErrorLaunchFailure;
            break;
        }
        ThreadState& t = block.threads[std::size_t(rank)];
        t_thread = &t;
        threadIdx = t.index;
        if (!o.watching()) t_fast.stack = t.stack;
        t.fiber = std::move(t.fiber).resume();
        if (block.fault != cudaSuccess) {
            result = block.fault;
            break;
        }
    }
    t_thread = nullptr;
    t_fast = FastRegions{};
    return result;
}

void release_grid_barrier(Resident& resident)
{
    Block& block = resident.block;
    for (ThreadState& t : block.threads) {
        if (t.status != Status::at_grid) continue;
        t.status = Status::ready;
        block.push(t.rank);
    }
    block.at_grid = 0;
    ++block.epoch;
}

void end_block(Worker& worker, Resident& resident)
{
    // Threads that can never go on (or that faulted) are unwound, their fibers destroyed, as a GPU would abort
    // the kernel.
    worker.resident = &resident;
    for (ThreadState& t : resident.block.threads) {
        t_thread = &t;
        t.fiber = fiber();
    }
    t_thread = nullptr;
    t_fast = FastRegions{};
    if (!options().profile.empty()) resident.profile.end_block(resident.block.launch->profile_group, worker.counters);
    worker.resident = &worker.own;
}

void stop_at_fault(bool launch_fails)
{
    ThreadState& thread = *t_thread;
    Block& block = t_worker->block();
    if (launch_fails) {
        block.fault = cudaErrorIllegalAddress;
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
    Block& block = t_worker->block();
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
    Block& block = t_worker->block();
    thread->op = op;
    thread->mask = mask;
    thread->value = value;
    thread->argument = argument;
    thread->width = width;
    thread->status = Status::at_warp;
    WarpState& w = block.warps[std::size_t(thread->warp)];
    w.arrived |= 1u << thread->lane;
    const unsigned needed = (mask | 1u << thread->lane) & w.exists & ~w.done;
    const unsigned arrived = w.arrived & ~in_activemask(block, thread->warp);
    if (op != WarpOp::active && (arrived & needed) == needed) try_complete_warp(block, thread->warp, 1u << thread->lane);
    suspend(*thread);
    return thread->result;
}

std::uint64_t partial_barrier(std::uint64_t key, int expected, std::uint64_t value, int source_rank, int& predicate)
{
    ThreadState* thread = t_thread;
    if (!thread) fatal("a barrier called outside a kernel");
    Block& block = t_worker->block();
    thread->status = Status::at_partial;
    thread->key = key;
    thread->value = value;
    thread->argument = source_rank;
    thread->predicate = predicate;
    auto barrier = std::find_if(block.partial.begin(), block.partial.end(),
                                [key](const PartialBarrier& b) { return b.key == key; });
    if (barrier == block.partial.end()) barrier = block.partial.insert(block.partial.end(), PartialBarrier{key, expected, 0});
    if (++barrier->arrived >= barrier->expected) release_partial(block, key);
    suspend(*thread);
    predicate = thread->predicate;
    return thread->result;
}

void grid_barrier()
{
    ThreadState* thread = t_thread;
    if (!thread) fatal("grid.sync() called outside a kernel");
    Block& block = t_worker->block();
    if (!block.launch->cooperative) {
        report_barrier_error(block.launch->kernel, block.index,
                             "grid.sync() in a launch that is not cooperative: only cudaLaunchCooperativeKernel "
                             "keeps every block of the grid on the GPU at once");
        block.fault = cudaErrorLaunchFailure;
        suspend(*thread);  // for good: the fiber is unwound when the block ends
        fatal("a thread went on after grid.sync() failed");
    }
    thread->status = Status::at_grid;
    ++block.at_grid;
    suspend(*thread);
}

void add_async_copy(const AsyncCopy& copy)
{
    if (!t_thread) fatal("memcpy_async called outside a kernel");
    t_thread->copies.push_back(copy);
}

bool next_async_copy(std::size_t keep, AsyncCopy& copy)
{
    if (!t_thread) fatal("a wait for memcpy_async called outside a kernel");
    std::vector<AsyncCopy>& copies = t_thread->copies;
    if (copies.size() <= keep) return false;
    copy = copies.front();
    copies.erase(copies.begin());
    return true;
}

bool cooperative_launch()
{
    return t_thread && t_worker->block().launch->cooperative;
}

void yield_thread()
{
    ThreadState* thread = t_thread;
    if (!thread) return;
    Block& block = t_worker->block();
    // A thread that polls waits as one at a barrier would: lanes waiting in __activemask() need not wait for it.
    thread->status = Status::at_barrier;
    release_active_lanes(block, true);
    thread->status = Status::ready;
    block.push(thread->rank);
    suspend(*thread);
}

void trap()
{
    ThreadState* thread = t_thread;
    if (!thread) fatal("__trap() called outside a kernel");
    t_worker->block().fault = cudaErrorLaunchFailure;
    suspend(*thread);  // for good: the fiber is unwound when the block ends
    fatal("a thread went on after __trap()");
}

void unsupported(const char* what)
{
    fatal((std::string(CML_EMU_LIMIT " ") + what + " is not emulated" CML_EMU_LIMIT_WHY).c_str());
}

}  // namespace cml_emu
