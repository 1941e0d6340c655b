// Where managed pages are (managed_places.hpp): page faults of a kernel, and results read with no prefetch back.
#include <doctest/doctest.h>

#include <cstdint>
#include <vector>

#include "schedule/managed_places.hpp"

namespace {

using cml::schedule::ManagedPlaces;
using cml::schedule::Order;
using cml::schedule::Step;

constexpr int kA = 1, kB = 2;
constexpr std::uintptr_t kEvent = 0xe0;

// A managed allocation of 64 floats: a buffer of the test's own, which the rule reads when it is freed.
struct Managed {
    std::vector<float> results = std::vector<float>(64, 2.0f);
    std::uintptr_t start() const { return reinterpret_cast<std::uintptr_t>(results.data()); }
    std::size_t bytes() const { return results.size() * sizeof(float); }
};

}  // namespace

TEST_CASE("managed: a kernel faults on pages no prefetch to the device, ordered before it, brought there")
{
    Managed m;
    Order o;
    o.stream_created(kA, false);
    o.stream_created(kB, false);
    SUBCASE("no prefetch: a fault, and the pages are the GPU's after it")
    {
        ManagedPlaces p;
        p.allocated(m.start(), m.bytes());
        CHECK(p.kernel({m.start()}, o.issue(kA), o));
        CHECK_FALSE(p.kernel({m.start() + 16}, o.issue(kA), o));
    }
    SUBCASE("a prefetch of all of it on the kernel's stream, before it: no fault")
    {
        ManagedPlaces p;
        p.allocated(m.start(), m.bytes());
        p.prefetched(m.start(), m.bytes(), true, o.issue(kA));
        CHECK_FALSE(p.kernel({m.start()}, o.issue(kA), o));
    }
    SUBCASE("a prefetch on another stream, with nothing ordering the kernel after it: a fault")
    {
        ManagedPlaces p;
        p.allocated(m.start(), m.bytes());
        p.prefetched(m.start(), m.bytes(), true, o.issue(kB));
        CHECK(p.kernel({m.start()}, o.issue(kA), o));
    }
    SUBCASE("a prefetch on another stream, ordered before the kernel by an event: no fault")
    {
        ManagedPlaces p;
        p.allocated(m.start(), m.bytes());
        p.prefetched(m.start(), m.bytes(), true, o.issue(kB));
        o.event_recorded(kEvent, kB);
        o.stream_waits(kA, kEvent);
        CHECK_FALSE(p.kernel({m.start()}, o.issue(kA), o));
    }
    SUBCASE("a prefetch of part of it, or one to the host after, leaves pages to fault")
    {
        ManagedPlaces p;
        p.allocated(m.start(), m.bytes());
        p.prefetched(m.start(), m.bytes() / 2, true, o.issue(kA));
        CHECK(p.kernel({m.start()}, o.issue(kA), o));
        p.prefetched(m.start(), m.bytes(), false, o.issue(kA));
        CHECK(p.kernel({m.start()}, o.issue(kA), o));
    }
    SUBCASE("a word that points into no managed allocation is no fault")
    {
        ManagedPlaces p;
        p.allocated(m.start(), m.bytes());
        CHECK_FALSE(p.kernel({m.start() + m.bytes(), 0, 42}, o.issue(kA), o));
    }
}

TEST_CASE("managed: results the host read need a prefetch to the host after the last kernel given them")
{
    Managed m;
    const std::vector<float> out = m.results;  // the caller's out holds them: the host read them
    const std::vector<float> other(64, 3.0f);
    Order o;
    o.stream_created(kA, false);
    o.stream_created(kB, false);
    auto after = [&](auto prefetch_back) {
        ManagedPlaces p;
        p.allocated(m.start(), m.bytes());
        p.prefetched(m.start(), m.bytes(), true, o.issue(kA));
        p.kernel({m.start()}, o.issue(kA), o);
        prefetch_back(p);
        return p;
    };
    ManagedPlaces none = after([](ManagedPlaces&) {});
    CHECK(none.freed_unprefetched(m.start(), out.data(), m.bytes(), o));
    ManagedPlaces same_stream = after([&](ManagedPlaces& p) { p.prefetched(m.start(), m.bytes(), false, o.issue(kA)); });
    CHECK_FALSE(same_stream.freed_unprefetched(m.start(), out.data(), m.bytes(), o));
    ManagedPlaces unordered = after([&](ManagedPlaces& p) { p.prefetched(m.start(), m.bytes(), false, o.issue(kB)); });
    CHECK(unordered.freed_unprefetched(m.start(), out.data(), m.bytes(), o));
    // Bytes the caller's out does not hold were not the results the host read: nothing asked of them.
    ManagedPlaces input = after([](ManagedPlaces&) {});
    CHECK_FALSE(input.freed_unprefetched(m.start(), other.data(), m.bytes(), o));
    // Never given to a kernel: the host's own bytes, wherever they are.
    ManagedPlaces unused;
    unused.allocated(m.start(), m.bytes());
    CHECK_FALSE(unused.freed_unprefetched(m.start(), out.data(), m.bytes(), o));
    CHECK_FALSE(unused.holds(m.start()));
    // Prefetched to the host but never given to a kernel: no last kernel to be ordered after, and nothing asked.
    ManagedPlaces prefetched_only;
    prefetched_only.allocated(m.start(), m.bytes());
    prefetched_only.prefetched(m.start(), m.bytes(), false, o.issue(kA));
    CHECK_FALSE(prefetched_only.alive_unprefetched(out.data(), m.bytes(), o));
    CHECK_FALSE(prefetched_only.freed_unprefetched(m.start(), out.data(), m.bytes(), o));
    // Kept past the call, judged as the call returns.
    ManagedPlaces kept = after([](ManagedPlaces&) {});
    CHECK(kept.alive_unprefetched(out.data(), m.bytes(), o));
    CHECK(kept.holds(m.start()));
    ManagedPlaces kept_back = after([&](ManagedPlaces& p) { p.prefetched(m.start(), m.bytes(), false, o.issue(kA)); });
    CHECK_FALSE(kept_back.alive_unprefetched(out.data(), m.bytes(), o));
}
