// A launch: its blocks spread over worker threads, one per core, each running one block at a time
// (block_threads.cpp), or for a cooperative launch every block at once, in turns between its grid.sync()s;
// and what the checks and counters found, gathered when the last block is done.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "cml_emu/launch.hpp"
#include "options.hpp"
#include "runtime_state.hpp"
#include "schedule.hpp"
#include "worker.hpp"

namespace cml_emu {

__thread Worker* t_worker = nullptr;

namespace {

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

    // Every block of the launch; what a GPU would say of the launch (run_resident).
    cudaError_t run(const Launch& launch)
    {
        const unsigned long long sharing = std::min<unsigned long long>(workers_.size(), launch.blocks);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            launch_ = &launch;
            next_block_ = 0;
            failure_ = cudaSuccess;
            static_shared_ = 0;
            busy_ = int(sharing) - 1;
            wanted_ = int(sharing) - 1;
            sharing_ = unsigned(sharing);
            parked_ = finished_ = arrived_ = 0;
            ++generation_;
        }
        start_.notify_all();
        work(*workers_[0], 0, launch);
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [this] { return busy_ == 0; });
        launch_ = nullptr;
        return failure_;
    }

    std::vector<std::unique_ptr<Worker>>& workers() { return workers_; }
    // The most static __shared__ memory a block of the last launch used.
    std::size_t static_shared() const { return static_shared_; }

private:
    void note(Worker& worker, Resident& resident, cudaError_t error)
    {
        for (std::size_t seen = static_shared_, now = resident.shared.static_bytes();
             now > seen && !static_shared_.compare_exchange_weak(seen, now);) {
        }
        if (error != cudaSuccess) {
            cudaError_t none = cudaSuccess;
            failure_.compare_exchange_strong(none, error);
            next_block_ = worker.resident->block.launch->blocks;  // like a GPU, stop the kernel at its first fault
        }
    }

    void work(Worker& worker, unsigned index, const Launch& launch)
    {
        t_worker = &worker;
        if (launch.cooperative) {
            work_cooperatively(worker, index, launch);
        } else {
            for (unsigned long long b; (b = next_block_.fetch_add(1)) < launch.blocks;) {
                begin_block(worker, worker.own, launch, b);
                bool parked = false;
                const cudaError_t error = run_resident(worker, worker.own, parked);
                end_block(worker, worker.own);
                note(worker, worker.own, error);
            }
        }
        t_worker = nullptr;
    }

    // A cooperative launch: every block of the grid stays on the workers (this one has blocks index,
    // index + sharing_, ...), each runs until its threads wait at grid.sync() or return; when every block has,
    // the workers let them past it together, as a GPU's grid-wide barrier does.
    void work_cooperatively(Worker& worker, unsigned index, const Launch& launch)
    {
        std::vector<Resident*> mine;
        for (unsigned long long b = index; b < launch.blocks; b += sharing_) {
            if (worker.cooperative.size() <= mine.size())
                worker.cooperative.push_back(std::make_unique<Resident>(worker.own.stacks.bytes(), false));
            Resident& resident = *worker.cooperative[mine.size()];
            begin_block(worker, resident, launch, b);
            mine.push_back(&resident);
        }
        std::vector<bool> finished(mine.size(), false);
        for (bool again = true; again;) {
            int parked = 0, returned = 0;
            for (std::size_t i = 0; i < mine.size() && failure_ == cudaSuccess; ++i) {
                if (finished[i]) continue;
                bool waits = false;
                const cudaError_t error = run_resident(worker, *mine[i], waits);
                note(worker, *mine[i], error);
                parked += waits;
                finished[i] = !waits;
                returned += !waits;
            }
            again = grid_barrier(parked, returned, mine.empty() ? nullptr : mine.front());
            if (again)
                for (std::size_t i = 0; i < mine.size(); ++i)
                    if (!finished[i]) release_grid_barrier(*mine[i]);
        }
        for (Resident* resident : mine) end_block(worker, *resident);
    }

    // Where the workers of a cooperative launch meet after each turn: true when they go on past a grid.sync()
    // that every block reached. A grid.sync() that waits for blocks that returned waits forever on a GPU: the
    // launch fails, as one whose threads wait for each other does.
    bool grid_barrier(int parked, int returned, const Resident* some)
    {
        std::unique_lock<std::mutex> lock(mutex_);
        parked_ += parked;
        finished_ += returned;
        const std::uint64_t turn = turn_;
        if (++arrived_ < sharing_) {
            turn_changed_.wait(lock, [&] { return turn_ != turn; });
        } else {
            go_on_ = parked_ > 0 && failure_ == cudaSuccess;
            if (go_on_ && finished_ > 0) {
                if (some)
                    report_barrier_error(some->block.launch->kernel, some->block.index,
                                         std::to_string(parked_) + " blocks wait at grid.sync() for " +
                                             std::to_string(finished_) + " that returned");
                failure_ = cudaErrorLaunchFailure;
                go_on_ = false;
            }
            parked_ = arrived_ = 0;
            ++turn_;
            turn_changed_.notify_all();
        }
        return go_on_;
    }

    void serve(Worker& worker)
    {
        std::uint64_t seen = 0;
        for (;;) {
            const Launch* launch;
            unsigned index;  // the helpers of a launch take 1 to sharing_ - 1, in the order they wake
            {
                std::unique_lock<std::mutex> lock(mutex_);
                start_.wait(lock, [&] { return generation_ != seen && wanted_ > 0; });
                seen = generation_;
                index = unsigned(wanted_--);
                launch = launch_;
            }
            work(worker, index, *launch);
            std::lock_guard<std::mutex> lock(mutex_);
            if (--busy_ == 0) done_.notify_one();
        }
    }

    std::vector<std::unique_ptr<Worker>> workers_;
    std::mutex mutex_;
    std::condition_variable start_, done_, turn_changed_;
    const Launch* launch_ = nullptr;
    std::uint64_t generation_ = 0, turn_ = 0;
    int busy_ = 0, wanted_ = 0;
    unsigned sharing_ = 1, arrived_ = 0;
    int parked_ = 0, finished_ = 0;
    bool go_on_ = false;
    std::atomic<unsigned long long> next_block_{0};
    std::atomic<cudaError_t> failure_{cudaSuccess};
    std::atomic<std::size_t> static_shared_{0};
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
    const bool found_by_schedule = o.schedule && schedule::print_summary();
    const bool found = (o.any_check() && print_summaries()) || found_by_schedule;
    std::fflush(nullptr);
    if (found) _exit(o.error_exitcode);
}

}  // namespace

void report_at_exit()
{
    static std::once_flag once;
    std::call_once(once, [] { std::atexit(at_exit); });
}

cudaError_t refuse_launch(cudaError_t error)
{
    set_launch_error(error);
    return error;
}

cudaError_t run_kernel(const void* kernel, const LaunchConfig& config, ThreadBody thread_body, const void* closure,
                       std::size_t closure_bytes)
{
    const Options& o = options();
    report_at_exit();
    const std::uint64_t threads = std::uint64_t(config.block.x) * config.block.y * config.block.z;
    const std::uint64_t blocks = std::uint64_t(config.grid.x) * config.grid.y * config.grid.z;
    if (threads == 0 || threads > std::uint64_t(device::kMaxThreadsPerBlock) || config.block.z > 64 || blocks == 0 ||
        config.grid.y > 65535 || config.grid.z > 65535)
        return refuse_launch(cudaErrorInvalidConfiguration);
    // More dynamic shared memory than the kernel allows (48 KB, unless cudaFuncSetAttribute raised it).
    if (config.shared_bytes > kernel_attributes(kernel).max_dynamic_shared) return refuse_launch(cudaErrorInvalidValue);
    if (o.any_check()) print_banner();
    Launch launch;
    launch.kernel = kernel;
    launch.config = config;
    launch.body = thread_body;
    launch.closure = closure;
    launch.closure_bytes = closure_bytes;
    launch.global = GlobalMemory::now();
    launch.threads_per_block = unsigned(threads);
    launch.blocks = blocks;
    launch.cooperative = config.cooperative;
    if (!o.profile.empty()) launch.profile_group = note_launch(kernel, {threads, blocks, config.shared_bytes});
    Pool& p = pool();
    schedule::kernel(config.stream, closure, closure_bytes);
    const cudaError_t failure = p.run(launch);
    note_static_shared(kernel, p.static_shared());
    if (o.watching()) {
        Findings all;
        for (auto& w : p.workers()) {
            w->findings.merge_into(all);
            if (!o.profile.empty()) merge_profile(w->counters);
        }
        publish_findings(all);
    }
    if (failure != cudaSuccess) set_sticky_error(failure);
    return cudaSuccess;
}

}  // namespace cml_emu
