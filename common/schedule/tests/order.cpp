// The order of streams and events (order.hpp), as CUDA defines it, and what the host learns is done.
#include <doctest/doctest.h>

#include "schedule/order.hpp"

namespace {

using cml::schedule::Order;
using cml::schedule::Step;

constexpr int kA = 1, kB = 2, kC = 3;
constexpr std::uintptr_t kEvent = 0xe0, kOther = 0xe1;

// Two non-blocking streams of the program's, A and B, and a blocking one, C.
Order three_streams()
{
    Order o;
    o.stream_created(kA, false);
    o.stream_created(kB, false);
    o.stream_created(kC, true);
    return o;
}

}  // namespace

TEST_CASE("order: work on one stream runs in the order it was issued; on two streams nothing orders it")
{
    Order o = three_streams();
    const Step first = o.issue(kA), second = o.issue(kA), other = o.issue(kB);
    CHECK(o.before(first, second));
    CHECK_FALSE(o.before(second, first));
    CHECK_FALSE(o.before(first, other));
    CHECK_FALSE(o.before(other, second));
}

TEST_CASE("order: a stream that waits for an event waits for what the event's stream held when it was recorded")
{
    Order o = three_streams();
    const Step copy = o.issue(kA);
    o.event_recorded(kEvent, kA);
    const Step later = o.issue(kA);
    o.stream_waits(kB, kEvent);
    const Step kernel = o.issue(kB);
    CHECK(o.before(copy, kernel));
    CHECK_FALSE(o.before(later, kernel));

    Order early = three_streams();  // recorded before the copy: it stands for none of it
    early.event_recorded(kEvent, kA);
    const Step copied = early.issue(kA);
    early.stream_waits(kB, kEvent);
    CHECK_FALSE(early.before(copied, early.issue(kB)));

    Order chain = three_streams();  // a chain through three streams orders its ends
    const Step start = chain.issue(kA);
    chain.event_recorded(kEvent, kA);
    chain.stream_waits(kB, kEvent);
    chain.issue(kB);
    chain.event_recorded(kOther, kB);
    chain.stream_waits(kC, kOther);
    CHECK(chain.before(start, chain.issue(kC)));
}

TEST_CASE("order: the legacy default stream waits for the blocking streams, and they for it; non-blocking ones not")
{
    Order o = three_streams();
    const Step on_blocking = o.issue(kC), on_non_blocking = o.issue(kA);
    const Step on_default = o.issue(Order::kLegacy);
    CHECK(o.before(on_blocking, on_default));
    CHECK_FALSE(o.before(on_non_blocking, on_default));
    CHECK(o.before(on_default, o.issue(kC)));
    CHECK_FALSE(o.before(on_default, o.issue(kA)));

    Order unknown;  // a stream never seen made is a blocking one
    const Step first = unknown.issue(7);
    CHECK(unknown.before(first, unknown.issue(Order::kLegacy)));
}

TEST_CASE("order: the host knows work is done from a wait for its stream, an event after it, or the device")
{
    Order o = three_streams();
    const Step copy = o.issue(kA), kernel = o.issue(kB);
    CHECK_FALSE(o.known_done(copy));
    CHECK_FALSE(o.stream_known_done(kA));
    o.host_waited_for_stream(kA);
    CHECK(o.known_done(copy));
    CHECK(o.stream_known_done(kA));
    CHECK_FALSE(o.known_done(kernel));

    o.event_recorded(kEvent, kB);
    CHECK_FALSE(o.event_known_done(kEvent));
    o.host_waited_for_event(kEvent);
    CHECK(o.known_done(kernel));
    CHECK(o.event_known_done(kEvent));
    CHECK(o.event_known_done(kOther));  // never recorded: nothing to wait for

    const Step last = o.issue(kC);
    o.host_waited_for_device();
    CHECK(o.known_done(last));
}

TEST_CASE("order: a wait for work is a wait for what it waited for, and a cudaMemcpy waits for the blocking streams")
{
    Order o = three_streams();
    const Step copy_in = o.issue(kA);
    o.event_recorded(kEvent, kA);
    o.stream_waits(kB, kEvent);
    o.issue(kB);
    o.host_waited_for_stream(kB);
    CHECK(o.known_done(copy_in));

    Order legacy = three_streams();
    const Step blocking = legacy.issue(kC), non_blocking = legacy.issue(kA);
    legacy.host_waited_for(legacy.issue(Order::kLegacy));  // cudaMemcpy
    CHECK(legacy.known_done(blocking));
    CHECK_FALSE(legacy.known_done(non_blocking));
    legacy.host_waited_for_stream(Order::kLegacy);
    CHECK_FALSE(legacy.known_done(non_blocking));
}
