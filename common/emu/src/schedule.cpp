#include "schedule.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "options.hpp"
#include "runtime_state.hpp"

namespace cml_emu::schedule {
namespace {

constexpr const char* kPrefix = "=========";
constexpr const char* kCallPrefix = "cml call: ";
constexpr const char* kExpects = "; expects: ";

enum class Work : std::uint8_t { copy_in, copy_out, kernel };

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
    int most_streams_busy = 0;   // the most streams with work in flight at once during the call
    bool enqueued = false;       // any work at all
    std::set<std::uintptr_t> pinned;  // pinned during the call, not yet unpinned
};

struct Finding {
    std::string aspect;  // pinned, overlap or returned
    std::string text;
    unsigned long long count = 0;
};

struct Log {
    std::mutex mutex;
    std::map<std::uintptr_t, std::size_t> pinned;  // start -> bytes
    std::map<cudaStream_t, Stream> streams{{nullptr, Stream{}}};
    std::vector<Stream> retired;         // destroyed with work still queued, which runs to its end all the same
    std::map<cudaEvent_t, Event> events;
    int streams_made = 0;
    int depth = 0;                       // NVTX ranges open
    int call_depth = -1;                 // the depth of the watched call's range, -1 when none is open
    Call call;
    std::map<std::string, Finding> findings;  // by text: one finding however many calls repeat it
    std::vector<std::string> order;
};

Log& log()
{
    static Log* l = new Log;  // never destroyed: the exit handler reads it
    return *l;
}

bool aspect_on(const std::string& aspect)
{
    const std::string& wanted = options().schedule_aspects;
    if (wanted.empty()) return true;
    return ("," + wanted + ",").find("," + aspect + ",") != std::string::npos;
}

void add(Log& l, const std::string& aspect, const std::string& text)
{
    if (!aspect_on(aspect)) return;
    Finding& f = l.findings[text];
    if (f.count++ == 0) {
        f.aspect = aspect;
        f.text = text;
        l.order.push_back(text);
    }
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

// Findings name no stream's number, nor any size: the same mistake, call after call, is one finding, counted.
std::string stream_name(const Stream& s) { return s.number == 0 ? "the default stream" : "a stream of its own"; }

const char* work_name(Work work)
{
    switch (work) {
    case Work::copy_in: return "the copy to the GPU";
    case Work::copy_out: return "the copy to the host";
    default: return "the kernel";
    }
}

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

void call_started(Log& l, const std::string& message)
{
    l.call = Call{};
    const std::size_t expects = message.find(kExpects);
    l.call.name = message.substr(std::string(kCallPrefix).size(),
                                 expects == std::string::npos ? std::string::npos
                                                              : expects - std::string(kCallPrefix).size());
    const std::string wanted = expects == std::string::npos ? "" : message.substr(expects);
    l.call.expects_pinned = wanted.find("pinned copies") != std::string::npos;
    l.call.expects_overlap = wanted.find("2 streams") != std::string::npos;
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
                if (copies_back)
                    add(l, "returned",
                        "Race reported between Write access by the copy to the host on " + stream_name(s) +
                            " and Read access by the caller of " + name +
                            ", which returned before synchronising that stream");
                else
                    add(l, "returned",
                        "Schedule error: " + name + " returned with " + work_name(p.work) + " still queued on " +
                            stream_name(s) + ": work left running after the function returns");
            }
        };
        for (const Stream& s : l.retired) report_pending(s);
        for (const auto& [handle, s] : l.streams) report_pending(s);
    }
    l.retired.clear();  // the test program's next synchronise waits for it
    for (auto& [handle, s] : l.streams) {
        s.pending.clear();
        if (s.made_in_call) {
            add(l, "returned",
                "Schedule error: " + name + " returned with " + stream_name(s) +
                    " still alive: cudaStreamDestroy every stream you create");
            s.made_in_call = false;
        }
    }
    for (auto& [handle, e] : l.events) {
        if (!e.made_in_call) continue;
        add(l, "returned", "Schedule error: " + name + " returned with an event it created still alive: "
                           "cudaEventDestroy every event you create");
        e.made_in_call = false;
    }
    for (std::uintptr_t start : l.call.pinned) {
        if (!l.pinned.count(start)) continue;
        add(l, "returned", "Schedule error: " + name + " returned with host memory it pinned still pinned: "
                           "cudaFreeHost or cudaHostUnregister what you pin, before you return");
    }
    if (l.call.expects_overlap && l.call.enqueued && l.call.most_streams_busy < 2)
        add(l, "overlap",
            "Schedule error: " + name + " never had work in flight on two streams at once (at most " +
                std::to_string(l.call.most_streams_busy) +
                "): each chunk's copies and kernel on its stream, with no synchronise between chunks");
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

void host_copy(const void* host, std::size_t bytes, bool to_host, cudaStream_t stream, bool async)
{
    if (!on() || bytes == 0) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    const auto at = reinterpret_cast<std::uintptr_t>(host);
    if (in_call(l) && l.call.expects_pinned && !is_pinned(l, at, bytes))
        add(l, "pinned",
            "Schedule error: " + l.call.name + " copied " + (to_host ? "to" : "from") +
                " pageable host memory (" + std::string(async ? "cudaMemcpyAsync" : "cudaMemcpy") +
                "): the copy engine reads and writes only pinned memory, so the driver stages it through a "
                "small buffer of its own, a piece at a time");
    if (async) {
        enqueue(l, stream, Pending{to_host ? Work::copy_out : Work::copy_in, 0, at, bytes});
        return;
    }
    // A copy the host waits for runs on the legacy default stream, after its work and the blocking streams'.
    if (in_call(l)) l.call.enqueued = true;
    wait_for_legacy_default(l);
}

void kernel(cudaStream_t stream)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    enqueue(l, stream, Pending{Work::kernel, 0, 0, 0});
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
    const std::string text = message ? message : "";
    if (!in_call(l) && text.rfind(kCallPrefix, 0) == 0) {
        report_at_exit();
        call_started(l, text);
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
    int shown = 0;
    unsigned long long errors = 0;
    for (const std::string& text : l.order) {
        const Finding& f = l.findings[text];
        errors += 1;
        if (shown++ >= options().print_limit) continue;
        std::fprintf(stderr, "%s %s\n%s     (%llu time%s)\n%s\n", kPrefix, f.text.c_str(), kPrefix, f.count,
                     f.count == 1 ? "" : "s", kPrefix);
    }
    std::fprintf(stderr, "%s SCHEDULE SUMMARY: %llu error%s\n", kPrefix, errors, errors == 1 ? "" : "s");
    return errors > 0;
}

}  // namespace cml_emu::schedule
