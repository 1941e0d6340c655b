#include "order.hpp"

#include <algorithm>

namespace cml::schedule {

void Clock::set(int stream, std::uint64_t seq)
{
    if (std::size_t(stream) >= at_.size()) at_.resize(std::size_t(stream) + 1, 0);
    at_[std::size_t(stream)] = seq;
}

void Clock::merge(const Clock& other)
{
    if (other.at_.size() > at_.size()) at_.resize(other.at_.size(), 0);
    for (std::size_t i = 0; i < other.at_.size(); ++i) at_[i] = std::max(at_[i], other.at_[i]);
}

bool Clock::covers(const Clock& other) const
{
    for (std::size_t i = 0; i < other.at_.size(); ++i)
        if ((*this)[int(i)] < other.at_[i]) return false;
    return true;
}

Order::Stream& Order::stream(int key) { return streams_[key]; }

void Order::stream_created(int key, bool blocking)
{
    Stream& s = stream(key);
    s.blocking = blocking;
}

Clock Order::with_legacy_rules(int key, Clock clock) const
{
    if (key == kLegacy) {
        for (const auto& [other, s] : streams_)
            if (other != kLegacy && s.blocking) clock.merge(s.tip);
        return clock;
    }
    auto it = streams_.find(key);
    const bool blocking = it == streams_.end() || it->second.blocking;
    if (blocking) clock.merge(streams_.at(kLegacy).tip);
    return clock;
}

Clock Order::stands_for(int key) const
{
    auto it = streams_.find(key);
    return with_legacy_rules(key, it == streams_.end() ? Clock{} : it->second.tip);
}

Step Order::issue(int key)
{
    Clock after = stands_for(key);
    Stream& s = stream(key);
    after.set(key, ++s.next);
    s.tip = after;
    return Step{key, s.next, after};
}

void Order::event_recorded(std::uintptr_t event, int key)
{
    const Clock now = stands_for(key);
    stream(key).tip = now;
    events_[event] = now;
}

void Order::event_destroyed(std::uintptr_t event) { events_.erase(event); }

void Order::stream_waits(int key, std::uintptr_t event)
{
    auto it = events_.find(event);
    if (it != events_.end()) stream(key).tip.merge(it->second);
}

void Order::host_waited_for_stream(int key) { known_.merge(stands_for(key)); }

void Order::host_waited_for_event(std::uintptr_t event)
{
    auto it = events_.find(event);
    if (it != events_.end()) known_.merge(it->second);
}

void Order::host_waited_for_device()
{
    for (const auto& [key, s] : streams_) known_.merge(s.tip);
}

void Order::host_waited_for(const Step& step) { known_.merge(step.after); }

bool Order::event_known_done(std::uintptr_t event) const
{
    auto it = events_.find(event);
    return it == events_.end() || known_.covers(it->second);
}

}  // namespace cml::schedule
