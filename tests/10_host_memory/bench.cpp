// Lab 10 benchmark: 16M floats (64 MB) from host memory to the GPU, a polynomial of degree kDegree of each, and
// back. Napkin math: per element 4 bytes each way over the bus and 2 kDegree flops; each function is the whole
// pipeline, so the time is the host's clock around the call and a device-wide synchronise (cml/launches.hpp),
// and the output of every call of the student's is looked at in host memory. The baseline copies from and to
// the caller's pageable memory, serially; Part C's, the same managed pipeline with no prefetch, whose kernel
// takes the page faults. The zero-copy stretch, where attempted, is timed at 1 and 2 passes beside the same
// passes with copies, and measured only: no threshold grades it (grader/labs.toml: graded_groups).
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "baseline.hpp"
#include "cml/bench.hpp"
#include "cml/compare.hpp"
#include "cml/device_buffer.hpp"
#include "cml/spot_check.hpp"
#include "host_memory.hpp"
#include "reference.hpp"

namespace {

// 64 MB each way (reference.hpp) keeps every copy tens of times longer than a call's fixed costs, and a run of
// the benchmark short: each part's pipeline and the baseline beside it are called 27 times (the stretch's fewer,
// below), and every output of the student's calls is looked at in host memory: two in full, the others by a
// sample (cml/spot_check.hpp), so that the GPU is held alone for the calls, not for comparing 16M floats after
// each. At 256 MB the benchmark held the GPU alone for 28 s of a student's grade on an H100.
constexpr long long kDefaultSize = kBenchFloats;

// One instance: its input in ordinary host memory, a pristine copy to compare it with after every call, its
// output in host memory and the results it must hold.
struct Instance {
    std::vector<float> in;
    std::vector<float> pristine;
    std::vector<float> out;
    std::vector<double> want;
    std::vector<double> want_two_passes;  // the zero-copy stretch's at 2 passes
    std::vector<std::size_t> refreshed;   // the elements the last refresh changed

    explicit Instance(int n)
        : in(cml::random_floats(std::size_t(n))), pristine(in), out(std::size_t(n)), want(polynomial_reference(in)),
          want_two_passes(want)
    {
        for (double& y : want_two_passes) y *= 2;  // the second pass adds the first's value again
    }

    // Before every call (cml/instances.hpp): a few inputs with |x| >= 1/4 negated, each moving its result by at
    // least 1/2 (reference.hpp).
    void refresh()
    {
        refreshed = cml::draw_positions(in.size(), cml::kRefreshed, [&](std::size_t j) {
            return std::fabs(pristine[j]) >= 0.25f;
        });
        for (std::size_t j : refreshed) {
            pristine[j] = in[j] = -pristine[j];
            want[j] = polynomial_reference({in[j]})[0];
            want_two_passes[j] = 2 * want[j];
        }
    }

    void poison() { std::memset(out.data(), cml::kPoisonByte, out.size() * sizeof(float)); }

    // "" when the input is as it was given; otherwise where it first differs, after putting it back.
    std::string restore_input()
    {
        for (std::size_t j = 0; j < in.size(); ++j) {
            if (in[j] == pristine[j]) continue;
            const std::string what = "in[" + std::to_string(j) + "] is " + std::to_string(in[j]) + " where " +
                                     std::to_string(pristine[j]) + " was given";
            in = pristine;
            return what;
        }
        return "";
    }
};

// The zero-copy stretch at 1 and 2 passes, each beside the same passes with copies, measured in the same run
// and printed, not graded. Not attempted, neither is run: the copies alone compare with nothing. A median of
// cml::kPrintedOnlyLaunches calls each on every GPU: these calls are the benchmark's longest (about 0.1 s each
// on an H100), and at a graded part's 25 they held the GPU alone for about half of the benchmark.

template <class Pipeline>
void zero_copy_groups(const cml::BenchArgs& args, cml::BenchReport& report, Pipeline& pipeline)
{
    double ratio[kMostPasses + 1] = {};
    for (int passes = 1; passes <= kMostPasses; ++passes) {
        const std::string group = "zero-copy, " + std::to_string(passes) + (passes == 1 ? " pass" : " passes");
        cml::KernelUnderTest zero_copy =
            pipeline(group, group, "stretch",
                     [passes](const float* in, float* out, int n) { pipeline_zero_copy(in, out, n, passes); }, passes);
        zero_copy.attempted = pipeline_zero_copy_attempted;
        zero_copy.timed_launches = cml::kPrintedOnlyLaunches;
        if (pipeline_zero_copy_attempted) {
            cml::KernelUnderTest copies = pipeline(group, "copies, pinned staging", "baseline",
                                                   [passes](const float* in, float* out, int n) {
                                                       pipeline_staged_copies(in, out, n, passes);
                                                   }, passes);
            copies.timed_launches = cml::kPrintedOnlyLaunches;
            report.run(copies, args);
        }
        report.run(zero_copy, args);
        if (!pipeline_zero_copy_attempted) continue;
        const std::vector<cml::KernelResult>& results = report.results();
        const cml::KernelResult& copies = results[results.size() - 2];
        const cml::KernelResult& mapped = results.back();
        if (copies.correct && mapped.correct && mapped.timing.median_ms > 0)
            ratio[passes] = copies.timing.median_ms / mapped.timing.median_ms;
    }
    if (args.profile || !pipeline_zero_copy_attempted) return;
    // The copies' time over zero-copy's: above x1 zero-copy took less time, below x1 more.
    std::printf("zero-copy's speedup over the same passes with copies, on this machine:");
    for (int passes = 1; passes <= kMostPasses; ++passes) {
        if (ratio[passes] > 0) std::printf("  %d pass%s x%.2f", passes, passes == 1 ? "" : "es", ratio[passes]);
        else std::printf("  %d pass%s not measured (a wrong result)", passes, passes == 1 ? "" : "es");
    }
    std::printf("\n\n");
}

void bench(const cml::BenchArgs& args, cml::BenchReport& report)
{
    const int n = int(args.size ? args.size : kDefaultSize);
    std::vector<Instance> instances = cml::make_instances<Instance>(n);
    report.problem = "n = " + std::to_string(n) + " floats; per element 4 bytes each way between host and GPU and " +
                     std::to_string(2 * kDegree) + " flops; host clock around each whole call";

    // `passes`: the zero-copy stretch's, whose results are passes x the polynomial.
    auto pipeline = [&](std::string group, std::string name, std::string role,
                        std::function<void(const float*, float*, int)> function, int passes = 1) {
        cml::KernelUnderTest k;
        k.group = std::move(group);
        k.name = std::move(name);
        k.role = std::move(role);
        k.whole_pipeline = true;
        k.refresh = [&](int i) { instances[i].refresh(); };
        k.prepare = [&](int i) { instances[i].poison(); };
        k.launch = [&, function](int i) { function(instances[i].in.data(), instances[i].out.data(), n); };
        k.verify = [&, passes](int i) {
            const Instance& instance = instances[i];
            return cml::compare(instance.out, passes == 1 ? instance.want : instance.want_two_passes,
                                polynomial_tolerance(passes));
        };
        // The calls not verified in full (cml/launches.hpp): a sample, and the outputs the refresh changed.
        k.spot_check = [&, passes](int i) {
            const Instance& instance = instances[i];
            return cml::spot_check(instance.out, passes == 1 ? instance.want : instance.want_two_passes,
                                   polynomial_tolerance(passes), instance.refreshed);
        };
        k.restore_inputs = [&](int i) { return instances[i].restore_input(); };
        k.bytes = 8.0 * n;
        k.flops = 2.0 * kDegree * n * passes;
        return k;
    };
    // Each part against its baseline, measured beside it: a group each (grader/labs.toml: group_baselines).
    struct Part {
        const char* group;
        const char* name;
        void (*function)(const float*, float*, int);
        const char* baseline;
        void (*baseline_function)(const float*, float*, int);
    };
    for (const Part& part :
         {Part{"A: pinned", "pinned", pipeline_pinned, "pageable, serial", pipeline_pageable},
          Part{"B: overlapped", "overlapped", pipeline_overlapped, "pageable, serial", pipeline_pageable},
          Part{"C: managed", "managed", pipeline_managed, "managed, no prefetch", pipeline_managed_faulting}}) {
        report.run(pipeline(part.group, part.baseline, "baseline", part.baseline_function), args);
        report.run(pipeline(part.group, part.name, "student", part.function), args);
    }
    zero_copy_groups(args, report, pipeline);
}

}  // namespace

int main(int argc, char** argv) { return cml::bench_main(argc, argv, "10_host_memory", bench); }
