#include "schedule.hpp"

#include <algorithm>
#include <cstring>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "options.hpp"
#include "runtime_state.hpp"
#include "schedule/findings.hpp"

namespace cml_emu::schedule {
namespace {

namespace words = cml::schedule;  // the findings' words, shared with the GPU's recorder
using words::Work;

struct Pending {
    Work work;
    std::uint64_t sequence;      // its place on its stream
    std::uintptr_t host = 0;     // a copy's host side
    std::size_t bytes = 0;
};

struct Stream {
    int number = 0;              // 0: the default stream; then in order of creation
    bool blocking = true;        // waits for the legacy default stream, and it for this one
    bool made_in_call = false;   // created during the watched call
    std::uint64_t next = 0;
    std::vector<Pending> pending;
};

struct Event {
    cudaStream_t stream = nullptr;
    std::uint64_t up_to = 0;     // the work of its stream before it was recorded
    bool made_in_call = false;
};

struct Call {
    std::string name;
    bool expects_pinned = false;
    bool expects_overlap = false;
    bool expects_prefetched = false;
    unsigned long long bytes_in = 0, bytes_out = 0;    // what its copies must carry, each way (the mark's)
    unsigned long long copied_in = 0, copied_out = 0;  // what they did
    int most_streams_busy = 0;   // the most streams with work in flight at once during the call
    bool enqueued = false;       // any work at all
    std::set<std::uintptr_t> pinned;  // pinned during the call, not yet unpinned
    std::set<std::uintptr_t> managed;  // allocated during the call
    std::set<std::uintptr_t> device;   // device buffers allocated during the call
};

// A managed allocation, and whether a GPU would hold all of its pages now.
struct ManagedPages {
    std::size_t bytes = 0;
    bool on_device = false;  // the host's, or nowhere yet, until a prefetch or a kernel brings them
};

struct Log {
    std::mutex mutex;
    std::map<std::uintptr_t, std::size_t> pinned;  // start -> bytes
    std::map<cudaStream_t, Stream> streams{{nullptr, Stream{}}};
    std::vector<Stream> retired;         // destroyed with work still queued, which runs to its end all the same
    std::map<cudaEvent_t, Event> events;
    std::map<std::uintptr_t, ManagedPages> managed;  // by start
    std::set<std::uintptr_t> device;     // device buffers alive, by start
    int streams_made = 0;
    int depth = 0;                       // NVTX ranges open
    int call_depth = -1;                 // the depth of the watched call's range, -1 when none is open
    Call call;
    words::Findings findings{options().schedule_aspects};  // by text: one finding however many calls repeat it
};

Log& log()
{
    static Log* l = new Log;  // never destroyed: the exit handler reads it
    return *l;
}

bool in_call(const Log& l) { return l.call_depth >= 0; }

// The legacy default stream: cudaStreamLegacy, and the null stream.
cudaStream_t canonical(cudaStream_t stream)
{
    return stream == cudaStreamLegacy || stream == cudaStreamPerThread ? nullptr : stream;
}

Stream& stream_of(Log& l, cudaStream_t stream)
{
    auto it = l.streams.find(canonical(stream));
    if (it != l.streams.end()) return it->second;
    return l.streams[nullptr];  // a handle the log never saw created: as the default stream
}

bool is_default(const Stream& s) { return s.number == 0; }

void note_busy(Log& l)
{
    if (!in_call(l)) return;
    int busy = 0;
    for (const auto& [handle, s] : l.streams) busy += handle != nullptr && !s.pending.empty();
    for (const Stream& s : l.retired) busy += !s.pending.empty();
    l.call.most_streams_busy = std::max(l.call.most_streams_busy, busy);
    l.call.enqueued = true;
}

void enqueue(Log& l, cudaStream_t stream, Pending work)
{
    Stream& s = stream_of(l, stream);
    work.sequence = s.next++;
    s.pending.push_back(work);
    note_busy(l);
}

// What the legacy default stream waits for: its own work and that of every blocking stream.
void wait_for_legacy_default(Log& l)
{
    for (auto& [handle, s] : l.streams)
        if (s.blocking) s.pending.clear();
    l.retired.erase(std::remove_if(l.retired.begin(), l.retired.end(), [](const Stream& s) { return s.blocking; }),
                    l.retired.end());
}

bool is_pinned(const Log& l, std::uintptr_t start, std::size_t bytes)
{
    auto it = l.pinned.upper_bound(start);
    if (it == l.pinned.begin()) return false;
    --it;
    return start >= it->first && start + bytes <= it->first + it->second;
}

void call_started(Log& l, const words::CallMark& mark)
{
    l.call = Call{};
    l.call.name = mark.name;
    l.call.expects_pinned = mark.expects_pinned;
    l.call.expects_overlap = mark.expects_overlap;
    l.call.expects_prefetched = mark.expects_prefetched;
    l.call.bytes_in = mark.bytes_in;
    l.call.bytes_out = mark.bytes_out;
    l.call_depth = l.depth;
}

// The end of a watched call: what it left behind.
void call_returned(Log& l)
{
    const std::string& name = l.call.name;
    // The races first: a copy back still queued is what the caller reads next.
    for (const bool copies_back : {true, false}) {
        auto report_pending = [&](const Stream& s) {
            for (const Pending& p : s.pending) {
                if ((p.work == Work::copy_out) != copies_back) continue;
                l.findings.add(words::kReturned, words::left_queued(name, p.work, is_default(s)));
            }
        };
        for (const Stream& s : l.retired) report_pending(s);
        for (const auto& [handle, s] : l.streams) report_pending(s);
    }
    l.retired.clear();  // the test program's next synchronise waits for it
    for (auto& [handle, s] : l.streams) {
        s.pending.clear();
        if (s.made_in_call) {
            l.findings.add(words::kReturned, words::stream_left_alive(name, is_default(s)));
            s.made_in_call = false;
        }
    }
    for (auto& [handle, e] : l.events) {
        if (!e.made_in_call) continue;
        l.findings.add(words::kReturned, words::event_left_alive(name));
        e.made_in_call = false;
    }
    for (std::uintptr_t start : l.call.pinned) {
        if (!l.pinned.count(start)) continue;
        l.findings.add(words::kReturned, words::pinned_left_pinned(name));
    }
    for (std::uintptr_t start : l.call.managed) {
        if (!l.managed.count(start)) continue;
        l.findings.add(words::kReturned, words::managed_left_allocated(name));
    }
    for (std::uintptr_t start : l.call.device) {
        if (!l.device.count(start)) continue;
        l.findings.add(words::kReturned, words::device_left_allocated(name));
    }
    if (l.call.expects_pinned && l.call.copied_in < l.call.bytes_in)
        l.findings.add(words::kPinned, words::not_copied(name, false, l.call.copied_in == 0));
    if (l.call.expects_pinned && l.call.copied_out < l.call.bytes_out)
        l.findings.add(words::kPinned, words::not_copied(name, true, l.call.copied_out == 0));
    if (l.call.expects_overlap && l.call.enqueued && l.call.most_streams_busy < 2)
        l.findings.add(words::kOverlap, words::never_overlapped(name, l.call.most_streams_busy));
    l.call_depth = -1;
}

}  // namespace

bool on() { return options().schedule; }

void pinned(const void* start, std::size_t bytes)
{
    if (!on() || !start) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    const auto at = reinterpret_cast<std::uintptr_t>(start);
    l.pinned[at] = bytes;
    if (in_call(l)) l.call.pinned.insert(at);
}

void unpinned(const void* start)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    l.pinned.erase(reinterpret_cast<std::uintptr_t>(start));
}

void stream_created(cudaStream_t stream, bool blocking)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    Stream s;
    s.number = ++l.streams_made;
    s.blocking = blocking;
    s.made_in_call = in_call(l);
    l.streams[stream] = s;
}

void stream_destroyed(cudaStream_t stream)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    auto it = l.streams.find(stream);
    if (it == l.streams.end() || stream == nullptr) return;
    if (!it->second.pending.empty()) {
        l.retired.push_back(it->second);
        l.retired.back().made_in_call = false;
    }
    l.streams.erase(it);
}

void event_created(cudaEvent_t event)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    l.events[event] = Event{nullptr, 0, in_call(l)};
}

void event_destroyed(cudaEvent_t event)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    l.events.erase(event);
}

void event_recorded(cudaEvent_t event, cudaStream_t stream)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    auto it = l.events.find(event);
    if (it == l.events.end()) return;
    it->second.stream = canonical(stream);
    it->second.up_to = stream_of(l, stream).next;
}

void host_copy(const void* host, std::size_t span, std::size_t moved, bool to_host, cudaStream_t stream, bool async)
{
    if (!on() || moved == 0) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    const auto at = reinterpret_cast<std::uintptr_t>(host);
    if (in_call(l)) (to_host ? l.call.copied_out : l.call.copied_in) += moved;
    if (in_call(l) && l.call.expects_pinned && !is_pinned(l, at, span))
        l.findings.add(words::kPinned, words::pageable_copy(l.call.name, to_host, async));
    if (async) {
        enqueue(l, stream, Pending{to_host ? Work::copy_out : Work::copy_in, 0, at, moved});
        return;
    }
    // A copy the host waits for runs on the legacy default stream, after its work and the blocking streams'.
    if (in_call(l)) l.call.enqueued = true;
    wait_for_legacy_default(l);
}

namespace {

// The managed allocation that holds `address`, or none.
ManagedPages* managed_at(Log& l, std::uintptr_t address)
{
    auto it = l.managed.upper_bound(address);
    if (it == l.managed.begin()) return nullptr;
    --it;
    return address < it->first + it->second.bytes ? &it->second : nullptr;
}

}  // namespace

void kernel(cudaStream_t stream, const void* arguments, std::size_t argument_bytes)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    enqueue(l, stream, Pending{Work::kernel, 0, 0, 0});
    // A pointer argument is a whole word at a word's offset in the arguments' tuple.
    const auto* bytes = static_cast<const unsigned char*>(arguments);
    for (std::size_t at = 0; arguments && at + sizeof(std::uintptr_t) <= argument_bytes; at += alignof(void*)) {
        std::uintptr_t word = 0;
        std::memcpy(&word, bytes + at, sizeof word);
        ManagedPages* pages = managed_at(l, word);
        if (!pages || pages->on_device) continue;
        if (in_call(l) && l.call.expects_prefetched) l.findings.add(words::kPrefetched, words::page_faulted(l.call.name));
        pages->on_device = true;  // faulted in, page by page: the GPU's now
    }
}

void managed_allocated(const void* start, std::size_t bytes)
{
    if (!on() || !start) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    const auto at = reinterpret_cast<std::uintptr_t>(start);
    l.managed[at] = ManagedPages{bytes, false};
    if (in_call(l)) l.call.managed.insert(at);
}

void managed_freed(const void* start)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    l.managed.erase(reinterpret_cast<std::uintptr_t>(start));
}

void device_allocated(const void* start)
{
    if (!on() || !start) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    const auto at = reinterpret_cast<std::uintptr_t>(start);
    l.device.insert(at);
    if (in_call(l)) l.call.device.insert(at);
}

void device_freed(const void* start)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    l.device.erase(reinterpret_cast<std::uintptr_t>(start));
}

void prefetched(const void* start, std::size_t bytes, bool to_device, cudaStream_t stream)
{
    if (!on() || bytes == 0) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    const auto at = reinterpret_cast<std::uintptr_t>(start);
    if (ManagedPages* pages = managed_at(l, at)) {
        const bool whole = l.managed.count(at) > 0 && bytes >= pages->bytes;
        if (!to_device) pages->on_device = false;
        else if (whole) pages->on_device = true;
    }
    // It runs on its stream like a copy, and a prefetch to the host is what the caller reads next.
    enqueue(l, stream, Pending{to_device ? Work::copy_in : Work::copy_out, 0, at, bytes});
}

void synchronised_device()
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    for (auto& [handle, s] : l.streams) s.pending.clear();
    l.retired.clear();
}

void synchronised_stream(cudaStream_t stream)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    if (canonical(stream) == nullptr) {
        wait_for_legacy_default(l);
        return;
    }
    stream_of(l, stream).pending.clear();
}

void synchronised_event(cudaEvent_t event)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    auto it = l.events.find(event);
    if (it == l.events.end()) return;
    std::vector<Pending>& pending = stream_of(l, it->second.stream).pending;
    const std::uint64_t up_to = it->second.up_to;
    pending.erase(std::remove_if(pending.begin(), pending.end(), [&](const Pending& p) { return p.sequence < up_to; }),
                  pending.end());
}

void range_pushed(const char* message)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    const std::optional<words::CallMark> mark = words::call_mark(message ? message : "");
    if (!in_call(l) && mark) {
        report_at_exit();
        call_started(l, *mark);
    }
    ++l.depth;
}

void range_popped()
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    if (l.depth > 0) --l.depth;
    if (in_call(l) && l.depth == l.call_depth) call_returned(l);
}

bool print_summary()
{
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    return l.findings.print(stderr, options().print_limit) > 0;
}

}  // namespace cml_emu::schedule
