#include "schedule.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "memory.hpp"
#include "options.hpp"
#include "runtime_state.hpp"
#include "schedule/data_path.hpp"
#include "schedule/findings.hpp"
#include "schedule/managed_places.hpp"
#include "schedule/order.hpp"

namespace cml_emu::schedule {
namespace {

namespace words = cml::schedule;  // the findings' words, shared with the GPU's recorder
using words::DataPath;
using words::Order;
using words::Step;
using words::Work;
using Span = std::pair<std::uintptr_t, std::uintptr_t>;  // [from, to) of addresses

// What a copy to pinned memory owes the host until the host learns it is done: its bytes, and until then the
// memory holds this word over and over (a NaN no polynomial of a finite float makes), so that the host's early
// read of it shows in what the host wrote from it.
constexpr std::uint32_t kNotYetCopied = 0x7fc0dead;

// A copy, kernel or prefetch a watched call issued.
struct Issued {
    Work work;
    bool prefetch = false;
    bool default_stream = false;
    Step step;
    Span device{0, 0};          // a copy's device bytes
    std::vector<Span> written;  // a kernel's: the device bytes it changed
};

struct StreamInfo {
    int key = 0;
    bool made_in_call = false;
};

struct EventInfo {
    bool made_in_call = false;
    bool said_not_ready = false;  // a query already answered not ready since it was last recorded
};

struct PinnedRange {
    std::size_t bytes = 0;
    bool mapped = false;
};

// A copy to pinned memory the host has not yet learned is done: the bytes it will deliver.
struct Owed {
    Step step;
    std::uintptr_t host;
    std::vector<unsigned char> bytes;
};

// The device bytes a launch is given, as they were before it ran.
struct Before {
    std::uintptr_t start;
    std::vector<unsigned char> bytes;
};

struct Call {
    words::CallMark mark;
    std::vector<Issued> issued;
    bool could_overlap = false;
    std::set<std::uintptr_t> pinned;   // pinned during the call
    std::set<std::uintptr_t> managed;  // allocated during the call
    std::set<std::uintptr_t> device;   // device buffers allocated during the call
    std::unique_ptr<DataPath> data;
};

struct Log {
    std::mutex mutex;
    Order order;
    std::map<cudaStream_t, StreamInfo> streams;
    std::set<int> said_not_ready;  // streams a query answered not ready since work was last issued
    int next_key = 1;
    std::map<cudaEvent_t, EventInfo> events;
    std::map<std::uintptr_t, PinnedRange> pinned;  // by start
    words::ManagedPlaces managed;
    std::vector<Owed> owed;
    std::optional<std::size_t> launch;  // the running launch, in call.issued
    std::vector<Before> before;         // what it was given, before it ran
    std::set<std::uintptr_t> device;    // device buffers alive, by start
    int depth = 0;                      // NVTX ranges open
    int call_depth = -1;                // the depth of the watched call's range, -1 when none is open
    Call call;
    words::Findings findings{options().schedule_aspects};  // by text: one finding however many calls repeat it
};

Log& log()
{
    static Log* l = new Log;  // never destroyed: the exit handler reads it
    return *l;
}

bool in_call(const Log& l) { return l.call_depth >= 0; }

// The legacy default stream's key for cudaStreamLegacy, cudaStreamPerThread and the null stream, and for a handle
// the log never saw created.
int key_of(const Log& l, cudaStream_t stream)
{
    auto it = l.streams.find(stream);
    return it == l.streams.end() ? Order::kLegacy : it->second.key;
}

const PinnedRange* pinned_at(const Log& l, std::uintptr_t address, std::uintptr_t* start = nullptr)
{
    auto it = l.pinned.upper_bound(address);
    if (it == l.pinned.begin()) return nullptr;
    --it;
    if (address >= it->first + std::max<std::size_t>(it->second.bytes, 1)) return nullptr;
    if (start) *start = it->first;
    return &it->second;
}

bool is_pinned(const Log& l, std::uintptr_t start, std::size_t bytes)
{
    std::uintptr_t first = 0;
    const PinnedRange* range = pinned_at(l, start, &first);
    return range && start + bytes <= first + range->bytes;
}

bool overlaps(const Span& a, const Span& b) { return a.first < b.second && b.first < a.second; }

bool overlaps_any(const std::vector<Span>& spans, const Span& s)
{
    return std::any_of(spans.begin(), spans.end(), [&](const Span& w) { return overlaps(w, s); });
}

// Delivers the owed copies `due` picks: their bytes land, and the data's path sees them there.
template <class Due>
void deliver_if(Log& l, Due due)
{
    auto it = std::stable_partition(l.owed.begin(), l.owed.end(), [&](const Owed& o) { return !due(o); });
    for (auto d = it; d != l.owed.end(); ++d) {
        std::memcpy(reinterpret_cast<void*>(d->host), d->bytes.data(), d->bytes.size());
        if (in_call(l)) l.call.data->arrived(reinterpret_cast<const void*>(d->host), d->bytes.size());
    }
    l.owed.erase(it, l.owed.end());
}

// After a wait of the host's: what it now knows is done has delivered its bytes.
void learned(Log& l)
{
    deliver_if(l, [&](const Owed& o) { return l.order.known_done(o.step); });
}

void deliver_into(Log& l, std::uintptr_t start, std::size_t bytes)
{
    const Span range{start, start + bytes};
    deliver_if(l, [&](const Owed& o) { return overlaps(range, Span{o.host, o.host + o.bytes.size()}); });
}

// Where a copy's device side is, for the data's path: its allocation and offset there, or a __device__ or
// __constant__ variable, which every kernel reads.
DataPath::Device device_side(std::uintptr_t device)
{
    Allocation holding;
    if (device_allocation(device, &holding)) return DataPath::Device{holding.start, device - holding.start};
    return DataPath::Device{DataPath::kEveryKernel, 0};
}

DataPath::Host host_side(const Log& l, const void* host)
{
    std::uintptr_t start = 0;
    if (!pinned_at(l, std::uintptr_t(host), &start)) return DataPath::Host{host, DataPath::kNotPinned};
    return DataPath::Host{host, std::uintptr_t(host) - start};
}

// Work issued on `stream`: its place in the order, and, in a watched call, whether it and work still in flight
// on another stream could run at the same time (a copy beside a kernel, with nothing ordering them).
Step issue(Log& l, cudaStream_t stream, Work work, bool prefetch, Span device)
{
    const int key = key_of(l, stream);
    const Step step = l.order.issue(key);
    l.said_not_ready.clear();
    if (!in_call(l)) return step;
    const bool kernel = work == Work::kernel;
    for (const Issued& other : l.call.issued)
        if (other.step.stream != key && (other.work == Work::kernel) != kernel &&
            !l.order.known_done(other.step) && !l.order.before(other.step, step))
            l.call.could_overlap = true;
    l.call.issued.push_back(Issued{work, prefetch, key == Order::kLegacy, step, device, {}});
    return step;
}

void call_started(Log& l, const words::CallMark& mark)
{
    l.call = Call{};
    l.call.mark = mark;
    l.call.data = std::make_unique<DataPath>(mark);
    l.call_depth = l.depth;
}

// The host's early reads of copies it had not waited for: the caller's output holds the pattern they owed.
bool output_read_too_soon(const words::CallMark& mark)
{
    const auto* out = reinterpret_cast<const unsigned char*>(mark.out);
    for (std::size_t at = 0; out && at + sizeof kNotYetCopied <= mark.bytes_out; at += sizeof kNotYetCopied) {
        std::uint32_t word = 0;
        std::memcpy(&word, out + at, sizeof word);
        if (word == kNotYetCopied) return true;
    }
    return false;
}

// The end of a watched call: what it left behind.
void call_returned(Log& l)
{
    Call& call = l.call;
    const std::string& name = call.mark.name;
    // The races first: a copy back still owed is what the caller reads next.
    for (const bool copies_back : {true, false})
        for (const Issued& i : call.issued)
            if ((i.work == Work::copy_out) == copies_back && !l.order.known_done(i.step))
                l.findings.add(words::kReturned, words::left_queued(name, i.work, i.default_stream));
    deliver_if(l, [](const Owed&) { return true; });  // the caller's next wait would see them
    if (output_read_too_soon(call.mark)) l.findings.add(words::kReturned, words::read_before_waiting(name));
    for (auto& [handle, s] : l.streams) {
        if (!s.made_in_call) continue;
        l.findings.add(words::kReturned, words::stream_left_alive(name, false));
        s.made_in_call = false;
    }
    for (auto& [handle, e] : l.events) {
        if (!e.made_in_call) continue;
        l.findings.add(words::kReturned, words::event_left_alive(name));
        e.made_in_call = false;
    }
    for (std::uintptr_t start : call.pinned)
        if (l.pinned.count(start)) l.findings.add(words::kReturned, words::pinned_left_pinned(name));
    for (std::uintptr_t start : call.managed)
        if (l.managed.holds(start)) l.findings.add(words::kReturned, words::managed_left_allocated(name));
    for (std::uintptr_t start : call.device)
        if (l.device.count(start)) l.findings.add(words::kReturned, words::device_left_allocated(name));
    for (const std::string& text : call.data->returned()) l.findings.add(words::kPinned, text);
    if (call.mark.expects_prefetched &&
        l.managed.alive_unprefetched(reinterpret_cast<const void*>(call.mark.out), call.mark.bytes_out, l.order))
        l.findings.add(words::kPrefetched, words::not_prefetched_back(name));
    if (call.mark.expects_overlap && !call.issued.empty() && !call.could_overlap)
        l.findings.add(words::kOverlap, words::never_overlapped(name));
    l.call_depth = -1;
}

// The device bytes that differ between `before` and memory now, as spans of addresses.
void changed(const Before& before, std::vector<Span>& spans)
{
    const auto* now = reinterpret_cast<const unsigned char*>(before.start);
    const std::size_t size = before.bytes.size();
    constexpr std::size_t kBlock = 4096;  // equal blocks are skipped whole
    std::size_t at = 0;
    while (at < size) {
        const std::size_t block = std::min(kBlock, size - at);
        if (std::memcmp(now + at, before.bytes.data() + at, block) == 0) {
            at += block;
            continue;
        }
        for (const std::size_t end = at + block; at < end; ++at) {
            if (now[at] == before.bytes[at]) continue;
            const std::uintptr_t address = before.start + at;
            if (!spans.empty() && spans.back().second == address)
                spans.back().second = address + 1;
            else
                spans.emplace_back(address, address + 1);
        }
    }
}

}  // namespace

bool on() { return options().schedule; }

void pinned(const void* start, std::size_t bytes, bool mapped)
{
    if (!on() || !start) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    const auto at = reinterpret_cast<std::uintptr_t>(start);
    l.pinned[at] = PinnedRange{bytes, mapped};
    if (!in_call(l)) return;
    l.call.pinned.insert(at);
    if (mapped) l.call.data->host_memory_mapped();
}

void unpinned(const void* start)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    const auto at = reinterpret_cast<std::uintptr_t>(start);
    auto it = l.pinned.find(at);
    if (it == l.pinned.end()) return;
    deliver_into(l, at, it->second.bytes);  // a copy still owed there lands before the memory is let go
    if (in_call(l)) l.call.data->releasing(start, it->second.bytes);
    l.pinned.erase(it);
}

void mapped_for_gpu()
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    if (in_call(l)) l.call.data->host_memory_mapped();
}

void stream_created(cudaStream_t stream, bool blocking)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    const int key = l.next_key++;
    l.streams[stream] = StreamInfo{key, in_call(l)};
    l.order.stream_created(key, blocking);
}

// Its work runs to its end all the same, and stays in the order.
void stream_destroyed(cudaStream_t stream)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    l.streams.erase(stream);
}

void stream_waits(cudaStream_t stream, cudaEvent_t event)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    l.order.stream_waits(key_of(l, stream), reinterpret_cast<std::uintptr_t>(event));
}

void event_created(cudaEvent_t event)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    l.events[event] = EventInfo{in_call(l), false};
}

void event_destroyed(cudaEvent_t event)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    l.events.erase(event);
    l.order.event_destroyed(reinterpret_cast<std::uintptr_t>(event));
}

void event_recorded(cudaEvent_t event, cudaStream_t stream)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    l.order.event_recorded(reinterpret_cast<std::uintptr_t>(event), key_of(l, stream));
    l.events[event].said_not_ready = false;
}

bool stream_query(cudaStream_t stream)
{
    if (!on()) return true;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    const int key = key_of(l, stream);
    if (l.order.stream_known_done(key)) return true;
    if (l.said_not_ready.insert(key).second) return false;
    l.order.host_waited_for_stream(key);
    learned(l);
    return true;
}

bool event_query(cudaEvent_t event)
{
    if (!on()) return true;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    const auto handle = reinterpret_cast<std::uintptr_t>(event);
    if (l.order.event_known_done(handle)) return true;
    EventInfo& info = l.events[event];
    if (!info.said_not_ready) {
        info.said_not_ready = true;
        return false;
    }
    l.order.host_waited_for_event(handle);
    learned(l);
    return true;
}

void host_touched(const void* start, std::size_t bytes)
{
    if (!on() || bytes == 0) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    deliver_into(l, reinterpret_cast<std::uintptr_t>(start), bytes);
}

void host_copy(const void* host, std::size_t span, const void* device, std::size_t moved, bool to_host,
               cudaStream_t stream, bool async)
{
    if (!on() || moved == 0) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    const auto at = reinterpret_cast<std::uintptr_t>(host);
    const auto on_device = reinterpret_cast<std::uintptr_t>(device);
    const bool pinned = is_pinned(l, at, span);
    if (in_call(l) && l.call.mark.expects_pinned && !pinned)
        l.findings.add(words::kPinned, words::pageable_copy(l.call.mark.name, to_host, async));
    // A copy the host waits for runs on the legacy default stream; so, to the host, does one to pageable memory,
    // which returns only once it is done.
    const Step step = issue(l, async ? stream : nullptr, to_host ? Work::copy_out : Work::copy_in, false,
                            Span{on_device, on_device + moved});
    if (!async || (to_host && !pinned)) {
        l.order.host_waited_for(step);
        learned(l);
    }
    if (!in_call(l)) return;
    Call& call = l.call;
    if (to_host) {
        // A race where a kernel writing these device bytes is not ordered before the copy.
        for (const Issued& k : call.issued)
            if (k.work == Work::kernel && overlaps_any(k.written, call.issued.back().device) &&
                !l.order.before(k.step, step))
                l.findings.add(words::kReturned, words::unordered_copy_back(call.mark.name, true));
        call.data->copied_to_host(device_side(on_device), host_side(l, host), moved);
        // Contiguous bytes into pinned memory arrive when the host learns the copy is done, not before.
        if (l.order.known_done(step) || span != moved) {
            call.data->arrived(host, span);
        } else {
            const auto* bytes = static_cast<const unsigned char*>(host);
            l.owed.push_back(Owed{step, at, std::vector<unsigned char>(bytes, bytes + moved)});
            auto* owed = static_cast<unsigned char*>(const_cast<void*>(host));
            for (std::size_t i = 0; i < moved; ++i)
                owed[i] = static_cast<unsigned char>(kNotYetCopied >> (8 * (i % sizeof kNotYetCopied)));
        }
    } else {
        call.data->copied_to_device(host_side(l, host), device_side(on_device), moved);
    }
}

void kernel(cudaStream_t stream, const void* arguments, std::size_t argument_bytes)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    // A kernel reads mapped memory where it is: what a copy owes there has landed before it runs.
    deliver_if(l, [&](const Owed& o) {
        const PinnedRange* range = pinned_at(l, o.host);
        return range && range->mapped;
    });
    const Step step = issue(l, stream, Work::kernel, false, Span{0, 0});
    // A pointer argument is a whole word at a word's offset in the arguments' tuple.
    std::vector<std::uintptr_t> words_given;
    const auto* bytes = static_cast<const unsigned char*>(arguments);
    for (std::size_t at = 0; arguments && at + sizeof(std::uintptr_t) <= argument_bytes; at += alignof(void*)) {
        std::uintptr_t word = 0;
        std::memcpy(&word, bytes + at, sizeof word);
        words_given.push_back(word);
    }
    const bool watched = in_call(l);
    if (l.managed.kernel(words_given, step, l.order) && watched && l.call.mark.expects_prefetched)
        l.findings.add(words::kPrefetched, words::page_faulted(l.call.mark.name));
    l.before.clear();
    l.launch.reset();
    if (!watched) return;
    // What it is given, as it was: its writes are the bytes that differ after it ran.
    std::map<std::uintptr_t, Allocation> given;  // by start
    std::map<std::uintptr_t, std::uintptr_t> from;  // allocation -> the lowest pointer into it
    std::set<std::uintptr_t> allocations;
    bool reaches_host = std::any_of(l.pinned.begin(), l.pinned.end(), [](const auto& p) { return p.second.mapped; });
    const words::CallMark& mark = l.call.mark;
    for (std::uintptr_t word : words_given) {
        Allocation holding;
        if (device_allocation(word, &holding)) {
            given[holding.start] = holding;
            allocations.insert(holding.start);
            auto [it, fresh] = from.emplace(holding.start, word);
            if (!fresh) it->second = std::min(it->second, word);
            continue;
        }
        const bool callers = (word >= mark.in && word < mark.in + mark.bytes_in) ||
                             (word >= mark.out && word < mark.out + mark.bytes_out);
        reaches_host |= callers || pinned_at(l, word) != nullptr;
    }
    l.call.data->kernel(allocations, reaches_host);
    for (const auto& [start, allocation] : given) {
        const std::uintptr_t first = from[start];
        const auto* memory = reinterpret_cast<const unsigned char*>(first);
        l.before.push_back(Before{first, std::vector<unsigned char>(memory, memory + (start + allocation.size - first))});
    }
    l.launch = l.call.issued.size() - 1;
}

void kernel_ran()
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    if (!l.launch || !in_call(l)) return;
    Issued& k = l.call.issued[*l.launch];
    for (const Before& before : l.before) changed(before, k.written);
    l.before.clear();
    l.launch.reset();
    // A race where a copy to the host of these bytes, issued before, is not ordered before the kernel.
    for (const Issued& c : l.call.issued)
        if (c.work == Work::copy_out && !c.prefetch && &c != &k && overlaps_any(k.written, c.device) &&
            !l.order.before(c.step, k.step))
            l.findings.add(words::kReturned, words::unordered_copy_back(l.call.mark.name, false));
}

void managed_allocated(const void* start, std::size_t bytes)
{
    if (!on() || !start) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    const auto at = reinterpret_cast<std::uintptr_t>(start);
    l.managed.allocated(at, bytes);
    if (in_call(l)) l.call.managed.insert(at);
}

void managed_freed(const void* start)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    const words::CallMark& mark = l.call.mark;
    const bool watched = in_call(l) && mark.expects_prefetched;
    const bool unprefetched = l.managed.freed_unprefetched(
        reinterpret_cast<std::uintptr_t>(start), watched ? reinterpret_cast<const void*>(mark.out) : nullptr,
        watched ? mark.bytes_out : 0, l.order);
    if (unprefetched) l.findings.add(words::kPrefetched, words::not_prefetched_back(mark.name));
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
    // It runs on its stream like a copy, and a prefetch to the host is what the caller reads next.
    const Step step = issue(l, stream, to_device ? Work::copy_in : Work::copy_out, true, Span{at, at + bytes});
    l.managed.prefetched(at, bytes, to_device, step);
}

void synchronised_device()
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    l.order.host_waited_for_device();
    learned(l);
}

void synchronised_stream(cudaStream_t stream)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    l.order.host_waited_for_stream(key_of(l, stream));
    learned(l);
}

void synchronised_event(cudaEvent_t event)
{
    if (!on()) return;
    Log& l = log();
    std::lock_guard<std::mutex> lock(l.mutex);
    l.order.host_waited_for_event(reinterpret_cast<std::uintptr_t>(event));
    learned(l);
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
