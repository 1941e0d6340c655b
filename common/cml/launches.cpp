#include "cml/launches.hpp"

#include <chrono>
#include <cstdio>
#include <random>

#include <nvtx3/nvToolsExt.h>

#include "cml/cache_state.hpp"
#include "cml/check.hpp"

namespace cml {

bool suspected(const KernelUnderTest& kernel) { return kernel.role == "student" || kernel.role == "stretch"; }

namespace {

// Which instance a launch takes, and which timed launch is verified, come from the machine's entropy, not
// from the run's seed: a kernel cannot work them out from CML_SEED or from the inputs it is given.
int draw(int count)
{
    static std::random_device entropy;
    return std::uniform_int_distribution<int>(0, count - 1)(entropy);
}

// Which timed launches of a kernel to verify in full: the last, and one other drawn at random (a full
// verification takes longer than a launch); the others are spot-checked. None of the grader's own kernels'.
std::vector<bool> launches_to_verify(const KernelUnderTest& kernel, int repeats)
{
    std::vector<bool> verify(std::size_t(repeats), false);
    if (repeats == 0 || !suspected(kernel)) return verify;
    verify.back() = true;
    if (repeats > 1) verify[std::size_t(draw(repeats - 1))] = true;
    return verify;
}

// An NVTX range for the lifetime of the object; none for an empty name (NVTX filters cannot name one).
class NvtxRange {
public:
    explicit NvtxRange(const std::string& name) : open_(!name.empty())
    {
        if (open_) nvtxRangePushA(name.c_str());
    }
    ~NvtxRange()
    {
        if (open_) nvtxRangePop();
    }
    NvtxRange(const NvtxRange&) = delete;
    NvtxRange& operator=(const NvtxRange&) = delete;

private:
    bool open_;
};

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) { return std::chrono::duration<double, std::milli>(Clock::now() - start).count(); }

// What the host's clock sees beyond the events around the same span: the API calls of one launch (two event
// records, the flush, the launch, each a few µs, most of it while the GPU works) and the wake-up from the
// synchronise (~10 µs): 0.05 ms covers those. A quarter of the time itself covers two clocks read by a busy
// host. Work the kernel left on another stream, which the events on the default stream never see, shows
// up beyond both (a launch on a cudaStreamNonBlocking stream measured x18762 over naive on an H100).
constexpr double kHostOverheadMs = 0.05;
constexpr double kHostJitter = 0.25;

std::string host_clock_problem(double host_ms, double span_ms)
{
    const double allowed = span_ms * (1.0 + kHostJitter) + kHostOverheadMs;
    if (host_ms <= allowed) return "";
    char text[300];
    std::snprintf(text, sizeof text,
                  "did work outside the timed stream: the host's clock saw %.4g ms per launch and device-wide "
                  "synchronise, the CUDA events on the default stream %.4g ms (allowed: %.4g ms)",
                  host_ms, span_ms, allowed);
    return text;
}

std::string wrong_output(const std::string& launch, const Comparison& comparison)
{
    const char* what = comparison.first_bad_unwritten ? "left its output unwritten (poison)" : "wrote a wrong output";
    return launch + " " + what + ": " + comparison.describe();
}

// Before every launch: inputs that no earlier launch saw, then outputs that no earlier launch wrote.
void make_ready(const KernelUnderTest& kernel, int instance)
{
    kernel.refresh(instance);
    kernel.prepare(instance);
}

// The spot check where the lab has one, else the full comparison. Both include the outputs the refresh
// before the launch changed.
Comparison look_at(const KernelUnderTest& kernel, int instance, bool in_full)
{
    return in_full || !kernel.spot_check ? kernel.verify(instance) : kernel.spot_check(instance);
}

}  // namespace

CheckedLaunch run_checked(const KernelUnderTest& kernel)
{
    const int instance = draw(kernel.instances);
    make_ready(kernel, instance);
    CML_CHECK(cudaDeviceSynchronize());
    {
        // The only launch in these ranges: ncu selects it by them alone (grader/steps/profile.py).
        const NvtxRange group(kernel.group);
        const NvtxRange role(kernel.role);
        kernel.launch(instance);
        CML_CHECK(cudaDeviceSynchronize());
    }
    CheckedLaunch checked;
    checked.cache_changed = cache_state_changed();
    checked.comparison = kernel.verify(instance);
    return checked;
}

TimedLaunches run_timed(const KernelUnderTest& kernel, TimingOptions options)
{
    TimedLaunches timed;
    auto note_cache_change = [&](const std::string& launch) {
        const std::string changed = cache_state_changed();
        if (!changed.empty() && timed.cache_changed.empty()) timed.cache_changed = launch + " " + changed;
    };
    auto note_wrong = [&](const std::string& launch, const Comparison& comparison) {
        if (!comparison.ok && timed.wrong.empty()) timed.wrong = wrong_output(launch, comparison);
    };
    // The warm-ups are checked too: a kernel that did its work only while nobody looked, to keep the result
    // for later, is wrong at one of them.
    for (int w = 0; w < options.warmup; ++w) {
        const int instance = draw(kernel.instances);
        make_ready(kernel, instance);
        kernel.launch(instance);
        CML_CHECK(cudaDeviceSynchronize());
        if (!suspected(kernel)) continue;
        note_wrong("warm-up launch " + std::to_string(w + 1) + " of " + std::to_string(options.warmup),
                   look_at(kernel, instance, false));
        ++timed.warmups_checked;
    }
    CML_CHECK(cudaDeviceSynchronize());
    note_cache_change("a warm-up launch");

    const std::vector<bool> verify = launches_to_verify(kernel, options.repeats);
    Event before, start, stop;
    std::vector<double> event_ms, span_ms, host_ms;
    for (int t = 0; t < options.repeats; ++t) {
        const int instance = draw(kernel.instances);
        make_ready(kernel, instance);
        CML_CHECK(cudaDeviceSynchronize());  // an idle GPU: the host's clock starts with the GPU's work
        if (kernel.whole_pipeline) {
            if (options.flush_l2) flush_l2(t);
            CML_CHECK(cudaDeviceSynchronize());  // the flush is not the pipeline's: done before the clock starts
            const Clock::time_point host_start = Clock::now();
            kernel.launch(instance);
            CML_CHECK(cudaDeviceSynchronize());  // device-wide: work left on any stream ends before the clock stops
            host_ms.push_back(ms_since(host_start));
        } else {
            const Clock::time_point host_start = Clock::now();
            CML_CHECK(cudaEventRecord(before.get()));
            if (options.flush_l2) flush_l2(t);
            CML_CHECK(cudaEventRecord(start.get()));
            kernel.launch(instance);
            CML_CHECK(cudaEventRecord(stop.get()));
            CML_CHECK(cudaDeviceSynchronize());  // device-wide: work left on any stream ends before the clock stops
            host_ms.push_back(ms_since(host_start));
            event_ms.push_back(stop.ms_since(start));
            span_ms.push_back(stop.ms_since(before));
        }

        const std::string launch = "timed launch " + std::to_string(t + 1) + " of " + std::to_string(options.repeats);
        note_cache_change(launch);
        if (!suspected(kernel)) continue;
        // Every timed launch of the student's is looked at: a skipped or partial launch leaves poison behind.
        const bool in_full = verify[std::size_t(t)] || !kernel.spot_check;
        note_wrong(launch, look_at(kernel, instance, in_full));
        timed.verified += in_full ? 1 : 0;
        ++timed.checked;
    }
    CML_CHECK(cudaGetLastError());

    timed.host_median_ms = summarize(host_ms).median_ms;
    if (kernel.whole_pipeline) {
        timed.timing = summarize(host_ms);  // the host's clock is the time: nothing else to compare it with
        return timed;
    }
    timed.timing = summarize(event_ms);
    timed.span_median_ms = summarize(span_ms).median_ms;
    timed.clock_problem = host_clock_problem(timed.host_median_ms, timed.span_median_ms);
    return timed;
}

}  // namespace cml
