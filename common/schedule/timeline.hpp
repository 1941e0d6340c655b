// The schedule check on a GPU, apart from CUPTI: what the program asked for around each watched call, and what
// the GPU's record says it did, judged as the CPU emulator judges its log (common/emu/src/schedule.hpp), with
// the findings' words and rules shared (findings.hpp, order.hpp, data_path.hpp, managed_places.hpp).
// cupti_recorder.cpp feeds it from CUPTI's callbacks and activity record; tests/test.cpp, from records made up on
// the CPU.
//
// A copy or kernel belongs to the watched call that issued it: the API call that made it (its correlation id) was
// made inside the call's NVTX range, or, where the record names no such call, it started inside the range.
// Times are nanoseconds of one clock (CUPTI's).
//
// A call has left work behind when a copy or kernel it issued ended after its range was popped, or when the call
// returned before waiting for it, as the emulator judges: a wait is a synchronise of its stream, of the device or
// of an event recorded after it on its stream, a query that said done, or, for the legacy default stream and
// the streams that wait for it, a cudaMemcpy or a synchronise of that stream; a cudaMemcpy's own copy is waited
// for. A GPU may end such work before the call returns all the same (a cudaFree waits for the device), but
// nothing in the program said so, and the caller's read of a copy back is then a race.
//
// Pinned copies: the data followed as data_path.hpp says, from the API calls as the program made them (each
// copy's host and device addresses, each launch's arguments, read in the program's process as the calls return),
// beside the activity record's own word on which copies were from pageable memory.
//
// Overlap: judged from the GPU's own times, over all the calls that expect two streams together: some copy and
// some kernel of theirs ran at the same time for some of it. A call of a few floats has chunks too short to
// overlap on any GPU, and the benchmark's size, which the test program calls once, has chunks long enough; a
// pipeline that orders every chunk after the one before (one stream, a synchronise, a chain of events) overlaps
// nothing at any size. The same times give the measurement for the learner (overlapped_time), never graded.
//
// Prefetched: the GPU's own page faults during the call, and results the host read from managed memory with no
// prefetch back after the kernel (managed_places.hpp, in the order of order.hpp that the API calls make).
//
// The GPU's times are converted to the host's clock, and may lead it by a little. A wait bounds them: a piece of
// work has ended by the time a wait for it returned, so that a copy the pipeline waited for never counts as
// running past the call's end.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "data_path.hpp"
#include "findings.hpp"
#include "managed_places.hpp"
#include "order.hpp"

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
    std::vector<std::string> pinned_found;  // the data's path, judged as it returned, and what kept it from being
    int results_not_prefetched = 0;  // managed results the host read with no prefetch back
    int launches_read = 0;  // launches whose arguments the recorder read, to match the kernels the GPU ran
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
    void stream_waited(std::uint32_t stream, std::uintptr_t event);  // cudaStreamWaitEvent
    void event_created(std::uintptr_t handle);
    void event_destroyed(std::uintptr_t handle);
    // cudaMallocHost, cudaHostAlloc, cudaHostRegister, with the bytes and whether mapped for the GPU.
    void pinned(std::uintptr_t start, std::size_t bytes = 0, bool mapped = false);
    void releasing(std::uintptr_t start);  // cudaFreeHost, cudaHostUnregister, as they are entered
    void unpinned(std::uintptr_t start);   // and as they return
    void mapped_for_gpu(std::uintptr_t device, std::uintptr_t host);  // cudaHostGetDevicePointer
    void device_allocated(std::uintptr_t start, std::size_t bytes);  // cudaMalloc, cudaMallocPitch, cudaMallocAsync
    void device_freed(std::uintptr_t start);
    void managed_allocated(std::uintptr_t start, std::size_t bytes = 0);  // cudaMallocManaged
    void managed_freeing(std::uintptr_t start);  // cudaFree, as it is entered: the host has read what it will
    void managed_freed(std::uintptr_t start);    // cudaFree

    // The work the program issued, in its order, as each call returns: a copy between [host, host + bytes) and the
    // device at `device` (`symbol`: a __device__ or __constant__ variable; `async`: a cudaMemcpy*Async, else one
    // the host waits for, on the legacy default stream), which reads the host's bytes of a copy to the GPU now; a
    // launch given these argument words; a prefetch of managed memory. `stream` is CUPTI's id of the stream.
    void copy_issued(bool to_host, const void* host, std::uintptr_t device, std::size_t bytes, std::uint32_t stream,
                     bool async, bool symbol = false);
    void kernel_issued(std::uint32_t stream, const std::vector<std::uintptr_t>& words);
    // A launch whose arguments could not be read, and why: the data's path cannot be followed through it.
    void arguments_not_read(const std::string& why);
    void prefetch_issued(std::uintptr_t start, std::size_t bytes, bool to_device, std::uint32_t stream);

    // A GPU page fault on managed memory, as the driver began to serve it. A call that expects prefetching is
    // judged by the faults that began inside its range, and only where they were counted from before the call
    // began: otherwise it is a finding (not measured), never a pass. `why` says why they were not counted.
    void page_fault(std::uint64_t at) { faults_.push_back(at); }
    void faults_counted_from(std::uint64_t at) { faults_counted_from_ = at; }
    void faults_not_counted(const std::string& why) { faults_not_counted_ = why; }

    void add(const Activity& activity) { activities_.push_back(activity); }

    std::size_t calls() const { return calls_.size(); }  // the watched calls seen so far

    // Every watched call's findings, in the order of the calls; then the overlap aspect's, over the calls that
    // expect two streams, and its measurement.
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
    struct HostRange {
        std::size_t bytes;
        bool mapped;
    };
    struct CopyBack {  // a copy to the host the open call issued, whose bytes arrive once the host knows it is done
        Step step;
        const void* host;
        std::size_t bytes;
    };
    bool in_call() const { return call_depth_ >= 0; }
    int key(std::uint32_t stream) const;  // its key in order_: the legacy default stream's for the streams not made
    void learned();  // after a wait: the copies back the host now knows are done have arrived
    const HostRange* host_range(std::uintptr_t address, std::uintptr_t* start = nullptr) const;
    bool device_allocation(std::uintptr_t address, std::uintptr_t* start) const;
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
    Order order_;
    std::map<std::uint32_t, int> keys_;  // the streams the program made, by CUPTI's id
    ManagedPlaces managed_places_;
    std::optional<DataPath> data_;       // the open watched call's
    std::vector<CopyBack> copies_back_;  // the open watched call's
    std::map<std::uintptr_t, HostRange> host_;  // pinned host memory, and the device's aliases of mapped memory
    std::map<std::uintptr_t, std::size_t> device_;  // device and managed allocations: start -> bytes
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
    std::set<std::uintptr_t> device_in_call_;  // allocated during the open watched call
    std::vector<std::uint64_t> faults_;        // the GPU's page faults on managed memory
    std::uint64_t faults_counted_from_ = UINT64_MAX;  // when counting the faults began; never, as yet
    std::string faults_not_counted_;           // why they were not counted
    int depth_ = 0;                            // NVTX ranges open
    int call_depth_ = -1;                      // the open watched call's depth, -1 when none is open
};

// A copy's or a kernel's interval on one stream, [from, to].
struct Interval {
    std::uint32_t stream;
    std::uint64_t from, to;
};

// The time the `copies` took (the union of their intervals [from, to]), the time the `kernels` took (the union
// of theirs), and how long both ran at once. Exact: the intervals' ends are whole nanoseconds. The intervals'
// streams do not matter.
CopyTime overlapped_time(const std::vector<Interval>& copies, const std::vector<Interval>& kernels);

}  // namespace cml::schedule
