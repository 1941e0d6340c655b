// Work split over the host's cores: a benchmark's set-up (random inputs, CPU references, comparisons of 64M
// outputs) would otherwise keep one core busy for seconds while the GPU waits.
#pragma once

#include <cstddef>
#include <functional>

namespace cml {

// Elements per range for element-wise work over a large array (a benchmark's 64M): enough ranges to keep every
// core busy, each long enough that starting it costs nothing.
constexpr std::size_t kGrain = std::size_t(1) << 20;

// work(i) for every 0 <= i < count, on up to one thread per core; returns when all are done, rethrowing the
// first exception a call threw. With one piece of work, or one core, on the calling thread alone.
void parallel_for(std::size_t count, const std::function<void(std::size_t)>& work);

// work(begin, end) for consecutive ranges [begin, end) that cover [0, n), each `grain` long but the last (so
// each begins at a multiple of `grain`), by parallel_for.
void parallel_ranges(std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& work);

}  // namespace cml
