#include "cml/bench.hpp"

#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>

#include <nvtx3/nvToolsExt.h>
#include <unistd.h>

#include "cml/check.hpp"
#include "cml/confine.hpp"
#include "cml/random.hpp"
#include "cml/record.hpp"

namespace cml {
namespace {

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNoGpu = 77;

constexpr const char* kUsage =
    "usage: %s [--json PATH] [--size N] [--profile]\n"
    "  --json PATH  also write the results as JSON (what the grader reads)\n"
    "  --size N     problem size instead of the lab's default\n"
    "  --profile    launch each kernel once, checked but untimed (run it under ncu)\n";

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

void write_json(std::ostream& out, const std::string& lab, const DeviceFacts& device, double copy_gbps,
                const BenchReport& report, bool profile)
{
    out.precision(10);
    out << "{\n  \"lab\": " << quoted(lab) << ",\n  \"seed\": " << run_seed() << ",\n  \"profile\": "
        << (profile ? "true" : "false") << ",\n  \"problem\": " << quoted(report.problem) << ",\n"
        << "  \"device\": {\"name\": " << quoted(device.name) << ", \"sm_count\": " << device.sm_count
        << ", \"compute_capability\": \"" << device.cc_major << "." << device.cc_minor << "\""
        << ", \"l2_bytes\": " << device.l2_bytes << ", \"copy_gbps\": " << copy_gbps << "},\n  \"kernels\": [";
    const char* separator = "\n";
    for (const KernelResult& r : report.results()) {
        out << separator << "    {\"name\": " << quoted(r.name) << ", \"role\": " << quoted(r.role)
            << ", \"group\": " << quoted(r.group)
            << ", \"attempted\": " << (r.attempted ? "true" : "false")
            << ", \"correct\": " << (r.correct ? "true" : "false") << ", \"check\": " << quoted(r.check)
            << ", \"median_ms\": " << r.timing.median_ms << ", \"min_ms\": " << r.timing.min_ms
            << ", \"max_ms\": " << r.timing.max_ms << ", \"samples\": " << r.timing.samples
            << ", \"bytes\": " << r.bytes << ", \"gbps\": " << r.gbps() << ", \"flops\": " << r.flops
            << ", \"gflops\": " << r.gflops() << "}";
        separator = ",\n";
    }
    out << "\n  ]\n}\n";
}

void print_table(const DeviceFacts& device, double copy_gbps, const BenchReport& report)
{
    std::printf("%s: %d SMs, device-to-device copy %.0f GB/s (read + write)\n", device.name.c_str(),
                device.sm_count, copy_gbps);
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
}

}  // namespace

void BenchReport::run(const KernelUnderTest& kernel, const BenchArgs& args)
{
    KernelResult result;
    result.name = kernel.name;
    result.role = kernel.role;
    result.group = kernel.group;
    result.attempted = kernel.attempted;
    result.bytes = kernel.bytes;
    result.flops = kernel.flops;
    if (kernel.attempted) {
        kernel.reset();
        // Named by role, so `ncu --nvtx --nvtx-include student/` profiles the student's launches only.
        nvtxRangePushA(kernel.role.c_str());
        kernel.launch();
        CML_CHECK(cudaDeviceSynchronize());
        nvtxRangePop();
        const Comparison comparison = kernel.verify();
        result.correct = comparison.ok;
        result.check = comparison.describe();
        if (!args.profile) result.timing = time_launches(kernel.launch);
    }
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
    BenchArgs args;
    if (!parse_args(argc, argv, args)) {
        std::fprintf(stderr, kUsage, argv[0]);
        return kExitUsage;
    }
    if (!gpu_available()) {
        std::fprintf(stderr, "benchmark not run: %s\n", gpu_absence_reason().c_str());
        return kExitNoGpu;
    }
    hide_tool_variables_if_asked();  // CUDA has started (gpu_available): a profiler is in
    std::fprintf(stderr, "seed %llu (set CML_SEED to repeat)\n", static_cast<unsigned long long>(run_seed()));
    try {
        const DeviceFacts device = query_device();
        const double copy_gbps = args.profile ? 0.0 : measure_copy_gbps();
        BenchReport report;
        body(args, report);
        print_table(device, copy_gbps, report);
        std::ostringstream json;
        write_json(json, lab, device, copy_gbps, report, args.profile);
        if (!args.json_path.empty()) {
            std::ofstream out(args.json_path);
            if (!(out << json.str())) throw std::runtime_error("could not write " + args.json_path);
        }
        if (report_file != nullptr && !args.profile) {  // a profiling run's counters are the profiler's
            std::fputs(json.str().c_str(), report_file);
            std::fflush(report_file);
        }
    } catch (const std::exception& error) {
        std::fprintf(stderr, "error: %s\n", error.what());
        return kExitError;
    }
    return 0;
}

}  // namespace cml
