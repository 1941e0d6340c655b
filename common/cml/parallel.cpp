#include "cml/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace cml {

void parallel_for(std::size_t count, const std::function<void(std::size_t)>& work)
{
    const std::size_t threads = std::min<std::size_t>(count, std::max(1u, std::thread::hardware_concurrency()));
    if (threads <= 1) {
        for (std::size_t i = 0; i < count; ++i) work(i);
        return;
    }
    std::atomic<std::size_t> next{0};
    std::exception_ptr first_error;
    std::mutex error_lock;
    auto worker = [&] {
        for (std::size_t i = next++; i < count; i = next++) {
            try {
                work(i);
            } catch (...) {
                const std::lock_guard<std::mutex> held(error_lock);
                if (!first_error) first_error = std::current_exception();
            }
        }
    };
    std::vector<std::thread> running;
    for (std::size_t t = 1; t < threads; ++t) running.emplace_back(worker);
    worker();
    for (std::thread& thread : running) thread.join();
    if (first_error) std::rethrow_exception(first_error);
}

void parallel_ranges(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& work)
{
    parallel_for((n + grain - 1) / grain, [&](std::size_t part) { work(part * grain, std::min(n, (part + 1) * grain)); });
}

}  // namespace cml
