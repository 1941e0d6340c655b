#include "timeline.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

namespace cml::schedule {
namespace {

using Span = std::pair<std::uint64_t, std::uint64_t>;  // [from, to]

// The union of `intervals`, as sorted spans that neither overlap nor touch; one of no length adds nothing.
std::vector<Span> merged(const std::vector<Interval>& intervals)
{
    std::vector<Span> sorted;
    for (const Interval& i : intervals)
        if (i.to > i.from) sorted.emplace_back(i.from, i.to);
    std::sort(sorted.begin(), sorted.end());
    std::vector<Span> spans;
    for (const Span& s : sorted) {
        if (!spans.empty() && s.first <= spans.back().second)
            spans.back().second = std::max(spans.back().second, s.second);
        else
            spans.push_back(s);
    }
    return spans;
}

}  // namespace

void Timeline::range_pushed(const std::string& message, std::uint64_t at)
{
    if (!in_call()) {
        if (std::optional<CallMark> mark = call_mark(message)) {
            calls_.emplace_back();
            calls_.back().mark = *mark;
            calls_.back().pushed = at;
            pinned_in_call_.clear();
            managed_in_call_.clear();
            data_.emplace(*mark);
            copies_back_.clear();
            device_in_call_.clear();
            call_depth_ = depth_;
        }
    }
    ++depth_;
}

void Timeline::range_popped(std::uint64_t at)
{
    if (depth_ > 0) --depth_;
    if (in_call() && depth_ == call_depth_) call_returned(at);
}

void Timeline::call_returned(std::uint64_t at)
{
    WatchedCall& call = calls_.back();
    call.popped = at;
    call.returned = true;
    for (auto& [handle, made_in_call] : streams_) {
        call.streams_left += made_in_call;
        made_in_call = false;
    }
    for (auto& [handle, made_in_call] : events_) {
        call.events_left += made_in_call;
        made_in_call = false;
    }
    for (std::uintptr_t start : pinned_in_call_) call.pinned_left += pinned_.count(start) > 0;
    pinned_in_call_.clear();
    for (std::uintptr_t start : managed_in_call_) call.managed_left += managed_.count(start) > 0;
    managed_in_call_.clear();
    for (std::uintptr_t start : device_in_call_) call.device_left += device_.count(start) > 0;
    device_in_call_.clear();
    for (const std::string& text : data_->returned()) call.pinned_found.push_back(text);
    if (call.mark.expects_prefetched &&
        managed_places_.alive_unprefetched(reinterpret_cast<const void*>(call.mark.out), call.mark.bytes_out, order_))
        ++call.results_not_prefetched;
    data_.reset();
    copies_back_.clear();
    call_depth_ = -1;
}

int Timeline::key(std::uint32_t stream) const
{
    auto it = keys_.find(stream);
    return it == keys_.end() ? Order::kLegacy : it->second;
}

void Timeline::learned()
{
    if (!data_) return;
    auto known = [&](const CopyBack& c) { return order_.known_done(c.step); };
    for (const CopyBack& c : copies_back_)
        if (known(c)) data_->arrived(c.host, c.bytes);
    copies_back_.erase(std::remove_if(copies_back_.begin(), copies_back_.end(), known), copies_back_.end());
}

const Timeline::HostRange* Timeline::host_range(std::uintptr_t address, std::uintptr_t* start) const
{
    auto it = host_.upper_bound(address);
    if (it == host_.begin()) return nullptr;
    --it;
    if (address >= it->first + std::max<std::size_t>(it->second.bytes, 1)) return nullptr;
    if (start) *start = it->first;
    return &it->second;
}

bool Timeline::device_allocation(std::uintptr_t address, std::uintptr_t* start) const
{
    auto it = device_.upper_bound(address);
    if (it == device_.begin()) return false;
    --it;
    if (address >= it->first + std::max<std::size_t>(it->second, 1)) return false;
    *start = it->first;
    return true;
}

void Timeline::copy_issued(bool to_host, const void* host, std::uintptr_t device, std::size_t bytes,
                           std::uint32_t stream, bool async, bool symbol)
{
    const auto at = reinterpret_cast<std::uintptr_t>(host);
    const HostRange* pinned = host_range(at);
    // A copy the host waits for runs on the legacy default stream; so, to the host, does one to pageable memory,
    // which returns only once it is done.
    const Step step = order_.issue(async ? key(stream) : Order::kLegacy);
    const bool waited = !async || (to_host && !pinned);
    if (waited) order_.host_waited_for(step);
    if (data_) {
        std::uintptr_t first = 0;
        DataPath::Device device_side{DataPath::kEveryKernel, 0};
        if (!symbol && device_allocation(device, &first)) device_side = DataPath::Device{first, device - first};
        std::uintptr_t pinned_start = 0;
        const DataPath::Host host_side{host, host_range(at, &pinned_start) ? at - pinned_start : DataPath::kNotPinned};
        if (!to_host) {
            data_->copied_to_device(host_side, device_side, bytes);
        } else {
            data_->copied_to_host(device_side, host_side, bytes);
            if (waited) data_->arrived(host, bytes);
            else copies_back_.push_back(CopyBack{step, host, bytes});
        }
    }
    if (waited) learned();
}

void Timeline::kernel_issued(std::uint32_t stream, const std::vector<std::uintptr_t>& words)
{
    const Step step = order_.issue(key(stream));
    managed_places_.kernel(words, step, order_);  // the GPU's own faults are counted: this keeps where pages are
    if (!data_) return;
    ++calls_.back().launches_read;
    const CallMark& mark = calls_.back().mark;
    std::set<std::uintptr_t> allocations;
    bool reaches_host = false;
    for (std::uintptr_t word : words) {
        std::uintptr_t start = 0;
        if (device_allocation(word, &start)) {
            allocations.insert(start);
            continue;
        }
        const bool callers = (word >= mark.in && word < mark.in + mark.bytes_in) ||
                             (word >= mark.out && word < mark.out + mark.bytes_out);
        reaches_host |= callers || host_range(word) != nullptr;
    }
    data_->kernel(allocations, reaches_host);
}

void Timeline::arguments_not_read(const std::string& why)
{
    if (data_) calls_.back().pinned_found.push_back(arguments_not_read_finding(calls_.back().mark.name, why));
}

void Timeline::prefetch_issued(std::uintptr_t start, std::size_t bytes, bool to_device, std::uint32_t stream)
{
    const Step step = order_.issue(key(stream));
    managed_places_.prefetched(start, bytes, to_device, step);
}

void Timeline::stream_waited(std::uint32_t stream, std::uintptr_t event) { order_.stream_waits(key(stream), event); }

void Timeline::releasing(std::uintptr_t start)
{
    auto it = host_.find(start);
    if (data_ && it != host_.end()) data_->releasing(reinterpret_cast<const void*>(start), it->second.bytes);
}

void Timeline::mapped_for_gpu(std::uintptr_t device, std::uintptr_t host)
{
    std::uintptr_t start = 0;
    const HostRange* range = host_range(host, &start);
    if (range && device != host) host_[device - (host - start)] = *range;  // the same memory, at the device's address
    if (data_) data_->host_memory_mapped();
}

void Timeline::device_allocated(std::uintptr_t start, std::size_t bytes)
{
    if (start == 0) return;
    device_[start] = bytes;
    if (in_call()) device_in_call_.insert(start);
}

void Timeline::device_freed(std::uintptr_t start) { device_.erase(start); }

void Timeline::managed_freeing(std::uintptr_t start)
{
    const bool unprefetched = managed_places_.freed_unprefetched(
        start, data_ ? reinterpret_cast<const void*>(calls_.back().mark.out) : nullptr,
        data_ ? calls_.back().mark.bytes_out : 0, order_);
    if (data_ && unprefetched && calls_.back().mark.expects_prefetched) ++calls_.back().results_not_prefetched;
}

void Timeline::api_entered(std::uint32_t correlation, std::uint64_t at)
{
    if (in_call() && correlation != 0) issued_[correlation] = Issue{current(), at};
}

void Timeline::api_returned(std::uint32_t correlation, std::uint64_t at)
{
    auto it = issued_.find(correlation);
    if (it != issued_.end()) it->second.returned = at;
}

void Timeline::wait(std::uint32_t correlation, Wait w)
{
    auto it = issued_.find(correlation);  // only the waits made in watched calls
    if (it == issued_.end()) return;
    if (w.covers == 0) w.covers = it->second.at;
    waits_.push_back(w);
}

void Timeline::synchronised(std::uint32_t correlation, bool device_wide, std::uint32_t stream, std::uint64_t at)
{
    wait(correlation, Wait{device_wide, !device_wide && default_stream(stream), stream, 0, at});
    if (device_wide) order_.host_waited_for_device();
    else order_.host_waited_for_stream(key(stream));
    learned();
}

void Timeline::copied_synchronously(std::uint32_t correlation, std::uint64_t at)
{
    wait(correlation, Wait{false, true, 0, 0, at});
}

void Timeline::event_recorded(std::uintptr_t handle, std::uint32_t stream, std::uint32_t correlation)
{
    order_.event_recorded(handle, key(stream));
    auto it = issued_.find(correlation);
    if (it != issued_.end()) recorded_[handle] = Recorded{stream, it->second.at};
}

void Timeline::event_synchronised(std::uintptr_t handle, std::uint64_t at)
{
    order_.host_waited_for_event(handle);
    learned();
    auto it = recorded_.find(handle);
    if (it != recorded_.end() && in_call())
        waits_.push_back(Wait{false, default_stream(it->second.stream), it->second.stream, it->second.at, at});
}

bool Timeline::covers(const Wait& w, const Activity& a, std::uint64_t issued) const
{
    const bool stream = w.device_wide || w.stream == a.stream ||
                        (w.legacy && (default_stream(a.stream) || non_blocking_.count(a.stream) == 0));
    return stream && issued <= w.covers;
}

// When the host learned that `a` was done: the first return of a wait that covers it, or of its own call where
// that waits (a cudaMemcpy); never (UINT64_MAX) where nothing told it.
std::uint64_t Timeline::known_done(const Activity& a, std::uint64_t issued) const
{
    std::uint64_t known = UINT64_MAX;
    auto it = issued_.find(a.correlation);
    if (!a.async && it != issued_.end() && it->second.returned != 0) known = it->second.returned;
    for (const Wait& w : waits_)
        if (covers(w, a, issued)) known = std::min(known, w.returned);
    return known;
}

bool Timeline::waited_for(const Activity& a, std::uint64_t issued, std::uint64_t by) const
{
    if (a.work != Work::kernel && !a.async) return true;  // a cudaMemcpy returns once its copy is done
    for (const Wait& w : waits_)
        if (w.returned <= by && covers(w, a, issued)) return true;
    return false;
}

void Timeline::stream_created(std::uintptr_t handle, std::uint32_t id, bool blocking)
{
    streams_[handle] = in_call();
    own_streams_.insert(id);
    if (!blocking) non_blocking_.insert(id);
    const int fresh = int(keys_.size()) + 1;
    keys_[id] = fresh;
    order_.stream_created(fresh, blocking);
}

void Timeline::stream_destroyed(std::uintptr_t handle) { streams_.erase(handle); }
void Timeline::event_created(std::uintptr_t handle) { events_[handle] = in_call(); }

void Timeline::event_destroyed(std::uintptr_t handle)
{
    events_.erase(handle);
    order_.event_destroyed(handle);
}

void Timeline::pinned(std::uintptr_t start, std::size_t bytes, bool mapped)
{
    if (start == 0) return;
    pinned_.insert(start);
    host_[start] = HostRange{bytes, mapped};
    if (in_call()) pinned_in_call_.insert(start);
    if (mapped && data_) data_->host_memory_mapped();
}

void Timeline::unpinned(std::uintptr_t start)
{
    pinned_.erase(start);
    host_.erase(start);
}

void Timeline::managed_allocated(std::uintptr_t start, std::size_t bytes)
{
    if (start == 0) return;
    managed_.insert(start);
    device_[start] = bytes;
    managed_places_.allocated(start, bytes);
    if (in_call()) managed_in_call_.insert(start);
}

void Timeline::managed_freed(std::uintptr_t start)
{
    managed_.erase(start);
    device_.erase(start);
}

CopyTime overlapped_time(const std::vector<Interval>& copies, const std::vector<Interval>& kernels)
{
    const std::vector<Span> copying = merged(copies), running = merged(kernels);
    std::uint64_t copy_time = 0, kernel_time = 0, beside = 0;
    for (const Span& s : copying) copy_time += s.second - s.first;
    for (const Span& s : running) kernel_time += s.second - s.first;
    // Both lists are sorted and disjoint: walk them together, each span's overlap with the other list's once.
    for (std::size_t c = 0, k = 0; c < copying.size() && k < running.size();) {
        const std::uint64_t from = std::max(copying[c].first, running[k].first);
        const std::uint64_t to = std::min(copying[c].second, running[k].second);
        if (to > from) beside += to - from;
        if (copying[c].second < running[k].second)
            ++c;
        else
            ++k;
    }
    return CopyTime{copy_time, kernel_time, beside};
}

void Timeline::judge(Findings& findings) const
{
    for (std::size_t i = 0; i < calls_.size(); ++i) judge_call(i, findings);
    const std::vector<CopyTime> times = copies_overlapped();
    const std::string* first = nullptr;  // the first call that expects two streams and issued any work
    std::size_t at = 0;
    for (const WatchedCall& call : calls_) {
        if (!call.mark.expects_overlap) continue;
        const CopyTime& time = times[at++];
        if (time.beside > 0) {
            first = nullptr;
            break;
        }
        if (!first && (time.copying > 0 || time.computing > 0)) first = &call.mark.name;
    }
    if (first) findings.add(kOverlap, never_overlapped_on_the_gpu(*first));
    findings.measured(kOverlap, overlap_figure(times));
}

std::vector<CopyTime> Timeline::copies_overlapped() const
{
    std::vector<CopyTime> times;
    for (std::size_t i = 0; i < calls_.size(); ++i) {
        if (!calls_[i].mark.expects_overlap) continue;
        std::vector<Interval> copies, kernels;
        for (const Activity& a : activities_) {
            if (!issued_by(i, a)) continue;
            (a.work == Work::kernel ? kernels : copies).push_back(Interval{a.stream, a.start, a.end});
        }
        times.push_back(overlapped_time(copies, kernels));
    }
    return times;
}

std::optional<std::uint64_t> Timeline::issued_by(std::size_t index, const Activity& a) const
{
    const WatchedCall& call = calls_[index];
    auto issue = issued_.find(a.correlation);
    if (issue != issued_.end())
        return issue->second.call == index ? std::optional<std::uint64_t>(issue->second.at) : std::nullopt;
    if (a.start >= call.pushed && (!call.returned || a.start <= call.popped)) return a.start;
    return std::nullopt;
}

void Timeline::judge_call(std::size_t index, Findings& findings) const
{
    const WatchedCall& call = calls_[index];
    const std::string& name = call.mark.name;
    std::vector<Activity> work;
    for (const Activity& a : activities_) {
        const std::optional<std::uint64_t> issued_at = issued_by(index, a);
        if (!issued_at) continue;
        const std::uint64_t issued = *issued_at;
        const std::uint64_t known = known_done(a, issued);
        work.push_back(a);
        work.back().end = std::max(std::min(a.end, known), a.start);  // the host's wait bounds the GPU's end
        // Work the call returned without waiting for ends, as far as the call knows, after it returned.
        if (call.returned && !waited_for(a, issued, call.popped))
            work.back().end = std::max(work.back().end, call.popped + 1);
    }
    std::sort(work.begin(), work.end(), [](const Activity& a, const Activity& b) { return a.start < b.start; });
    if (call.mark.expects_pinned) {
        int kernels = 0;
        for (const Activity& a : work) {
            kernels += a.work == Work::kernel;
            if (a.work != Work::kernel && a.pageable)
                findings.add(kPinned, pageable_copy(name, a.work == Work::copy_out, a.async));
        }
        // A launch the recorder's callbacks never saw (a launch call it does not know) has no arguments read.
        if (kernels > call.launches_read)
            findings.add(kPinned, arguments_not_read_finding(name, "the GPU ran more of its kernels than the "
                                                                       "recorder saw launched"));
        for (const std::string& text : call.pinned_found) findings.add(kPinned, text);
    }
    if (call.mark.expects_prefetched) {
        if (call.pushed < faults_counted_from_) {
            const std::string why = faults_counted_from_ == UINT64_MAX ? faults_not_counted_
                                                                       : "counting began only after the call did";
            findings.add(kPrefetched, faults_not_measured(name, why.empty() ? "no counter was enabled" : why));
        } else {
            for (std::uint64_t at : faults_)
                if (at >= call.pushed && (!call.returned || at <= call.popped)) {
                    findings.add(kPrefetched, page_faulted(name));
                    break;
                }
        }
        for (int i = 0; i < call.results_not_prefetched; ++i) findings.add(kPrefetched, not_prefetched_back(name));
    }
    if (!call.returned) return;  // the program ended inside the call: nothing it left behind to judge
    // The races first: a copy back still running is what the caller reads next.
    for (const bool copies_back : {true, false})
        for (const Activity& a : work)
            if ((a.work == Work::copy_out) == copies_back && a.end > call.popped)
                findings.add(kReturned, left_queued(name, a.work, default_stream(a.stream)));
    for (int i = 0; i < call.streams_left; ++i) findings.add(kReturned, stream_left_alive(name, false));
    for (int i = 0; i < call.events_left; ++i) findings.add(kReturned, event_left_alive(name));
    for (int i = 0; i < call.pinned_left; ++i) findings.add(kReturned, pinned_left_pinned(name));
    for (int i = 0; i < call.managed_left; ++i) findings.add(kReturned, managed_left_allocated(name));
    for (int i = 0; i < call.device_left; ++i) findings.add(kReturned, device_left_allocated(name));
}

}  // namespace cml::schedule
