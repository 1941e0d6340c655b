#include "cml/bench.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include "cml/cache_state.hpp"
#include "cml/check.hpp"
#include "cml/confine.hpp"
#include "cml/gpu_turn.hpp"
#include "cml/launches.hpp"
#include "cml/random.hpp"
#include "cml/record.hpp"

namespace cml {
namespace {

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNoGpu = 77;

constexpr const char* kUsage =
    "usage: %s [--json PATH] [--size N] [--profile] [--printed-only GROUP]...\n"
    "  --json PATH  also write the results as JSON (what the grader reads)\n"
    "  --size N     problem size instead of the lab's default\n"
    "  --profile    launch each kernel once, checked but untimed (the CPU emulator's counters; ncu selects\n"
    "               the checked launches of a run with no arguments by their NVTX ranges instead)\n"
    "  --printed-only GROUP\n"
    "               a group whose times are shown, not graded, on this GPU: fewer timed launches\n";

bool parse_args(int argc, char** argv, BenchArgs& args)
{
    for (int i = 1; i < argc; ++i) {
        const bool has_value = i + 1 < argc;
        if (!std::strcmp(argv[i], "--json") && has_value) {
            args.json_path = argv[++i];
        } else if (!std::strcmp(argv[i], "--size") && has_value) {
            args.size = std::atoll(argv[++i]);
            if (args.size < 0) return false;
        } else if (!std::strcmp(argv[i], "--profile")) {
            args.profile = true;
        } else if (!std::strcmp(argv[i], "--printed-only") && has_value) {
            args.printed_only.insert(argv[++i]);
        } else {
            return false;
        }
    }
    return true;
}

// JSON string literal for our own short texts (names, messages, the device name).
std::string quoted(const std::string& text)
{
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            out += ' ';
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string quoted_list(const std::vector<std::string>& texts)
{
    std::string out = "[";
    for (const std::string& text : texts) out += (out.size() > 1 ? ", " : "") + quoted(text);
    return out + "]";
}

void write_json(std::ostream& out, const std::string& lab, const DeviceFacts& device, double copy_gbps,
                const BenchReport& report, bool profile)
{
    out.precision(10);
    out << "{\n  \"lab\": " << quoted(lab) << ",\n  \"seed\": " << run_seed() << ",\n  \"profile\": "
        << (profile ? "true" : "false") << ",\n  \"problem\": " << quoted(report.problem) << ",\n"
        << "  \"device\": {\"name\": " << quoted(device.name) << ", \"sm_count\": " << device.sm_count
        << ", \"compute_capability\": \"" << device.cc_major << "." << device.cc_minor << "\""
        << ", \"l2_bytes\": " << device.l2_bytes << ", \"copy_gbps\": " << copy_gbps
        << ", \"clock_khz\": " << device.clock_khz << ", \"fp32_peak_gflops\": " << device.fp32_peak_gflops()
        << "},\n  \"kernels\": [";
    const char* separator = "\n";
    for (const KernelResult& r : report.results()) {
        out << separator << "    {\"name\": " << quoted(r.name) << ", \"role\": " << quoted(r.role)
            << ", \"group\": " << quoted(r.group)
            << ", \"attempted\": " << (r.attempted ? "true" : "false")
            << ", \"correct\": " << (r.correct ? "true" : "false") << ", \"check\": " << quoted(r.check)
            << ", \"median_ms\": " << r.timing.median_ms << ", \"min_ms\": " << r.timing.min_ms
            << ", \"max_ms\": " << r.timing.max_ms << ", \"samples\": " << r.timing.samples
            << ", \"bytes\": " << r.bytes << ", \"gbps\": " << r.gbps() << ", \"flops\": " << r.flops
            << ", \"gflops\": " << r.gflops() << ", \"problems\": " << quoted_list(r.problems)
            << ", \"timed_launches_verified\": " << r.timed_verified
            << ", \"timed_launches_checked\": " << r.timed_checked
            << ", \"warmup_launches_checked\": " << r.warmups_checked << ", \"host_median_ms\": " << r.host_median_ms
            << ", \"floor_ms\": " << r.floor_ms << ", \"flops_floor_ms\": " << r.flops_floor_ms << "}";
        separator = ",\n";
    }
    out << "\n  ]\n}\n";
}

void print_table(const DeviceFacts& device, double copy_gbps, const BenchReport& report)
{
    std::printf("%s: %d SMs, device-to-device copy %.0f GB/s (read + write)", device.name.c_str(), device.sm_count,
                copy_gbps);
    if (device.fp32_peak_gflops() > 0) std::printf(", fp32 peak %.0f GFLOP/s", device.fp32_peak_gflops());
    std::printf("\n");
    std::printf("%s\n\n", report.problem.c_str());
    std::printf("%-34s %-9s %10s %8s %9s %9s %8s  %s\n", "kernel", "role", "median ms", "spread", "GB/s",
                "of copy", "GFLOP/s", "check");
    for (const KernelResult& r : report.results()) {
        const std::string name = r.group.empty() ? r.name : r.name + " [" + r.group + "]";
        if (!r.attempted) {
            std::printf("%-34s %-9s %10s  (not attempted)\n", name.c_str(), r.role.c_str(), "-");
            continue;
        }
        std::printf("%-34s %-9s %10.4f %7.1f%% %9.1f %9.2f %8.0f  %s\n", name.c_str(), r.role.c_str(),
                    r.timing.median_ms, 100.0 * r.timing.spread(), r.gbps(),
                    copy_gbps > 0 ? r.gbps() / copy_gbps : 0.0, r.gflops(), r.correct ? "correct" : "WRONG");
    }
    // Why a result is wrong or its time not to be trusted, under the table: the lines are long.
    for (const KernelResult& r : report.results()) {
        const std::string name = r.group.empty() ? r.name : r.name + " [" + r.group + "]";
        if (r.attempted && !r.correct) std::printf("\n%s: WRONG: %s\n", name.c_str(), r.check.c_str());
        for (const std::string& problem : r.problems) std::printf("\n%s: time not trusted: %s\n", name.c_str(), problem.c_str());
    }
}

// A kernel whose output was wrong somewhere is incorrect: the first reason says why, and any later one is added.
void fail(KernelResult& result, const std::string& why)
{
    result.check = result.correct ? why : result.check + "; " + why;
    result.correct = false;
}

void add_timed(KernelResult& result, const TimedLaunches& timed, bool cache_changed_before)
{
    result.timing = timed.timing;
    result.host_median_ms = timed.host_median_ms;
    result.timed_verified = timed.verified;
    result.timed_checked = timed.checked;
    result.warmups_checked = timed.warmups_checked;
    if (!timed.wrong.empty()) fail(result, timed.wrong);
    // A kernel that changes the L2 settings on every call is told once, at the first.
    if (!timed.cache_changed.empty() && !cache_changed_before) result.problems.push_back(timed.cache_changed);
    if (!timed.clock_problem.empty()) result.problems.push_back(timed.clock_problem);
}

// After all of a student's kernel's launches: every instance's inputs as they were uploaded; any it changed
// are put back before the next kernel runs.
void check_inputs(KernelResult& result, const KernelUnderTest& kernel)
{
    if (!suspected(kernel)) return;
    std::string changed;
    for (int i = 0; i < kernel.instances; ++i) {
        const std::string found = kernel.restore_inputs(i);
        if (!found.empty()) changed += (changed.empty() ? "" : "; ") + ("instance " + std::to_string(i) + ": " + found);
    }
    if (!changed.empty()) fail(result, "changed its inputs (" + changed + ")");
}

// No kernel moves its napkin-math bytes faster than the DRAM allows, and the copy reaches ~0.9 of the DRAM's
// peak (2956 of 3350 GB/s on the H100), so 1.5 x the copy is out of reach of any real kernel (the fastest
// measured, Lab 1's float4 stretch, ran at 1.01 x): a time below it was fooled, not earned.
constexpr double kFloorCopyMultiple = 1.5;

void check_floor(KernelResult& result, double copy_gbps)
{
    if (copy_gbps <= 0.0 || result.bytes <= 0.0) return;
    result.floor_ms = result.bytes / (kFloorCopyMultiple * copy_gbps * 1e6);
    if (result.timing.median_ms <= 0.0 || result.timing.median_ms >= result.floor_ms) return;
    char text[200];
    std::snprintf(text, sizeof text, "faster than its %.0f bytes can move at this GPU's copy bandwidth: %.4g ms < %.4g ms",
                  result.bytes, result.timing.median_ms, result.floor_ms);
    result.problems.push_back(text);
}

// Nor does any kernel do its flops faster than the SMs' fp32 peak at their reported clock (cuBLAS in fp32
// measured 51720 GFLOP/s on an H100, 0.77 of its 66900); 1.5 x leaves room for a consumer card's boost above
// the clock its driver reports. A time below it was fooled: the result did not come from this launch's
// arithmetic (a result kept from an earlier launch and patched where the inputs changed, say).
constexpr double kCeilingPeakMultiple = 1.5;

void check_flops_ceiling(KernelResult& result, double fp32_peak_gflops)
{
    if (fp32_peak_gflops <= 0.0 || result.flops <= 0.0) return;
    result.flops_floor_ms = result.flops / (kCeilingPeakMultiple * fp32_peak_gflops * 1e6);
    if (result.timing.median_ms <= 0.0 || result.timing.median_ms >= result.flops_floor_ms) return;
    char text[200];
    std::snprintf(text, sizeof text,
                  "faster than its %.4g flops can run at %.3g x this GPU's fp32 peak (%.0f GFLOP/s): %.4g ms < %.4g ms",
                  result.flops, kCeilingPeakMultiple, fp32_peak_gflops, result.timing.median_ms, result.flops_floor_ms);
    result.problems.push_back(text);
}

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// When the run began: each kernel's line on stderr says when it started and how long its parts took, so a
// slow benchmark shows where its seconds go (set-up and references are the gaps between the lines).
const Clock::time_point run_started = Clock::now();

// The checked launches a profiler watches in this run, "group<TAB>role" a line, as the grader gives them in
// CML_PROFILED_LAUNCHES (grader/steps/profile.py); the variable is gone before any code under test runs.
std::set<ProfiledLaunch> take_profiled_launches()
{
    std::set<ProfiledLaunch> launches;
    const char* listed = std::getenv("CML_PROFILED_LAUNCHES");
    std::istringstream lines(listed != nullptr ? listed : "");
    for (std::string line; std::getline(lines, line);) {
        const std::size_t tab = line.find('\t');
        if (tab != std::string::npos) launches.emplace(line.substr(0, tab), line.substr(tab + 1));
    }
    unsetenv("CML_PROFILED_LAUNCHES");
    return launches;
}

}  // namespace

void BenchReport::start_launches()
{
    launching_ = true;
    const Clock::time_point asked = Clock::now();
    wait_for_gpu_turn(gpu_turn_);
    if (!gpu_turn_.empty()) std::fprintf(stderr, "[%7.2f s] the GPU to this run alone, after waiting %.2f s\n",
                                         seconds_since(run_started), seconds_since(asked));
    if (measure_copy_) copy_gbps_ = measure_copy_gbps();
}

void BenchReport::run(const KernelUnderTest& kernel, const BenchArgs& args)
{
    if (!kernel.refresh) throw std::logic_error(kernel.name + ": the benchmark gives it no refresh between launches");
    if (!launching_) start_launches();
    const Clock::time_point started = Clock::now();
    std::fprintf(stderr, "[%7.2f s] %s%s%s (%s)", seconds_since(run_started), kernel.name.c_str(),
                 kernel.group.empty() ? "" : " @ ", kernel.group.c_str(), kernel.role.c_str());
    KernelResult result;
    result.name = kernel.name;
    result.role = kernel.role;
    result.group = kernel.group;
    result.attempted = kernel.attempted;
    result.bytes = kernel.bytes;
    result.flops = kernel.flops;
    if (kernel.attempted) {
        const CheckedLaunch checked = run_checked(kernel);
        std::fprintf(stderr, ": checked launch %.2f s", seconds_since(started));
        if (awaited_.erase({kernel.group, kernel.role}) && awaited_.empty()) {
            std::fprintf(stderr, "; every launch the profiler watches has run\n");
            throw EveryProfiledLaunchRan{};
        }
        result.correct = checked.comparison.ok;
        result.check = checked.comparison.describe();
        const bool cache_changed = !checked.cache_changed.empty();
        if (cache_changed) result.problems.push_back("the checked launch " + checked.cache_changed);
        const Clock::time_point timed_from = Clock::now();
        TimingOptions timing;
        if (kernel.timed_launches > 0) timing.repeats = kernel.timed_launches;
        else if (args.printed_only.count(kernel.group)) timing.repeats = kPrintedOnlyLaunches;
        if (!args.profile) add_timed(result, run_timed(kernel, timing), cache_changed);
        std::fprintf(stderr, ", timed launches %.2f s", seconds_since(timed_from));
        check_inputs(result, kernel);
        check_floor(result, copy_gbps_);
        check_flops_ceiling(result, fp32_peak_gflops_);
    }
    std::fprintf(stderr, "%s, in all %.2f s\n", kernel.attempted ? "" : ": not attempted", seconds_since(started));
    results_.push_back(result);
}

int bench_main(int argc, char** argv, const std::string& lab, const BenchBody& body)
{
    // Before anything else, and before any code under test can run: the limits the grader asked for, and the
    // file it gave this program for the results (cml/record.hpp).
    std::FILE* report_file = nullptr;
    try {
        confine_if_asked();
        report_file = record::open_report_file();
    } catch (const std::exception& error) {
        std::fprintf(stderr, "error: %s\n", error.what());
        return kExitError;
    }
    if (report_file != nullptr) ::dup2(STDERR_FILENO, STDOUT_FILENO);  // stdout is left to a profiler watching
    const std::set<ProfiledLaunch> profiled = take_profiled_launches();
    const std::string gpu_turn = take_gpu_turn_socket();
    BenchArgs args;
    if (!parse_args(argc, argv, args)) {
        std::fprintf(stderr, kUsage, argv[0]);
        return kExitUsage;
    }
    if (!gpu_available()) {
        std::fprintf(stderr, "benchmark not run: %s\n", gpu_absence_reason().c_str());
        return kExitNoGpu;
    }
    // CUDA has started (gpu_available) and NVTX too, so a profiler is in: now the variables it came in by can go.
    // (NVTX loads a profiler's part at its first call, from NVTX_INJECTION64_PATH: without this call first, the
    // profiler saw no ranges on the H100, and every counter check was 'not run'.)
    nvtxInitialize(nullptr);
    hide_tool_variables_if_asked();
    std::fprintf(stderr, "seed %llu (set CML_SEED to repeat)\n", static_cast<unsigned long long>(run_seed()));
    try {
        const DeviceFacts device = query_device();
        pin_cache_state();  // before the copy is measured, so that it and every kernel meet the same L2
        BenchReport report(!args.profile, profiled, gpu_turn, device.fp32_peak_gflops());
        std::fprintf(stderr, "[%7.2f s] set up: CUDA and the device's facts\n", seconds_since(run_started));
        body(args, report);
        end_gpu_turn();  // every launch is over
        print_table(device, report.copy_gbps(), report);
        std::ostringstream json;
        write_json(json, lab, device, report.copy_gbps(), report, args.profile);
        if (!args.json_path.empty()) {
            std::ofstream out(args.json_path);
            if (!(out << json.str())) throw std::runtime_error("could not write " + args.json_path);
        }
        if (report_file != nullptr && !args.profile) {  // a profiling run's counters are the profiler's
            std::fputs(json.str().c_str(), report_file);
            std::fflush(report_file);
        }
    } catch (const EveryProfiledLaunchRan&) {
        end_gpu_turn();
        return 0;  // a profiling run: its results are the profiler's counters
    } catch (const std::exception& error) {
        std::fprintf(stderr, "error: %s\n", error.what());
        return kExitError;
    }
    std::fprintf(stderr, "[%7.2f s] done\n", seconds_since(run_started));
    return 0;
}

}  // namespace cml
