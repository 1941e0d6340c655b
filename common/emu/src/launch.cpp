// A launch: its blocks spread over worker threads, one per core, each running one block at a time
// (block_threads.cpp), and what the checks and counters found, gathered when the last block is done.
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

    // Every block of the launch; what a GPU would say of the launch (run_block).
    cudaError_t run(const Launch& launch)
    {
        const unsigned long long helpers = std::min<unsigned long long>(workers_.size() - 1, launch.blocks - 1);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            launch_ = &launch;
            next_block_ = 0;
            failure_ = cudaSuccess;
            static_shared_ = 0;
            busy_ = int(helpers);
            wanted_ = int(helpers);
            ++generation_;
        }
        start_.notify_all();
        work(*workers_[0], launch);
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [this] { return busy_ == 0; });
        launch_ = nullptr;
        return failure_;
    }

    std::vector<std::unique_ptr<Worker>>& workers() { return workers_; }
    // The most static __shared__ memory a block of the last launch used.
    std::size_t static_shared() const { return static_shared_; }

private:
    void work(Worker& worker, const Launch& launch)
    {
        t_worker = &worker;
        for (unsigned long long b; (b = next_block_.fetch_add(1)) < launch.blocks;) {
            const cudaError_t error = run_block(worker, launch, b);
            for (std::size_t seen = static_shared_, now = worker.shared.static_bytes();
                 now > seen && !static_shared_.compare_exchange_weak(seen, now);) {
            }
            if (error != cudaSuccess) {
                cudaError_t none = cudaSuccess;
                failure_.compare_exchange_strong(none, error);
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
    if (!o.profile.empty()) launch.profile_group = note_launch(kernel, {threads, blocks, config.shared_bytes});
    Pool& p = pool();
    if (o.shared_tracking())
        for (auto& w : p.workers())
            if (!w->shadow) w->shadow = std::make_unique<SharedShadow>();
    schedule::kernel(config.stream, closure, closure_bytes);
    const cudaError_t failure = p.run(launch);
    schedule::kernel_ran();
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
