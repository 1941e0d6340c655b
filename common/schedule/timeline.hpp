// The schedule check on a GPU, apart from CUPTI: what the program asked for around each watched call, and what
// the GPU's record says it did, judged as the CPU emulator judges its log (common/emu/src/schedule.hpp), with
// the findings' words shared (findings.hpp). cupti_recorder.cpp feeds it from CUPTI's callbacks and activity
// record; tests/test.cpp, from records made up on the CPU.
//
// A copy or kernel belongs to the watched call that issued it: the API call that made it (its correlation id) was
// made inside the call's NVTX range, or, where the record names no such call, it started inside the range. It is
// in flight from its issue (the API call's entry) to its end on the GPU, so that work two streams hold queued at
// once counts as overlapping even where each piece is short; as in the emulator, only the streams the program
// made count there. Times are nanoseconds of one clock (CUPTI's).
//
// A call has left work behind when a copy or kernel it issued ended after its range was popped, or when the call
// returned before waiting for it, as the emulator judges: a wait is a synchronise of its stream, of the device or
// of an event recorded after it on its stream, a query that said done, or, for the legacy default stream and
// the streams that wait for it, a cudaMemcpy or a synchronise of that stream; a cudaMemcpy's own copy is waited
// for. A GPU may end such work before the call returns all the same (a cudaFree waits for the device), but
// nothing in the program said so, and the caller's read of a copy back is then a race.
//
// A call that expects pinned copies must have copied at least its input's bytes to the GPU and its output's back,
// in all its copies of each direction, pinned or not: a kernel that reads or writes host memory directly (mapped,
// or at a pinned buffer's host address) copies nothing.
//
// The GPU's times are converted to the host's clock, and may lead it by a little. A wait bounds them: a piece of
// work has ended by the time a wait for it returned, so that a copy the pipeline waited for never counts as
// running past the call's end, nor as overlapping what was issued after that wait.
//
// Apart from the findings, a measurement for the learner, never graded: how long a call's copies and its kernels
// each took on the GPU, and how long they ran side by side (overlapped_time), for each call that expects two
// streams. It reads the GPU's own start and end of each copy and kernel, all of one clock, with no bound from the
// host's waits.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "findings.hpp"

namespace cml::schedule {

// A copy between the host and the GPU, or a kernel, as the GPU's activity record has it.
struct Activity {
    Work work = Work::kernel;
    std::uint32_t stream = 0;          // the record's stream id
    bool pageable = false;             // a copy whose host side is pageable memory
    bool async = false;                // a cudaMemcpy*Async
    std::uint64_t start = 0, end = 0;  // on the GPU
    std::uint32_t correlation = 0;     // of the API call that issued it (0: none)
    std::uint64_t bytes = 0;           // a copy's
};

struct WatchedCall {
    CallMark mark;
    std::uint64_t pushed = 0, popped = 0;
    bool returned = false;  // its range was popped
    int streams_left = 0, events_left = 0, pinned_left = 0;  // made or pinned in it, alive when it returned
    int managed_left = 0;  // managed allocations made in it, not freed when it returned
    int device_left = 0;   // device buffers allocated in it, not freed when it returned
};

class Timeline {
public:
    // The NVTX ranges: a "cml call: " range, when no watched call is open, starts one.
    void range_pushed(const std::string& message, std::uint64_t at);
    void range_popped(std::uint64_t at);
    // Any runtime or driver API call, at its entry and as it returns.
    void api_entered(std::uint32_t correlation, std::uint64_t at);
    void api_returned(std::uint32_t correlation, std::uint64_t at);
    // A call that waited for a stream's work (`device_wide`: for all of it) returned, at `at`; a wait for the
    // legacy default stream waits for the blocking streams too.
    void synchronised(std::uint32_t correlation, bool device_wide, std::uint32_t stream, std::uint64_t at);
    // A cudaMemcpy (not Async) returned: it waited for the legacy default stream, as a synchronise of it does.
    void copied_synchronously(std::uint32_t correlation, std::uint64_t at);
    void event_recorded(std::uintptr_t handle, std::uint32_t stream, std::uint32_t correlation);
    void event_synchronised(std::uintptr_t handle, std::uint64_t at);  // or queried, and found done

    void stream_created(std::uintptr_t handle, std::uint32_t id, bool blocking = true);
    void stream_destroyed(std::uintptr_t handle);
    void event_created(std::uintptr_t handle);
    void event_destroyed(std::uintptr_t handle);
    void pinned(std::uintptr_t start);  // cudaMallocHost, cudaHostAlloc, cudaHostRegister
    void unpinned(std::uintptr_t start);  // cudaFreeHost, cudaHostUnregister
    void managed_allocated(std::uintptr_t start);  // cudaMallocManaged
    void managed_freed(std::uintptr_t start);      // cudaFree
    void device_allocated(std::uintptr_t start);   // cudaMalloc, cudaMallocAsync, cudaMallocPitch
    void device_freed(std::uintptr_t start);       // cudaFree, cudaFreeAsync

    // A GPU page fault on managed memory, as the driver began to serve it. A call that expects prefetching is
    // judged by the faults that began inside its range, and only where they were counted from before the call
    // began: otherwise it is a finding (not measured), never a pass. `why` says why they were not counted.
    void page_fault(std::uint64_t at) { faults_.push_back(at); }
    void faults_counted_from(std::uint64_t at) { faults_counted_from_ = at; }
    void faults_not_counted(const std::string& why) { faults_not_counted_ = why; }

    void add(const Activity& activity) { activities_.push_back(activity); }

    std::size_t calls() const { return calls_.size(); }  // the watched calls seen so far

    // Every watched call's findings, in the order of the calls; then the overlap aspect's measurement.
    void judge(Findings& findings) const;

    // Of each watched call that expects two streams, in order, its copies' and its kernels' time on the GPU, and
    // how long they ran at once.
    std::vector<CopyTime> copies_overlapped() const;

private:
    struct Issue {
        std::size_t call;
        std::uint64_t at;
        std::uint64_t returned = 0;  // 0: not yet
    };
    struct Wait {
        bool device_wide;
        bool legacy;             // the legacy default stream, and the blocking streams with it
        std::uint32_t stream;
        std::uint64_t covers;    // the work issued up to this time
        std::uint64_t returned;
    };
    struct Recorded {
        std::uint32_t stream;
        std::uint64_t at;
    };
    bool in_call() const { return call_depth_ >= 0; }
    std::size_t current() const { return calls_.size() - 1; }
    void call_returned(std::uint64_t at);
    void judge_call(std::size_t index, Findings& findings) const;
    // When the call `index` issued `a` (or, where the record ties it to no API call, when it started inside the
    // call); none where the call did not.
    std::optional<std::uint64_t> issued_by(std::size_t index, const Activity& a) const;
    bool default_stream(std::uint32_t id) const { return own_streams_.count(id) == 0; }
    bool covers(const Wait& w, const Activity& a, std::uint64_t issued) const;
    std::uint64_t known_done(const Activity& a, std::uint64_t issued) const;
    bool waited_for(const Activity& a, std::uint64_t issued, std::uint64_t by) const;
    void wait(std::uint32_t correlation, Wait w);

    std::vector<WatchedCall> calls_;
    std::vector<Activity> activities_;
    std::map<std::uint32_t, Issue> issued_;    // correlation id -> the watched call it was made in, and when
    std::vector<Wait> waits_;                  // the synchronises made in watched calls
    std::set<std::uint32_t> own_streams_;      // the ids of the streams the program created
    std::set<std::uint32_t> non_blocking_;     // of those, the ones that do not wait for the legacy default stream
    std::map<std::uintptr_t, Recorded> recorded_;  // event -> its stream and the time of its last record
    std::map<std::uintptr_t, bool> streams_;   // handle -> made in the open watched call
    std::map<std::uintptr_t, bool> events_;
    std::set<std::uintptr_t> pinned_;          // every start pinned now
    std::set<std::uintptr_t> pinned_in_call_;  // pinned during the open watched call
    std::set<std::uintptr_t> managed_;         // every managed allocation alive now
    std::set<std::uintptr_t> managed_in_call_;  // allocated during the open watched call
    std::set<std::uintptr_t> device_;          // every device buffer alive now
    std::set<std::uintptr_t> device_in_call_;  // allocated during the open watched call
    std::vector<std::uint64_t> faults_;        // the GPU's page faults on managed memory
    std::uint64_t faults_counted_from_ = UINT64_MAX;  // when counting the faults began; never, as yet
    std::string faults_not_counted_;           // why they were not counted
    int depth_ = 0;                            // NVTX ranges open
    int call_depth_ = -1;                      // the open watched call's depth, -1 when none is open
};

// The most streams with work in flight at once among `work` (intervals [issued, end]); an end and an issue at
// the same time do not overlap.
struct Interval {
    std::uint32_t stream;
    std::uint64_t from, to;
};
int most_streams_busy(std::vector<Interval> work);

// The time the `copies` took (the union of their intervals [from, to]), the time the `kernels` took (the union
// of theirs), and how long both ran at once. Exact: the intervals' ends are whole nanoseconds. The intervals'
// streams do not matter.
CopyTime overlapped_time(const std::vector<Interval>& copies, const std::vector<Interval>& kernels);

}  // namespace cml::schedule
