// Timing of kernel launches with CUDA events: warm-up launches first, then many timed launches, each
// after a write that evicts L2 (so no launch finds its inputs cached by the one before), and the
// median and spread of those.
#pragma once

#include <functional>

namespace cml {

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

// `launch` must enqueue the work to time on the default stream (a launcher call from kernel.cu).
Timing time_launches(const std::function<void()>& launch, TimingOptions options = {});

}  // namespace cml
