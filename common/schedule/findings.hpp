// What the schedule check says about a watched call (cml/watched_call.hpp), worded once for both of its makers:
// the CPU emulator's log of the runtime calls (common/emu/src/schedule.cpp) and, on a GPU, the CUPTI recorder
// (cupti_recorder.cpp). Both print the same findings and summary, so the grader reads either the same way
// (grader/steps/sanitize.py).
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace cml::schedule {

// The aspects a check reports, as CML_EMU_SCHEDULE or CML_SCHEDULE names them (a comma list; "" for all).
constexpr const char* kPinned = "pinned";
constexpr const char* kOverlap = "overlap";
constexpr const char* kReturned = "returned";
constexpr const char* kPrefetched = "prefetched";

// A watched call, from its NVTX range's message "cml call: NAME; expects: ...".
struct CallMark {
    std::string name;
    // "pinned copies of IN bytes in and OUT bytes out": every copy between the host and the GPU from pinned
    // memory, and copies to the GPU of at least IN bytes in all, to the host of at least OUT
    bool expects_pinned = false;
    unsigned long long bytes_in = 0, bytes_out = 0;
    bool expects_overlap = false;  // "2 streams": a copy and a kernel of two streams that may run at once
    // "prefetched": no kernel takes page faults on managed memory, and results the host reads were prefetched back
    bool expects_prefetched = false;
    // "; buffers: in 0xIN of IN bytes, out 0xOUT of OUT bytes": where the caller's input and output are, in the
    // program's own memory, and their sizes (which then stand for the pinned copies' too)
    std::uintptr_t in = 0, out = 0;
};

// The mark of a range's message, none when the range is not a watched call's.
std::optional<CallMark> call_mark(const std::string& message);

enum class Work : unsigned char { copy_in, copy_out, kernel };

// The findings' words. None names a stream's number or a size: the same mistake, call after call, is one
// finding, counted.
std::string pageable_copy(const std::string& call, bool to_host, bool async);
// Copies that carried less than the call's input from the caller's in to a device buffer a kernel was then given
// (to_host: less than its output from a device buffer a kernel was given back to the caller's out), as
// data_path.hpp follows them; `none`: nothing at all.
std::string not_copied(const std::string& call, bool to_host, bool none);
// A kernel of a call that moves its data by copies reached host memory itself.
std::string kernel_reached_host(const std::string& call);
// On a GPU: the recorder could not read a launch's arguments, so the data's path was not followed: never a pass.
std::string arguments_not_read_finding(const std::string& call, const std::string& why);
std::string left_queued(const std::string& call, Work work, bool default_stream);  // a copy back: the caller's race
// A copy to the host read device bytes that a kernel wrote, or a kernel wrote bytes a copy to the host was still
// to read, with nothing ordering the two.
std::string unordered_copy_back(const std::string& call, bool kernel_first);
// The host read bytes of a copy to the host before it waited for that copy: the caller's out holds what the
// memory held before the copy.
std::string read_before_waiting(const std::string& call);
std::string stream_left_alive(const std::string& call, bool default_stream);
std::string event_left_alive(const std::string& call);
std::string pinned_left_pinned(const std::string& call);
std::string managed_left_allocated(const std::string& call);
std::string device_left_allocated(const std::string& call);  // cudaMalloc, cudaMallocAsync or cudaMallocPitch
// No copy and kernel of two streams could run at once: each was ordered after the other, or waited for, first.
std::string never_overlapped(const std::string& call);
// On a GPU, over every call that expects two streams: no copy ran beside a kernel at all, by the GPU's own times.
std::string never_overlapped_on_the_gpu(const std::string& call);
std::string page_faulted(const std::string& call);  // a kernel touched managed memory not prefetched to the GPU
// The host read results a kernel wrote in managed memory with no prefetch of them back to the host after it.
std::string not_prefetched_back(const std::string& call);
std::string faults_not_measured(const std::string& call, const std::string& why);

// One call's copies between the host and the GPU and its kernels: the time each took on the GPU (the union of
// their intervals), and how long both ran at once, in nanoseconds.
struct CopyTime {
    unsigned long long copying = 0, computing = 0, beside = 0;
};

// The overlap aspect's measurement, from each call that expects two streams: the share of all their copies' time
// on the GPU that a kernel ran beside, and of all their kernels' time that a copy ran beside, weighted by time
// so that the calls that copied most count most (a call of a few floats has one chunk, and no kernel to hide its
// copies behind), then the same of the call that copied longest; or, where no call copied for any time, that
// there is no figure. Where a kernel is shorter than its copies, as in Lab 10, the copies' share can reach only
// the kernels' time over the copies', and the kernels' share is the one a good pipeline brings near 100%. A
// GPU's only: the emulator runs every call at once, and measures none.
std::string overlap_figure(const std::vector<CopyTime>& calls);
std::string no_overlap_figure(const std::string& why);

// The findings of one run, each once with the number of times it was seen, in the order first seen.
class Findings {
public:
    explicit Findings(std::string aspects = "") : aspects_(std::move(aspects)) {}

    bool reports(const std::string& aspect) const;  // the aspect is one of those asked for
    void add(const std::string& aspect, const std::string& text);

    std::size_t size() const { return texts().size(); }
    unsigned long long count(const std::string& text) const;  // times seen, under every aspect
    std::vector<std::string> texts() const;                    // each once, in the order first seen

    // What was measured of an aspect, for the learner to read: never a finding, and no part of the summaries.
    // The last said of an aspect stands.
    void measured(const std::string& aspect, const std::string& text);

    // Each aspect asked for in turn: its findings (the first `print_limit`), its measurement where it has one
    // ("SCHEDULE MEASURED (overlap): ...") and its own summary line ("SCHEDULE SUMMARY (pinned): 0 errors"), so
    // that one run serves a check per aspect; then the summary of them all, as compute-sanitizer prints its own.
    // The number of findings.
    unsigned long long print(std::FILE* to, int print_limit) const;

private:
    struct Found {
        std::string aspect, text;
        unsigned long long times;
    };
    std::string aspects_;
    std::vector<Found> found_;  // each (aspect, text) once, in the order first seen: a run has a few
    std::vector<std::pair<std::string, std::string>> measured_;  // (aspect, text), each aspect once
};

}  // namespace cml::schedule
