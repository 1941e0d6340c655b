// The frame of every lab's benchmark: argument parsing, device facts and copy bandwidth, a checked and
// timed run of each kernel, a table for people and JSON for the grader.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cml/compare.hpp"
#include "cml/device_facts.hpp"
#include "cml/timing.hpp"

namespace cml {

struct BenchArgs {
    std::string json_path;   // --json PATH: where to write the results for the grader
    long long size = 0;      // --size N: problem size; 0 means the lab's default
    bool profile = false;    // --profile: one checked launch per kernel, no timing (for ncu)
};

// One kernel as the benchmark runs it.
struct KernelUnderTest {
    std::string name;                    // as the handout names it, e.g. "lanes 32 apart"
    std::string role;                    // "baseline", "student", "stretch" or "reference" (a library, shown only)
    std::string group;                   // a lab measured at several settings names each, e.g. "R = 32"
    std::function<void()> reset;         // poison the outputs before the checked launch
    std::function<void()> launch;        // one call of the launcher
    std::function<Comparison()> verify;  // compare the outputs with the CPU reference
    double bytes = 0.0;                  // fewest bytes one launch must move (napkin math)
    double flops = 0.0;                  // floating-point operations of one launch (0 if memory-bound)
    bool attempted = true;               // false: an optional stretch the student has not switched on
};

struct KernelResult {
    std::string name;
    std::string role;
    std::string group;
    bool attempted = true;
    bool correct = false;
    std::string check;  // Comparison::describe() of the checked launch
    Timing timing;
    double bytes = 0.0;
    double flops = 0.0;
    double gbps() const { return timing.median_ms > 0 ? bytes / (timing.median_ms * 1e6) : 0.0; }
    double gflops() const { return timing.median_ms > 0 ? flops / (timing.median_ms * 1e6) : 0.0; }
};

class BenchReport {
public:
    std::string problem;  // e.g. "n = 67108864 floats; per element 2 reads and 1 write of 4 bytes"
    // Poisons, launches once, verifies, then (unless profiling) times the kernel.
    void run(const KernelUnderTest& kernel, const BenchArgs& args);
    const std::vector<KernelResult>& results() const { return results_; }

private:
    std::vector<KernelResult> results_;
};

using BenchBody = std::function<void(const BenchArgs&, BenchReport&)>;

// Runs `body` and reports. Exit codes: 0 ran (correct or not: the JSON says), 1 error, 2 bad arguments,
// 77 no GPU.
int bench_main(int argc, char** argv, const std::string& lab, const BenchBody& body);

}  // namespace cml
