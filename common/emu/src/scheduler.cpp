// Runs a launch: blocks spread over worker threads, the threads of a block as fibers on one worker. A thread
// runs until it waits (a barrier, a warp-level call) or returns, then the next ready thread runs, lowest
// rank first: lane 0 of a warp may run far ahead of lane 1, as independent thread scheduling allows, so code
// that assumes lock-step warps without __syncwarp() reads stale values and racecheck sees it.
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "cml_emu/launch.hpp"
#include "options.hpp"
#include "runtime_state.hpp"
#include "worker.hpp"

__thread uint3 threadIdx;
__thread uint3 blockIdx;
__thread dim3 blockDim;
__thread dim3 gridDim;

namespace cml_emu {

__thread Worker* t_worker = nullptr;
__thread ThreadState* t_thread = nullptr;

namespace {

using boost::context::fiber;

constexpr std::size_t kGuardBytes = 4096;

struct PoolStack {
    char* top;
    std::size_t bytes;
    boost::context::stack_context allocate()
    {
        boost::context::stack_context context;
        context.size = bytes;
        context.sp = top;
        return context;
    }
    void deallocate(boost::context::stack_context&) noexcept {}
};

[[noreturn]] void fatal(const char* what)
{
    std::fprintf(stderr, "cml_emu: %s\n", what);
    std::abort();
}

// ---- the threads of a block ----

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

// Completes the warp's pending call once every lane it names has arrived (or returned).
void try_complete_warp(Block& block, int warp)
{
    WarpState& w = block.warps[std::size_t(warp)];
    if (!w.arrived) return;
    const unsigned needed = w.wanted & w.exists & ~w.done;
    if ((w.arrived & needed) != needed) return;
    ThreadState* lanes = &block.threads[std::size_t(warp * kWarpSize)];
    const unsigned arrived = w.arrived;
    bool sync = false;
    for (int lane = 0; lane < kWarpSize; ++lane) {
        if (!(arrived >> lane & 1u)) continue;
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
    if (sync && options().racecheck) join_clocks(block, warp, arrived);
    w.arrived = w.wanted = 0;
    for (int lane = 0; lane < kWarpSize; ++lane) {
        if (!(arrived >> lane & 1u)) continue;
        lanes[lane].status = Status::ready;
        block.push(lanes[lane].rank);
    }
}

void thread_returned(Block& block, ThreadState& thread)
{
    thread.status = Status::done;
    ++block.done;
    block.warps[std::size_t(thread.warp)].done |= 1u << thread.lane;
    try_complete_warp(block, thread.warp);
    if (block.at_barrier > 0 && block.at_barrier + block.done == int(block.threads.size())) release_barrier(block);
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

// Returns false when the block could not finish (its threads wait for each other).
bool run_block(Worker& worker, const Launch& launch, unsigned long long linear)
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
        t.fiber = fiber(std::allocator_arg, PoolStack{worker.stacks.stack(std::size_t(rank)), worker.stacks.bytes()},
                        [&block, &t](fiber&& scheduler) {
                            t.scheduler = std::move(scheduler);
                            block.launch->body(block.launch->closure);
                            thread_returned(block, t);
                            return std::move(t.scheduler);
                        });
        block.push(rank);
    }

    bool finished = true;
    for (int rank; block.done < n;) {
        if (!block.pop(rank)) {
            report_barrier_error(launch.kernel, block.index, describe_stuck(block));
            finished = false;
            break;
        }
        ThreadState& t = block.threads[std::size_t(rank)];
        t_thread = &t;
        threadIdx = t.index;
        t.fiber = std::move(t.fiber).resume();
    }
    // Threads that can never go on are unwound (their fibers destroyed), as a GPU would abort the kernel.
    for (ThreadState& t : block.threads) {
        t_thread = &t;
        t.fiber = fiber();
    }
    t_thread = nullptr;
    if (!o.profile.empty()) worker.profile.end_block(launch.profile_group, worker.counters);
    return finished;
}

// ---- the workers ----

class Pool {
public:
    Pool()
    {
        const Options& o = options();
        unsigned count = o.workers > 0 ? unsigned(o.workers) : std::thread::hardware_concurrency();
        count = count ? count : 1;
        for (unsigned i = 0; i < count; ++i) workers_.push_back(std::make_unique<Worker>(o.stack_bytes));
        for (unsigned i = 1; i < count; ++i) std::thread([this, i] { serve(*workers_[i]); }).detach();
    }

    // Every block of the launch; false when one could not finish.
    bool run(const Launch& launch)
    {
        const unsigned long long helpers = std::min<unsigned long long>(workers_.size() - 1, launch.blocks - 1);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            launch_ = &launch;
            next_block_ = 0;
            failed_ = false;
            busy_ = int(helpers);
            wanted_ = int(helpers);
            ++generation_;
        }
        start_.notify_all();
        work(*workers_[0], launch);
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [this] { return busy_ == 0; });
        launch_ = nullptr;
        return !failed_;
    }

    std::vector<std::unique_ptr<Worker>>& workers() { return workers_; }

private:
    void work(Worker& worker, const Launch& launch)
    {
        t_worker = &worker;
        for (unsigned long long b; (b = next_block_.fetch_add(1)) < launch.blocks;) {
            if (!run_block(worker, launch, b)) {
                failed_ = true;
                next_block_ = launch.blocks;  // like a GPU, stop the kernel at its first fault
            }
        }
        t_worker = nullptr;
    }

    void serve(Worker& worker)
    {
        std::uint64_t seen = 0;
        for (;;) {
            const Launch* launch;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                start_.wait(lock, [&] { return generation_ != seen && wanted_ > 0; });
                seen = generation_;
                --wanted_;
                launch = launch_;
            }
            work(worker, *launch);
            std::lock_guard<std::mutex> lock(mutex_);
            if (--busy_ == 0) done_.notify_one();
        }
    }

    std::vector<std::unique_ptr<Worker>> workers_;
    std::mutex mutex_;
    std::condition_variable start_, done_;
    const Launch* launch_ = nullptr;
    std::uint64_t generation_ = 0;
    int busy_ = 0, wanted_ = 0;
    std::atomic<unsigned long long> next_block_{0};
    std::atomic<bool> failed_{false};
};

Pool& pool()
{
    static Pool* p = new Pool;  // never destroyed: its threads wait for work until the process ends
    return *p;
}

void at_exit()
{
    const Options& o = options();
    if (!o.profile.empty()) write_profile();
    const bool found = o.any_check() && print_summaries();
    std::fflush(nullptr);
    if (found) _exit(o.error_exitcode);
}

}  // namespace

// ---- stacks and shared memory ----

StackPool::~StackPool()
{
    for (char* top : stacks_) munmap(top - bytes_ - kGuardBytes, bytes_ + kGuardBytes);
}

char* StackPool::stack(std::size_t index)
{
    while (stacks_.size() <= index) {
        void* memory = mmap(nullptr, bytes_ + kGuardBytes, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (memory == MAP_FAILED) fatal("out of memory for thread stacks");
        mprotect(memory, kGuardBytes, PROT_NONE);  // a stack overflow faults instead of corrupting another
        stacks_.push_back(static_cast<char*>(memory) + kGuardBytes + bytes_);
    }
    return stacks_[index];
}

SharedMemory::SharedMemory()
{
    void* memory = mmap(nullptr, kCapacity + kRedZone, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) fatal("out of memory for shared memory");
    base_ = static_cast<char*>(memory);
}

void SharedMemory::begin_block(std::size_t dynamic_bytes)
{
    slots_.clear();
    static_used_ = 0;
    dynamic_bytes_ = dynamic_bytes;
    dynamic_ = base_ + (kCapacity - (dynamic_bytes + 15) / 16 * 16);
    // What a block finds in shared memory is whatever was there: here, NaN (all bits set), never zeros.
    std::memset(dynamic_, 0xFF, dynamic_bytes);
}

void* SharedMemory::variable(SharedSlot& slot, std::size_t bytes, std::size_t alignment)
{
    for (const auto& [s, offset] : slots_)
        if (s == &slot) return base_ + offset;
    const std::size_t offset = (static_used_ + alignment - 1) / alignment * alignment;
    if (base_ + offset + bytes > dynamic_) fatal("a block asks for more shared memory than 256 KB");
    static_used_ = offset + bytes;
    slots_.emplace_back(&slot, offset);
    std::memset(base_ + offset, 0xFF, bytes);
    return base_ + offset;
}

bool SharedMemory::valid(std::uintptr_t address, std::size_t size) const
{
    const std::uintptr_t lo = base();
    if (address + size <= lo + static_used_) return true;
    const auto dyn = std::uintptr_t(dynamic_);
    return address >= dyn && address + size <= dyn + dynamic_bytes_;
}

void* shared_memory(SharedSlot& slot, std::size_t bytes, std::size_t alignment)
{
    if (!t_worker) fatal("a __shared__ variable used outside a kernel");
    return t_worker->shared.variable(slot, bytes, alignment);
}

void* dynamic_shared_memory()
{
    if (!t_worker) fatal("extern __shared__ memory used outside a kernel");
    return t_worker->shared.dynamic();
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
    w.wanted |= mask | 1u << thread->lane;
    try_complete_warp(block, thread->warp);
    suspend(*thread);
    return thread->result;
}

void run_kernel(const void* kernel, const LaunchConfig& config, ThreadBody thread_body, const void* closure)
{
    const Options& o = options();
    static std::once_flag once;
    std::call_once(once, [] { std::atexit(at_exit); });
    const std::uint64_t threads = std::uint64_t(config.block.x) * config.block.y * config.block.z;
    const std::uint64_t blocks = std::uint64_t(config.grid.x) * config.grid.y * config.grid.z;
    if (threads == 0 || threads > 1024 || config.block.z > 64 || blocks == 0 || config.grid.y > 65535 ||
        config.grid.z > 65535) {
        set_launch_error(cudaErrorInvalidConfiguration);
        return;
    }
    if (config.shared_bytes > 227 * 1024) {
        set_launch_error(cudaErrorInvalidValue);
        return;
    }
    if (o.any_check()) print_banner();
    Launch launch;
    launch.kernel = kernel;
    launch.config = config;
    launch.body = thread_body;
    launch.closure = closure;
    launch.threads_per_block = unsigned(threads);
    launch.blocks = blocks;
    if (o.watching()) launch.allocations = allocations_snapshot();
    if (!o.profile.empty()) launch.profile_group = note_launch(kernel);
    Pool& p = pool();
    if (o.shared_tracking())
        for (auto& w : p.workers())
            if (!w->shadow) w->shadow = std::make_unique<SharedShadow>();
    const bool finished = p.run(launch);
    if (o.watching()) {
        Findings all;
        for (auto& w : p.workers()) {
            w->findings.merge_into(all);
            if (!o.profile.empty()) merge_profile(w->counters);
        }
        publish_findings(all);
    }
    if (!finished) set_sticky_error(cudaErrorLaunchFailure);
}

}  // namespace cml_emu
