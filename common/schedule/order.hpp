// What orders the work of a program's streams, as CUDA defines it, and what the host has learned is done: the
// dependency graph that the schedule check judges from, the same on the CPU emulator (common/emu/src/schedule.cpp)
// and on a GPU (cupti_recorder.cpp feeds it from CUPTI's callbacks, in the order the program made its calls).
//
// Work on one stream runs in the order it was issued. cudaStreamWaitEvent makes a stream's later work wait for
// what the event's stream held when the event was recorded. The legacy default stream (key 0) waits for the
// work of every blocking stream issued before its own, and each blocking stream waits for the default stream's;
// non-blocking streams wait for neither. The host learns that work is done by a synchronise (of its stream, of an
// event recorded after it, or of the device), by a query that answered done, or by a cudaMemcpy, which waits for
// the legacy default stream; a wait for some work is a wait for everything that work waited for.
//
// Each piece of work carries a vector clock (per stream, the last work of that stream that it comes after), so
// that "a comes before b" and "the host knows a is done" are exact.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace cml::schedule {

// Per stream key, the number of that stream's works ordered before (and including) a point.
class Clock {
public:
    std::uint64_t operator[](int stream) const
    {
        return std::size_t(stream) < at_.size() ? at_[std::size_t(stream)] : 0;
    }
    void set(int stream, std::uint64_t seq);
    void merge(const Clock& other);        // the later of each
    bool covers(const Clock& other) const;  // at or after `other` on every stream

private:
    std::vector<std::uint64_t> at_;
};

// One copy, kernel or prefetch: its stream, its place there (from 1), and what it comes after.
struct Step {
    int stream = 0;
    std::uint64_t seq = 0;
    Clock after;  // includes the step itself
};

class Order {
public:
    static constexpr int kLegacy = 0;  // the legacy default stream, and the null stream

    // A stream the program made, by a key of the maker's (never kLegacy), and whether it waits for the legacy
    // default stream; a key never made is taken as a blocking stream.
    void stream_created(int stream, bool blocking);
    // A copy, kernel or prefetch issued on `stream`.
    Step issue(int stream);
    // cudaEventRecord: the event stands for what `stream` holds now. Events are the maker's handles.
    void event_recorded(std::uintptr_t event, int stream);
    void event_destroyed(std::uintptr_t event);
    // cudaStreamWaitEvent: `stream`'s later work waits for what the event stands for (nothing, unrecorded).
    void stream_waits(int stream, std::uintptr_t event);

    // The host's waits.
    void host_waited_for_stream(int stream);  // cudaStreamSynchronize, or cudaStreamQuery that said done
    void host_waited_for_event(std::uintptr_t event);  // cudaEventSynchronize, or cudaEventQuery that said done
    void host_waited_for_device();           // cudaDeviceSynchronize
    void host_waited_for(const Step& step);  // what a cudaMemcpy issued, and waited for

    bool before(const Step& a, const Step& b) const { return b.after[a.stream] >= a.seq; }  // b waits for a
    bool known_done(const Step& step) const { return known_[step.stream] >= step.seq; }
    // Everything the stream or the event stands for is known done: a query would not tell the host more.
    bool stream_known_done(int stream) const { return known_.covers(stands_for(stream)); }
    bool event_known_done(std::uintptr_t event) const;

private:
    struct Stream {
        bool blocking = true;
        std::uint64_t next = 0;  // the seq of its last work
        Clock tip;               // what its next work waits for, besides the work itself
    };
    Stream& stream(int key);
    // What work issued on `key` now would wait for: its own, and the legacy default stream's rules.
    Clock stands_for(int key) const;
    Clock with_legacy_rules(int key, Clock clock) const;

    std::map<int, Stream> streams_{{kLegacy, Stream{}}};
    std::map<std::uintptr_t, Clock> events_;
    Clock known_;  // what the host knows is done
};

}  // namespace cml::schedule
