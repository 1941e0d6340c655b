// The frame of every lab's benchmark: argument parsing, device facts and copy bandwidth, a checked and
// timed run of each kernel, a table for people and JSON for the grader.
//
// Each kernel runs over the instances of its problem (cml/instances.hpp), and each launch takes one drawn at
// random: a kernel that skips the work when it sees pointers or data again, or does it only while it is
// being checked, leaves a wrong output behind, and fails. What the frame checks on each launch is in
// cml/launches.hpp.
#pragma once

#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cml/compare.hpp"
#include "cml/device_facts.hpp"
#include "cml/instances.hpp"
#include "cml/timing.hpp"

namespace cml {

struct BenchArgs {
    std::string json_path;   // --json PATH: where to write the results for the grader
    long long size = 0;      // --size N: problem size; 0 means the lab's default
    bool profile = false;    // --profile: one checked launch per kernel, no timing (the CPU emulator's counters)
    // --printed-only GROUP, once per group: groups this GPU does not grade by time (targets/*.toml: not_graded),
    // timed with kPrintedOnlyLaunches launches, since their figures are only shown.
    std::set<std::string> printed_only;
};

// Timed launches of a measurement that is only printed, never graded: a median of 7 is a fair figure to show,
// and the GPU is held alone for less of a grade (Lab 10's parts are whole pipelines of tens of milliseconds).
constexpr int kPrintedOnlyLaunches = 7;

// One kernel as the benchmark runs it. Every callback takes the instance, 0 <= i < instances.
struct KernelUnderTest {
    std::string name;                    // as the handout names it, e.g. "lanes 32 apart"
    std::string role;                    // "baseline", "student", "stretch" or "reference" (a library, shown only)
    std::string group;                   // a lab measured at several settings names each, e.g. "R = 32"
    int instances = kInstances;
    // Change a few of instance i's inputs, and its expected values with them (cml/instances.hpp), so that a
    // result kept from an earlier launch is wrong where the look at this launch goes: before every launch,
    // outside the timed region. Every lab has one; the frame refuses a kernel without.
    std::function<void(int)> refresh;
    std::function<void(int)> prepare;    // poison instance i's outputs, and load what it keeps outside its
                                         // arguments (Lab 7's constants): before every launch, after refresh
    std::function<void(int)> launch;     // one call of the launcher on instance i
    std::function<Comparison(int)> verify;  // instance i's outputs against its expected result
    // A cheap look at instance i's outputs (cml/spot_check.hpp) after the warm-ups and the timed launches not
    // verified in full; none: verify. For outputs too large to read back after every launch. It looks at the
    // outputs that instance i's last refresh changed, besides its sample.
    std::function<Comparison(int)> spot_check;
    // What a kernel changed in instance i's inputs since they were uploaded ("" if nothing), after putting
    // them back (BenchInput::restore_if_changed). Asked of the student's kernels only.
    std::function<std::string(int)> restore_inputs;
    double bytes = 0.0;                  // fewest bytes one launch must move (napkin math)
    double flops = 0.0;                  // floating-point operations of one launch (0 if memory-bound)
    bool attempted = true;               // false: an optional stretch the student has not switched on
    // The launcher is a whole pipeline, host memory to host memory, with streams of its own (Lab 10): its time
    // is the host's clock around the call and a device-wide synchronise, which no stream escapes, not the
    // events on the default stream.
    bool whole_pipeline = false;
    // Timed launches, where not TimingOptions' default: kPrintedOnlyLaunches for a measurement the lab only
    // prints, never grades, whatever the GPU (Lab 10's zero-copy stretch).
    int timed_launches = 0;
};

struct KernelResult {
    std::string name;
    std::string role;
    std::string group;
    bool attempted = true;
    bool correct = false;  // every output checked was right and the inputs were left alone
    std::string check;     // why not, or Comparison::describe() of the checked launch
    // Why its time cannot be trusted, whatever its outputs: work outside the timed stream, a changed cache
    // setting, a time below the physical floor. Empty when none.
    std::vector<std::string> problems;
    Timing timing;
    int timed_verified = 0;       // timed launches whose outputs were compared in full with the expected result
                                  // (2 of a student's kernel, none of the grader's own: cml/launches.hpp);
                                  // the student's others were spot-checked
    int timed_checked = 0;        // timed launches whose outputs were looked at, in full or by a spot check
    int warmups_checked = 0;      // warm-up launches whose outputs were looked at (the student's kernels')
    double host_median_ms = 0.0;  // host clock around each timed launch and a device-wide synchronise
    double floor_ms = 0.0;        // `bytes` at 1.5 x this GPU's copy bandwidth: no time can be lower
    double flops_floor_ms = 0.0;  // `flops` at 1.5 x this GPU's fp32 peak: no time can be lower either
    double bytes = 0.0;
    double flops = 0.0;
    double gbps() const { return timing.median_ms > 0 ? bytes / (timing.median_ms * 1e6) : 0.0; }
    double gflops() const { return timing.median_ms > 0 ? flops / (timing.median_ms * 1e6) : 0.0; }
};

// (group, role) of a checked launch that a profiler watches (grader/steps/profile.py).
using ProfiledLaunch = std::pair<std::string, std::string>;

// Thrown by BenchReport::run once every checked launch a profiler watches has run: the rest of the run would
// only cost the profiler's time. Until then the run is the timed run, launch for launch, so the kernel cannot
// tell a profiled run from a timed one.
struct EveryProfiledLaunchRan {};

class BenchReport {
public:
    // `measure_copy`: measure this GPU's copy bandwidth before the first launch (not when profiling).
    // `profiled`: the checked launches a profiler watches in this run (none: the whole run).
    // `gpu_turn`: the socket to ask the grader for the GPU through before the first launch (cml/gpu_turn.hpp).
    // `fp32_peak_gflops`: this GPU's (DeviceFacts::fp32_peak_gflops), 0 where not known.
    BenchReport(bool measure_copy, std::set<ProfiledLaunch> profiled = {}, std::string gpu_turn = "",
                double fp32_peak_gflops = 0.0)
        : measure_copy_(measure_copy), awaited_(std::move(profiled)), gpu_turn_(std::move(gpu_turn)),
          fp32_peak_gflops_(fp32_peak_gflops)
    {
    }
    std::string problem;  // e.g. "n = 67108864 floats; per element 2 reads and 1 write of 4 bytes"
    // The checked launch, then (unless profiling) the timed launches, each with the checks of cml/launches.hpp.
    void run(const KernelUnderTest& kernel, const BenchArgs& args);
    const std::vector<KernelResult>& results() const { return results_; }
    double copy_gbps() const { return copy_gbps_; }

private:
    // Everything before the first launch is set-up; from here on the run has the GPU alone.
    void start_launches();

    bool measure_copy_;
    bool launching_ = false;  // start_launches() has run
    double copy_gbps_ = 0.0;  // this GPU's device-to-device copy, measured in this run (0 when profiling)
    std::set<ProfiledLaunch> awaited_;  // the profiled checked launches still to come
    std::string gpu_turn_;
    double fp32_peak_gflops_;
    std::vector<KernelResult> results_;
};

using BenchBody = std::function<void(const BenchArgs&, BenchReport&)>;

// Runs `body` and reports. Exit codes: 0 ran (correct or not: the JSON says), 1 error, 2 bad arguments,
// 77 no GPU.
int bench_main(int argc, char** argv, const std::string& lab, const BenchBody& body);

}  // namespace cml
