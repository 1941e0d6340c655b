// The launches of one kernel under test, and what the benchmark checks on each: a kernel that does the work only
// while it is watched shows as wrong.
//
// The checked launch comes first, alone inside NVTX ranges (the group's, if any, then the role's), so that
// `ncu --nvtx --nvtx-include "R = 1/*/student"` profiles it and nothing else in a run with no arguments.
// Then warm-ups and timed launches, none in any range. Before every launch the instance is drawn at random,
// refreshed (a few of its inputs changed: cml/instances.hpp) and its outputs poisoned; before every timed one
// the L2 is flushed. Every warm-up and timed launch of the student's kernels is checked: the last timed one
// and one drawn at random in full, like the checked one, the others by a spot check where the lab has one
// (cml/spot_check.hpp), which includes the outputs the refresh changed. Each timed launch is followed by a
// device-wide synchronise, timed by the host's clock as well as by CUDA events, and by a look at the L2
// settings (cml/cache_state.hpp). A whole pipeline (KernelUnderTest::whole_pipeline) is timed by the host's
// clock alone, from after the flush to after the synchronise.
#pragma once

#include <string>

#include "cml/bench.hpp"
#include "cml/compare.hpp"
#include "cml/timing.hpp"

namespace cml {

struct CheckedLaunch {
    Comparison comparison;
    std::string cache_changed;  // cache_state_changed() after it
};

CheckedLaunch run_checked(const KernelUnderTest& kernel);

// Whether the kernel is the student's (role "student" or "stretch"). The grader's own kernels (the baselines,
// and the references shown for scale) are not suspected of cheating: the checks that read whole outputs or
// inputs back (the timed launches' verification, the inputs' comparison), most of the frame's cost, are
// spared them. Every other check applies to every kernel.
bool suspected(const KernelUnderTest& kernel);

struct TimedLaunches {
    Timing timing;                 // CUDA events around each launch: the benchmark's time
    double host_median_ms = 0.0;   // the host's clock, from before the L2 flush to after the synchronise
    double span_median_ms = 0.0;   // CUDA events over the same span (flush, launch)
    int verified = 0;              // timed launches whose outputs were compared in full with the expected result
    int checked = 0;               // timed launches whose outputs were looked at, in full or by a spot check
    int warmups_checked = 0;       // warm-up launches whose outputs were looked at
    std::string wrong;             // the first warm-up or timed launch whose output was wrong: which, and how
    std::string cache_changed;     // the first launch after which the L2 settings had changed: which, and how
    std::string clock_problem;     // the host's clock saw work the events did not
};

TimedLaunches run_timed(const KernelUnderTest& kernel, TimingOptions options = {});

}  // namespace cml
