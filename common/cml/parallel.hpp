// Work split over the host's cores: a benchmark's set-up (random inputs, CPU references, comparisons of 64M
// outputs) would otherwise keep one core busy for seconds while the GPU waits (issue 17).
#pragma once

#include <cstddef>
#include <functional>

namespace cml {

// work(i) for every 0 <= i < count, on up to one thread per core; returns when all are done, rethrowing the
// first exception a call threw. With one piece of work, or one core, on the calling thread alone.
void parallel_for(std::size_t count, const std::function<void(std::size_t)>& work);

}  // namespace cml
