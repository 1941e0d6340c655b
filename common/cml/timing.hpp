// Timing of kernel launches with CUDA events: warm-up launches first, then many timed launches, each
// after a write that evicts L2 (so no launch finds its inputs cached by the one before), and the
// median and spread of those. The benchmark's own timed launches, with their checks, are in cml/launches.hpp;
// this plain loop times the device-to-device copy they are compared with.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <vector>

namespace cml {

// A CUDA event, destroyed with its owner.
class Event {
public:
    Event();
    ~Event();
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return event_; }
    // Milliseconds from `earlier` to this event, both recorded and reached.
    double ms_since(const Event& earlier) const;

private:
    cudaEvent_t event_ = nullptr;
};

struct TimingOptions {
    int warmup = 2;
    int repeats = 25;
    bool flush_l2 = true;
};

struct Timing {
    double median_ms = 0.0;
    double min_ms = 0.0;
    double max_ms = 0.0;
    int samples = 0;
    // (max - min) / median: how far apart the fastest and slowest launch were, relative to the median.
    double spread() const { return median_ms > 0.0 ? (max_ms - min_ms) / median_ms : 0.0; }
};

// Median, fastest and slowest of `samples_ms`.
Timing summarize(std::vector<double> samples_ms);

// Enqueues, on the default stream, a write of four times the L2's size: none of a kernel's data is left in
// the cache after it. `round` varies the byte written.
void flush_l2(int round);

// `launch` must enqueue the work to time on the default stream (a launcher call from kernel.cu).
Timing time_launches(const std::function<void()>& launch, TimingOptions options = {});

}  // namespace cml
