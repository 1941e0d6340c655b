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
            calls_.push_back(WatchedCall{*mark, at, 0, false, 0, 0, 0, 0, 0});
            pinned_in_call_.clear();
            managed_in_call_.clear();
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
    call_depth_ = -1;
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
}

void Timeline::copied_synchronously(std::uint32_t correlation, std::uint64_t at)
{
    wait(correlation, Wait{false, true, 0, 0, at});
}

void Timeline::event_recorded(std::uintptr_t handle, std::uint32_t stream, std::uint32_t correlation)
{
    auto it = issued_.find(correlation);
    if (it != issued_.end()) recorded_[handle] = Recorded{stream, it->second.at};
}

void Timeline::event_synchronised(std::uintptr_t handle, std::uint64_t at)
{
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
}

void Timeline::stream_destroyed(std::uintptr_t handle) { streams_.erase(handle); }
void Timeline::event_created(std::uintptr_t handle) { events_[handle] = in_call(); }
void Timeline::event_destroyed(std::uintptr_t handle) { events_.erase(handle); }

void Timeline::pinned(std::uintptr_t start)
{
    if (start == 0) return;
    pinned_.insert(start);
    if (in_call()) pinned_in_call_.insert(start);
}

void Timeline::unpinned(std::uintptr_t start) { pinned_.erase(start); }

void Timeline::managed_allocated(std::uintptr_t start)
{
    if (start == 0) return;
    managed_.insert(start);
    if (in_call()) managed_in_call_.insert(start);
}

void Timeline::managed_freed(std::uintptr_t start) { managed_.erase(start); }

void Timeline::device_allocated(std::uintptr_t start)
{
    if (start == 0) return;
    device_.insert(start);
    if (in_call()) device_in_call_.insert(start);
}

void Timeline::device_freed(std::uintptr_t start) { device_.erase(start); }

int most_streams_busy(std::vector<Interval> work)
{
    struct Edge {
        std::uint64_t at;
        bool opens;  // false sorts first: an end before an issue at the same time
        std::uint32_t stream;
    };
    std::vector<Edge> edges;
    for (const Interval& w : work) {
        edges.push_back(Edge{w.from, true, w.stream});
        edges.push_back(Edge{std::max(w.from, w.to), false, w.stream});
    }
    std::sort(edges.begin(), edges.end(),
              [](const Edge& a, const Edge& b) { return std::tie(a.at, a.opens) < std::tie(b.at, b.opens); });
    std::map<std::uint32_t, int> open;  // stream -> its intervals open
    int busy = 0, most = 0;
    for (const Edge& e : edges) {
        int& count = open[e.stream];
        if (e.opens) {
            busy += count++ == 0;
            most = std::max(most, busy);
        } else {
            busy -= --count == 0;
        }
    }
    return most;
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
    findings.measured(kOverlap, overlap_figure(copies_overlapped()));
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
    std::vector<Interval> in_flight;
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
        // In flight from its issue until the host knew it was done, not until the GPU finished it: how the call
        // is written, not how fast the GPU ran a small chunk before the host issued the next, decides the overlap.
        // As the emulator counts them, the streams the program made: the default stream waits for them.
        if (!default_stream(a.stream)) in_flight.push_back(Interval{a.stream, issued, known});
    }
    std::sort(work.begin(), work.end(), [](const Activity& a, const Activity& b) { return a.start < b.start; });
    if (call.mark.expects_pinned) {
        unsigned long long copied_in = 0, copied_out = 0;
        for (const Activity& a : work) {
            if (a.work != Work::kernel && a.pageable)
                findings.add(kPinned, pageable_copy(name, a.work == Work::copy_out, a.async));
            if (a.work == Work::copy_in) copied_in += a.bytes;
            if (a.work == Work::copy_out) copied_out += a.bytes;
        }
        if (copied_in < call.mark.bytes_in) findings.add(kPinned, not_copied(name, false, copied_in == 0));
        if (copied_out < call.mark.bytes_out) findings.add(kPinned, not_copied(name, true, copied_out == 0));
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
    if (call.mark.expects_overlap && !work.empty()) {
        const int most = most_streams_busy(in_flight);
        if (most < 2) findings.add(kOverlap, never_overlapped(name, most));
    }
}

}  // namespace cml::schedule
