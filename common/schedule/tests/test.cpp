// The schedule check's judge on a GPU (timeline.hpp), on records made up here: what a call's copies, kernels,
// streams and pinned memory did, and the findings that must follow, in the emulator's words.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "schedule/findings.hpp"
#include "schedule/timeline.hpp"

namespace {

using cml::schedule::Activity;
using cml::schedule::Findings;
using cml::schedule::Interval;
using cml::schedule::Timeline;
using cml::schedule::Work;

constexpr const char* kOverlapped = "cml call: pipeline_overlapped; expects: pinned copies, 2 streams,";
constexpr std::uintptr_t kStreamA = 0xa0, kStreamB = 0xb0;
constexpr std::uint32_t kIdA = 7, kIdB = 8, kDefaultId = 1;

// A program that makes two streams outside any watched call, then one watched call from t = 100 to t = 1000
// (what is made inside it is each test's).
Timeline two_streams_and_a_call()
{
    Timeline t;
    t.stream_created(kStreamA, kIdA);
    t.stream_created(kStreamB, kIdB);
    t.range_pushed(kOverlapped, 100);
    return t;
}

// One copy or kernel, issued by API call `correlation` at `issued`, on the GPU from start to end; a copy of `bytes`.
void work(Timeline& t, Work kind, std::uint32_t stream, std::uint32_t correlation, std::uint64_t issued,
          std::uint64_t start, std::uint64_t end, bool pageable = false, std::uint64_t bytes = 0)
{
    t.api_entered(correlation, issued);
    if (kind == Work::kernel) t.kernel_issued(stream, {});  // the launch's callback, as the recorder sees it
    t.add(Activity{kind, stream, pageable, true, start, end, correlation, bytes});
}

// The call waits for the whole device (cudaDeviceSynchronize, API call `correlation`) from `entered` to `returned`.
void synchronise_device(Timeline& t, std::uint32_t correlation, std::uint64_t entered, std::uint64_t returned)
{
    t.api_entered(correlation, entered);
    t.synchronised(correlation, true, 0, returned);
}

Findings judged(const Timeline& t, const std::string& aspects = "")
{
    Findings findings(aspects);
    t.judge(findings);
    return findings;
}

bool says(const Findings& f, const std::string& text) { return f.count(text) > 0; }

// What `f` prints, each aspect's findings up to `print_limit`.
std::string printed(const Findings& f, int print_limit = 10)
{
    std::FILE* out = std::tmpfile();
    REQUIRE(out != nullptr);
    f.print(out, print_limit);
    std::rewind(out);
    std::string text;
    char piece[512];
    for (std::size_t read; (read = std::fread(piece, 1, sizeof piece, out)) > 0;) text.append(piece, read);
    std::fclose(out);
    return text;
}

// The fraction of the copies' time a kernel ran beside, from intervals [from, to] on one stream each; none where
// the copies took no time.
std::optional<double> fraction(const std::vector<Interval>& copies, const std::vector<Interval>& kernels)
{
    const cml::schedule::CopyTime time = cml::schedule::overlapped_time(copies, kernels);
    if (time.copying == 0) return std::nullopt;
    return double(time.beside) / double(time.copying);
}

}  // namespace

TEST_CASE("a call whose copies end before it returns, one of them beside a kernel of another stream, has no finding")
{
    Timeline t = two_streams_and_a_call();
    work(t, Work::copy_in, kIdA, 1, 110, 120, 300);
    work(t, Work::kernel, kIdB, 2, 130, 250, 500);  // beside A's copy from 250 to 300
    work(t, Work::copy_out, kIdA, 3, 140, 500, 700);
    synchronise_device(t, 4, 150, 710);
    t.range_popped(1000);
    CHECK(judged(t).size() == 0);
}

TEST_CASE("a copy back that ends after the call's range is popped fails returned, as a race with the caller")
{
    Timeline t = two_streams_and_a_call();
    work(t, Work::copy_in, kIdA, 1, 110, 120, 300);
    work(t, Work::copy_out, kIdB, 2, 130, 300, 1200);
    t.api_entered(3, 140);
    t.synchronised(3, false, kIdA, 310);
    t.range_popped(1000);
    const Findings f = judged(t, "returned");
    CHECK(f.size() == 1);
    CHECK(says(f, cml::schedule::left_queued("pipeline_overlapped", Work::copy_out, false)));
    CHECK(f.texts()[0].rfind("Race reported between Write access by the copy to the host", 0) == 0);
}

TEST_CASE("a copy back the call never waited for is a race, even where the GPU ended it before the call returned")
{
    Timeline t = two_streams_and_a_call();
    work(t, Work::copy_out, kIdB, 1, 130, 300, 500);  // a cudaFree's wait, say, is no wait of the program's
    t.range_popped(1000);
    CHECK(says(judged(t, "returned"), cml::schedule::left_queued("pipeline_overlapped", Work::copy_out, false)));
}

TEST_CASE("a wait covers what its stream held when it was entered, or when its event was recorded")
{
    SUBCASE("an event recorded after the copy, then synchronised")
    {
        Timeline t = two_streams_and_a_call();
        work(t, Work::copy_out, kIdA, 1, 110, 120, 300);
        t.api_entered(2, 130);
        t.event_recorded(0xe0, kIdA, 2);
        t.api_entered(3, 140);
        t.event_synchronised(0xe0, 310);
        t.range_popped(1000);
        CHECK(judged(t, "returned").size() == 0);
    }
    SUBCASE("an event recorded before the copy waits for nothing of it")
    {
        Timeline t = two_streams_and_a_call();
        t.api_entered(1, 105);
        t.event_recorded(0xe0, kIdA, 1);
        work(t, Work::copy_out, kIdA, 2, 110, 120, 300);
        t.event_synchronised(0xe0, 310);
        t.range_popped(1000);
        CHECK(judged(t, "returned").size() == 1);
    }
    SUBCASE("a cudaMemcpy waits for the blocking streams, not for the non-blocking ones")
    {
        Timeline t;
        t.stream_created(kStreamA, kIdA, true);
        t.stream_created(kStreamB, kIdB, false);
        t.range_pushed(kOverlapped, 100);
        work(t, Work::kernel, kIdA, 1, 110, 120, 300);
        work(t, Work::kernel, kIdB, 2, 115, 120, 300);
        t.api_entered(3, 200);
        t.copied_synchronously(3, 320);
        t.range_popped(1000);
        const Findings f = judged(t, "returned");
        CHECK(f.size() == 1);
        CHECK(f.count(cml::schedule::left_queued("pipeline_overlapped", Work::kernel, false)) == 1);
    }
}

TEST_CASE("a kernel still running after the call names the default stream when it ran there")
{
    Timeline t;
    t.range_pushed("cml call: pipeline_pinned; expects: pinned copies,", 100);
    work(t, Work::kernel, kDefaultId, 1, 110, 120, 1500);
    t.range_popped(1000);
    CHECK(says(judged(t), cml::schedule::left_queued("pipeline_pinned", Work::kernel, true)));
}

TEST_CASE("a copy and a kernel that ran at the same time on the GPU pass overlap; back to back, they fail it")
{
    SUBCASE("overlapping")
    {
        Timeline t = two_streams_and_a_call();
        work(t, Work::kernel, kIdA, 1, 110, 200, 400);
        work(t, Work::copy_out, kIdB, 2, 120, 399, 600);
        synchronise_device(t, 3, 400, 610);
        t.range_popped(1000);
        CHECK(judged(t, "overlap").size() == 0);
    }
    SUBCASE("back to back: one starts as the other ends")
    {
        Timeline t = two_streams_and_a_call();
        work(t, Work::kernel, kIdA, 1, 110, 200, 400);
        work(t, Work::copy_out, kIdB, 2, 120, 400, 600);
        synchronise_device(t, 3, 401, 610);
        t.range_popped(1000);
        const Findings f = judged(t, "overlap");
        CHECK(f.size() == 1);
        CHECK(says(f, cml::schedule::never_overlapped_on_the_gpu("pipeline_overlapped")));
    }
    SUBCASE("two kernels at once, or two copies, are no copy beside a kernel")
    {
        Timeline t = two_streams_and_a_call();
        work(t, Work::kernel, kIdA, 1, 110, 200, 400);
        work(t, Work::kernel, kIdB, 2, 120, 300, 500);
        work(t, Work::copy_in, kIdA, 3, 130, 500, 700);
        work(t, Work::copy_out, kIdB, 4, 140, 600, 800);
        synchronise_device(t, 5, 150, 810);
        t.range_popped(1000);
        CHECK(judged(t, "overlap").size() == 1);
    }
}

// Every chunk ordered after the one before it (by events, say) issues all its work at once, and none of it runs
// beside another piece: what the GPU did decides, not what was in flight.
TEST_CASE("work issued all at once but run one piece after another fails overlap, however it was issued")
{
    Timeline t = two_streams_and_a_call();
    work(t, Work::copy_in, kIdA, 1, 110, 200, 300);
    work(t, Work::kernel, kIdB, 2, 111, 300, 400);
    work(t, Work::copy_out, kIdA, 3, 112, 400, 500);
    work(t, Work::copy_in, kIdB, 4, 113, 500, 600);
    work(t, Work::kernel, kIdA, 5, 114, 600, 700);
    synchronise_device(t, 6, 115, 710);
    t.range_popped(1000);
    CHECK(says(judged(t, "overlap"), cml::schedule::never_overlapped_on_the_gpu("pipeline_overlapped")));
}

// Calls of a few floats have chunks too short to overlap anywhere: the calls are judged together.
TEST_CASE("overlap is judged over every call that expects it: one call whose copies ran beside a kernel passes")
{
    Timeline t;
    t.stream_created(kStreamA, kIdA);
    t.stream_created(kStreamB, kIdB);
    std::uint32_t correlation = 1;
    for (std::uint64_t at : {100, 2000}) {  // two small calls, their pieces one after another
        t.range_pushed(kOverlapped, at);
        work(t, Work::copy_in, kIdA, correlation++, at + 10, at + 20, at + 30);
        work(t, Work::kernel, kIdB, correlation++, at + 11, at + 30, at + 40);
        synchronise_device(t, correlation++, at + 12, at + 50);
        t.range_popped(at + 900);
    }
    Timeline serial = t;
    CHECK(judged(serial, "overlap").size() == 1);
    t.range_pushed(kOverlapped, 5000);  // the benchmark's size: a copy beside a kernel
    work(t, Work::copy_in, kIdA, correlation++, 5010, 5020, 5300);
    work(t, Work::kernel, kIdB, correlation++, 5011, 5100, 5400);
    synchronise_device(t, correlation++, 5012, 5410);
    t.range_popped(6000);
    CHECK(judged(t, "overlap").size() == 0);
}

TEST_CASE("a call that expects no overlap is not judged for it, nor counted in it")
{
    Timeline serial;
    serial.range_pushed("cml call: pipeline_pinned; expects: pinned copies,", 100);
    work(serial, Work::copy_in, kDefaultId, 1, 110, 200, 400);
    work(serial, Work::kernel, kDefaultId, 2, 110, 400, 500);
    synchronise_device(serial, 3, 120, 510);
    serial.range_popped(600);
    CHECK(judged(serial, "overlap").size() == 0);

    Timeline t = two_streams_and_a_call();  // overlaps nothing, beside a call of Part A's that does
    work(t, Work::copy_in, kIdA, 4, 110, 200, 300);
    work(t, Work::kernel, kIdB, 5, 111, 300, 400);
    synchronise_device(t, 6, 115, 410);
    t.range_popped(1000);
    t.range_pushed("cml call: pipeline_pinned; expects: pinned copies,", 1100);
    work(t, Work::copy_in, kIdA, 7, 1110, 1200, 1400);
    work(t, Work::kernel, kIdB, 8, 1111, 1300, 1500);
    synchronise_device(t, 9, 1120, 1510);
    t.range_popped(1600);
    CHECK(judged(t, "overlap").size() == 1);
}

TEST_CASE("a copy from pageable memory fails pinned, in a call that expects pinned copies only")
{
    Timeline t = two_streams_and_a_call();
    work(t, Work::copy_in, kIdA, 1, 110, 120, 300, true);
    work(t, Work::copy_in, kIdB, 2, 130, 130, 300);
    t.range_popped(1000);
    const Findings f = judged(t, "pinned");
    CHECK(f.size() == 1);
    CHECK(says(f, cml::schedule::pageable_copy("pipeline_overlapped", false, true)));

    Timeline unwatched;
    unwatched.range_pushed("cml call: pipeline_pageable; expects:", 100);
    work(unwatched, Work::copy_in, kDefaultId, 1, 110, 120, 300, true);
    unwatched.range_popped(1000);
    CHECK(judged(unwatched, "pinned").size() == 0);
}

// Part A's call on 1000 floats, with the caller's buffers and the mark the test program writes for them, and two
// device buffers of the call's own (never read: a copy's device side is an address to the judge).
struct PartA {
    static constexpr std::size_t kFloats = 1000, kBytes = kFloats * sizeof(float);
    static constexpr std::uintptr_t kInDev = 0xd0000, kOutDev = 0xe0000, kScratch = 0xf0000;
    std::vector<float> in, out, staged;
    Timeline t;

    PartA() : in(kFloats), out(kFloats), staged(kFloats)
    {
        for (std::size_t i = 0; i < kFloats; ++i) {
            in[i] = 0.5f + float(i);
            out[i] = -in[i];  // what the call gave back
        }
        char mark[256];
        std::snprintf(mark, sizeof mark,
                      "cml call: pipeline_pinned; expects: pinned copies,; buffers: in 0x%llx of %zu bytes, out "
                      "0x%llx of %zu bytes",
                      static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(in.data())), kBytes,
                      static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(out.data())), kBytes);
        t.device_allocated(kInDev, kBytes);
        t.device_allocated(kOutDev, kBytes);
        t.device_allocated(kScratch, kBytes);
        t.pinned(reinterpret_cast<std::uintptr_t>(in.data()), kBytes);
        t.pinned(reinterpret_cast<std::uintptr_t>(out.data()), kBytes);
        t.range_pushed(mark, 100);
    }
    void copy_in(const float* from, std::uintptr_t to, std::size_t floats)
    {
        t.copy_issued(false, from, to, floats * sizeof(float), kDefaultId, true);
    }
    void copy_out(std::uintptr_t from, float* to, std::size_t floats)
    {
        t.copy_issued(true, to, from, floats * sizeof(float), kDefaultId, true);
    }
    void kernel(std::vector<std::uintptr_t> words) { t.kernel_issued(kDefaultId, words); }
    Findings returned()
    {
        t.api_entered(99, 900);
        t.synchronised(99, true, 0, 950);
        t.range_popped(1000);
        return judged(t, "pinned");
    }
};

TEST_CASE("a call that copies the caller's in to the buffer its kernel is given, and that buffer back to out, passes")
{
    PartA a;
    a.copy_in(a.in.data(), PartA::kInDev, PartA::kFloats);
    a.kernel({PartA::kInDev, PartA::kOutDev, PartA::kFloats});
    a.copy_out(PartA::kOutDev, a.out.data(), PartA::kFloats);
    CHECK(a.returned().size() == 0);
}

TEST_CASE("a call that expects pinned copies and copies nothing fails pinned, for its input and its output")
{
    PartA a;
    const Findings f = a.returned();
    CHECK(f.size() == 2);
    CHECK(says(f, cml::schedule::not_copied("pipeline_pinned", false, true)));
    CHECK(says(f, cml::schedule::not_copied("pipeline_pinned", true, true)));
    CHECK(f.texts()[0].find("copied none of its input to the GPU") != std::string::npos);
}

// The family of decoys: bytes copied, each way, that are not the data the kernel computes on.
TEST_CASE("decoy copies beside a kernel on mapped memory fail pinned, however many bytes they carry")
{
    SUBCASE("the input to a buffer no kernel is given, and back into the input, the kernel on the mapped buffers")
    {
        PartA a;
        const auto in = reinterpret_cast<std::uintptr_t>(a.in.data());
        const auto out = reinterpret_cast<std::uintptr_t>(a.out.data());
        a.t.mapped_for_gpu(0x7000000, in);  // the device's own address of the caller's mapped input
        a.copy_in(a.in.data(), PartA::kScratch, PartA::kFloats);
        a.kernel({0x7000000, out, PartA::kFloats});
        a.copy_out(PartA::kScratch, a.in.data(), PartA::kFloats);
        const Findings f = a.returned();
        CHECK(f.size() == 3);
        CHECK(says(f, cml::schedule::kernel_reached_host("pipeline_pinned")));
        CHECK(says(f, cml::schedule::not_copied("pipeline_pinned", false, true)));
        CHECK(says(f, cml::schedule::not_copied("pipeline_pinned", true, true)));
    }
    SUBCASE("the buffers the kernel is given, but it also reaches the caller's out at its host address")
    {
        PartA a;
        a.copy_in(a.in.data(), PartA::kInDev, PartA::kFloats);
        a.kernel({PartA::kInDev, PartA::kOutDev, reinterpret_cast<std::uintptr_t>(a.out.data())});
        a.copy_out(PartA::kOutDev, a.out.data(), PartA::kFloats);
        const Findings f = a.returned();
        CHECK(f.size() == 1);
        CHECK(says(f, cml::schedule::kernel_reached_host("pipeline_pinned")));
    }
    SUBCASE("the output copied back from a buffer no kernel was given before the copy")
    {
        PartA a;
        a.copy_in(a.in.data(), PartA::kInDev, PartA::kFloats);
        a.copy_out(PartA::kOutDev, a.out.data(), PartA::kFloats);
        a.kernel({PartA::kInDev, PartA::kOutDev, PartA::kFloats});
        const Findings f = a.returned();
        CHECK(f.size() == 1);
        CHECK(says(f, cml::schedule::not_copied("pipeline_pinned", true, true)));
    }
}

TEST_CASE("chunked copies that together carry the input and the output pass pinned; a chunk short fails it")
{
    constexpr std::size_t kChunk = PartA::kFloats / 4;
    for (const std::size_t chunks_back : {4, 3}) {
        PartA a;
        for (std::size_t c = 0; c < 4; ++c) {
            const std::size_t first = c * kChunk;
            a.copy_in(a.in.data() + first, PartA::kInDev + first * sizeof(float), kChunk);
            a.kernel({PartA::kInDev + first * sizeof(float), PartA::kOutDev + first * sizeof(float), kChunk});
            if (c < chunks_back)
                a.copy_out(PartA::kOutDev + first * sizeof(float), a.out.data() + first, kChunk);
        }
        const Findings f = a.returned();
        CHECK(f.size() == (chunks_back == 4 ? 0 : 1));
        if (chunks_back == 3) CHECK(says(f, cml::schedule::not_copied("pipeline_pinned", true, false)));
    }
}

TEST_CASE("a staging buffer carries the input where its bytes are the input's, and the output where out ends with "
          "what arrived in it")
{
    SUBCASE("the whole array staged both ways")
    {
        PartA a;
        const auto staged = reinterpret_cast<std::uintptr_t>(a.staged.data());
        a.t.pinned(staged, PartA::kBytes);
        a.staged = a.in;
        a.copy_in(a.staged.data(), PartA::kInDev, PartA::kFloats);
        a.kernel({PartA::kInDev, PartA::kOutDev, PartA::kFloats});
        a.copy_out(PartA::kOutDev, a.staged.data(), PartA::kFloats);
        a.staged = a.out;  // what the copy brought: out's own results
        a.t.releasing(staged);
        a.t.unpinned(staged);
        CHECK(a.returned().size() == 0);
    }
    SUBCASE("bytes that are not the input's, and bytes that out does not hold, count for nothing")
    {
        PartA a;
        const auto staged = reinterpret_cast<std::uintptr_t>(a.staged.data());
        a.t.pinned(staged, PartA::kBytes);
        a.staged.assign(PartA::kFloats, 7.0f);
        a.copy_in(a.staged.data(), PartA::kInDev, PartA::kFloats);
        a.kernel({PartA::kInDev, PartA::kOutDev, PartA::kFloats});
        a.copy_out(PartA::kOutDev, a.staged.data(), PartA::kFloats);
        a.t.releasing(staged);
        a.t.unpinned(staged);
        const Findings f = a.returned();
        CHECK(f.size() == 2);
        CHECK(says(f, cml::schedule::not_copied("pipeline_pinned", false, true)));
        CHECK(says(f, cml::schedule::not_copied("pipeline_pinned", true, true)));
    }
}

TEST_CASE("copies made outside the call are not its own, and a call that expects no pinned copies needs none")
{
    PartA a;
    a.t.range_popped(150);
    a.copy_in(a.in.data(), PartA::kInDev, PartA::kFloats);  // after the call: the harness's
    a.kernel({PartA::kInDev, PartA::kOutDev, PartA::kFloats});
    a.copy_out(PartA::kOutDev, a.out.data(), PartA::kFloats);
    CHECK(judged(a.t, "pinned").size() == 2);

    Timeline managed;  // Part C, and the zero-copy stretch, move their data with no copy
    managed.range_pushed("cml call: pipeline_managed; expects: prefetched,", 100);
    managed.range_popped(1000);
    CHECK(judged(managed, "pinned").size() == 0);
}

TEST_CASE("a kernel the GPU ran whose launch the recorder never saw is a finding of pinned, never a pass")
{
    PartA a;
    a.copy_in(a.in.data(), PartA::kInDev, PartA::kFloats);
    a.t.api_entered(7, 120);
    a.t.add(Activity{Work::kernel, kDefaultId, false, true, 200, 300, 7});  // no launch callback came
    a.copy_out(PartA::kOutDev, a.out.data(), PartA::kFloats);
    const Findings f = a.returned();
    CHECK(says(f, cml::schedule::arguments_not_read_finding(
                      "pipeline_pinned", "the GPU ran more of its kernels than the recorder saw launched")));
}

TEST_CASE("a kernel whose arguments could not be read is a finding of pinned, never a pass")
{
    PartA a;
    a.copy_in(a.in.data(), PartA::kInDev, PartA::kFloats);
    a.t.arguments_not_read("no parameter table");
    a.kernel({});
    a.copy_out(PartA::kOutDev, a.out.data(), PartA::kFloats);
    const Findings f = a.returned();
    CHECK(says(f, cml::schedule::arguments_not_read_finding("pipeline_pinned", "no parameter table")));
}

// The GPU's times, converted to the host's clock, may lead it: what the host saw come back bounds them.
TEST_CASE("a copy the call waited for has ended by the time the wait returned, whatever its recorded end")
{
    SUBCASE("a synchronise of its stream")
    {
        Timeline t = two_streams_and_a_call();
        work(t, Work::copy_out, kIdA, 1, 110, 120, 1010);
        t.api_entered(2, 500);
        t.synchronised(2, false, kIdA, 900);
        t.range_popped(1000);
        CHECK(judged(t, "returned").size() == 0);
    }
    SUBCASE("a synchronise of another stream, or one entered before the copy was issued, does not count")
    {
        Timeline t = two_streams_and_a_call();
        t.api_entered(1, 105);
        t.synchronised(1, true, 0, 108);
        work(t, Work::copy_out, kIdA, 2, 110, 120, 1010);
        t.api_entered(3, 500);
        t.synchronised(3, false, kIdB, 900);
        t.range_popped(1000);
        CHECK(judged(t, "returned").size() == 1);
    }
    SUBCASE("a cudaMemcpy, which returns once its copy is done")
    {
        Timeline t;
        t.range_pushed("cml call: pipeline_pinned; expects: pinned copies,", 100);
        t.api_entered(1, 110);
        t.add(Activity{Work::copy_out, kDefaultId, false, false, 120, 1010, 1});
        t.api_returned(1, 950);
        t.range_popped(1000);
        CHECK(judged(t).size() == 0);
    }
}

TEST_CASE("a copy issued after a synchronise of the kernel's stream did not run beside it, and fails overlap")
{
    Timeline t = two_streams_and_a_call();
    work(t, Work::kernel, kIdA, 1, 110, 200, 420);  // its recorded end leads the host's clock past the wait
    t.api_entered(2, 150);
    t.synchronised(2, false, kIdA, 400);
    work(t, Work::copy_in, kIdB, 3, 410, 430, 600);
    t.range_popped(1000);
    CHECK(says(judged(t, "overlap"), cml::schedule::never_overlapped_on_the_gpu("pipeline_overlapped")));
}

TEST_CASE("streams, events and pinned memory made in a call and alive when it returns fail returned")
{
    Timeline t;
    t.range_pushed("cml call: pipeline_pinned; expects: pinned copies,", 100);
    t.stream_created(kStreamA, kIdA);
    t.stream_created(kStreamB, kIdB);
    t.stream_destroyed(kStreamB);
    t.event_created(0xe0);
    t.pinned(0x1000);
    t.pinned(0x2000);
    t.unpinned(0x2000);
    t.range_popped(1000);
    const Findings f = judged(t, "returned");
    CHECK(f.size() == 3);
    CHECK(f.count(cml::schedule::stream_left_alive("pipeline_pinned", false)) == 1);
    CHECK(says(f, cml::schedule::event_left_alive("pipeline_pinned")));
    CHECK(f.count(cml::schedule::pinned_left_pinned("pipeline_pinned")) == 1);
    CHECK(f.texts()[2].find("still pinned") != std::string::npos);
}

TEST_CASE("work belongs to the call that issued it, not to the harness's copies between calls")
{
    Timeline t = two_streams_and_a_call();
    work(t, Work::copy_out, kIdA, 1, 110, 120, 300);
    synchronise_device(t, 3, 150, 310);
    t.range_popped(1000);
    t.api_entered(2, 1100);  // the test reads the output back: outside any call
    t.add(Activity{Work::copy_out, kDefaultId, true, false, 1100, 1400, 2});  // pageable, after the pop
    CHECK(judged(t, "pinned,returned").size() == 0);
}

TEST_CASE("a copy the record ties to no API call belongs to the call it started in")
{
    Timeline t = two_streams_and_a_call();
    t.add(Activity{Work::copy_out, kIdA, false, true, 500, 1300, 0});
    t.range_popped(1000);
    CHECK(judged(t, "returned").size() == 1);
}

TEST_CASE("nested ranges inside a watched call do not end it, and the same mistake twice is one finding")
{
    Timeline t;
    for (std::uint64_t at : {100, 2000}) {
        t.range_pushed("cml call: pipeline_pinned; expects: pinned copies,", at);
        t.range_pushed("cml call: inner", at + 1);  // not a second watched call
        t.range_popped(at + 2);
        t.pinned(at);
        t.range_popped(at + 900);
    }
    const Findings f = judged(t);
    CHECK(f.size() == 1);
    CHECK(f.count(cml::schedule::pinned_left_pinned("pipeline_pinned")) == 2);
}

TEST_CASE("the findings and the summary are printed as the emulator prints them")
{
    Findings f("returned");
    f.add("pinned", "not asked for");
    f.add("returned", "Schedule error: x");
    f.add("returned", "Schedule error: x");
    CHECK(printed(f) ==
          "========= Schedule error: x\n=========     (2 times)\n=========\n"
          "========= SCHEDULE SUMMARY (returned): 1 error\n========= SCHEDULE SUMMARY: 1 error\n");
}

TEST_CASE("several aspects are printed each with its own findings and summary, then the summary of them all")
{
    Findings f("pinned,returned");
    f.add("returned", "Schedule error: left");
    f.add("pinned", "Schedule error: pageable");
    f.add("overlap", "not asked for");
    f.add("returned", "Schedule error: lost");
    f.add("pinned", "Schedule error: lost");
    CHECK(f.size() == 3);
    CHECK(printed(f, 1) ==
          "========= Schedule error: pageable\n=========     (1 time)\n=========\n"
          "========= SCHEDULE SUMMARY (pinned): 2 errors\n"
          "========= Schedule error: left\n=========     (1 time)\n=========\n"
          "========= SCHEDULE SUMMARY (returned): 2 errors\n========= SCHEDULE SUMMARY: 3 errors\n");
}

TEST_CASE("a range's message is a watched call's only with the prefix, and names what it expects")
{
    CHECK_FALSE(cml::schedule::call_mark("pipeline_pinned").has_value());
    const auto mark = cml::schedule::call_mark(kOverlapped);
    REQUIRE(mark.has_value());
    CHECK(mark->name == "pipeline_overlapped");
    CHECK(mark->expects_pinned);
    CHECK(mark->expects_overlap);
    CHECK(mark->bytes_in == 0);  // a mark that states no sizes asks for no bytes

    const auto sized = cml::schedule::call_mark(
        "cml call: pipeline_overlapped; expects: pinned copies of 4000 bytes in and 8000000000 bytes out, 2 streams,");
    REQUIRE(sized.has_value());
    CHECK(sized->bytes_in == 4000);
    CHECK(sized->bytes_out == 8'000'000'000ULL);
    CHECK(sized->expects_overlap);
}

TEST_CASE("a GPU page fault inside a call that expects prefetching fails prefetched; one before the call does not")
{
    constexpr const char* kManaged = "cml call: pipeline_managed; expects: prefetched,";
    const auto mark = cml::schedule::call_mark(kManaged);
    REQUIRE(mark.has_value());
    CHECK(mark->expects_prefetched);
    CHECK_FALSE(mark->expects_pinned);

    Timeline before;
    before.faults_counted_from(10);
    before.page_fault(50);
    before.range_pushed(kManaged, 100);
    before.range_popped(1000);
    before.page_fault(1500);
    CHECK(judged(before, "prefetched").size() == 0);

    Timeline inside = before;
    inside.page_fault(400);
    const Findings f = judged(inside, "prefetched");
    CHECK(f.size() == 1);
    CHECK(says(f, cml::schedule::page_faulted("pipeline_managed")));

    Timeline expects_none;
    expects_none.faults_counted_from(10);
    expects_none.range_pushed("cml call: pipeline_pinned; expects: pinned copies,", 100);
    expects_none.page_fault(400);
    expects_none.range_popped(1000);
    CHECK(judged(expects_none, "prefetched").size() == 0);
}

TEST_CASE("faults that could not be counted are a finding of a call that expects prefetching, never a pass")
{
    Timeline t;
    t.faults_not_counted("cuptiActivityEnable(UNIFIED_MEMORY_COUNTER): not supported");
    t.range_pushed("cml call: pipeline_managed; expects: prefetched,", 100);
    t.range_popped(1000);
    const Findings f = judged(t, "prefetched");
    CHECK(f.size() == 1);
    CHECK(f.texts()[0].find("not measured") != std::string::npos);
    CHECK(judged(t, "returned").size() == 0);
}

TEST_CASE("faults counted only from after a call began are not measured for that call, and never a pass")
{
    constexpr const char* kManaged = "cml call: pipeline_managed; expects: prefetched,";
    Timeline late;
    late.range_pushed(kManaged, 100);
    late.faults_counted_from(200);
    late.range_popped(1000);
    const Findings f = judged(late, "prefetched");
    CHECK(f.size() == 1);
    CHECK(f.texts()[0].find("counting began only after the call did") != std::string::npos);

    Timeline never;  // no counter enabled, and no reason given: still not measured
    never.range_pushed(kManaged, 100);
    never.range_popped(1000);
    CHECK(judged(never, "prefetched").size() == 1);

    Timeline next;  // counted from before the next call: that one is judged, and clean
    next.range_pushed(kManaged, 100);
    next.faults_counted_from(200);
    next.range_popped(1000);
    next.range_pushed(kManaged, 1100);
    next.range_popped(2000);
    CHECK(judged(next, "prefetched").size() == 1);
}

TEST_CASE("results the host read from managed memory need a prefetch back after the kernel, in the stream's order")
{
    constexpr std::size_t kFloats = 256, kBytes = kFloats * sizeof(float);
    const std::vector<float> out(kFloats, 4.0f);  // what the caller got: the managed results, read by the host
    std::vector<float> results = out, inputs(kFloats, 1.0f);
    const auto at = reinterpret_cast<std::uintptr_t>(results.data());
    const auto in_at = reinterpret_cast<std::uintptr_t>(inputs.data());
    char mark[200];
    std::snprintf(mark, sizeof mark,
                  "cml call: pipeline_managed; expects: prefetched,; buffers: in 0x%llx of %zu bytes, out 0x%llx of %zu "
                  "bytes",
                  static_cast<unsigned long long>(in_at), kBytes,
                  static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(out.data())), kBytes);
    auto call = [&](int back) {  // 0: no prefetch back; 1: on the kernel's stream; 2: on another, unordered
        Timeline t;
        t.faults_counted_from(10);
        t.stream_created(kStreamA, kIdA, false);
        t.stream_created(kStreamB, kIdB, false);
        t.range_pushed(mark, 100);
        for (std::uintptr_t start : {in_at, at}) {
            t.managed_allocated(start, kBytes);
            t.prefetch_issued(start, kBytes, true, kIdA);
        }
        t.kernel_issued(kIdA, {in_at, at, kFloats});
        if (back) t.prefetch_issued(at, kBytes, false, back == 1 ? kIdA : kIdB);
        synchronise_device(t, 1, 200, 300);
        for (std::uintptr_t start : {in_at, at}) {
            t.managed_freeing(start);
            t.managed_freed(start);
        }
        t.range_popped(1000);
        return judged(t, "prefetched");
    };
    CHECK(says(call(0), cml::schedule::not_prefetched_back("pipeline_managed")));
    CHECK(call(1).size() == 0);
    CHECK(says(call(2), cml::schedule::not_prefetched_back("pipeline_managed")));
}

TEST_CASE("managed memory allocated in a call and not freed when it returns fails returned")
{
    Timeline t;
    t.range_pushed("cml call: pipeline_managed; expects: prefetched,", 100);
    t.managed_allocated(0x1000);
    t.managed_allocated(0x2000);
    t.managed_freed(0x2000);
    t.range_popped(1000);
    const Findings f = judged(t, "returned");
    CHECK(f.size() == 1);
    CHECK(f.count(cml::schedule::managed_left_allocated("pipeline_managed")) == 1);
}

TEST_CASE("device memory allocated in a call and not freed when it returns fails returned; one made before does not")
{
    Timeline t;
    t.device_allocated(0x9000, 64);  // the caller's own buffer, alive throughout
    t.range_pushed("cml call: pipeline_pinned; expects: ", 100);
    t.device_allocated(0x1000, 64);
    t.device_allocated(0x2000, 64);
    t.device_freed(0x2000);
    t.range_popped(1000);
    const Findings f = judged(t, "returned");
    CHECK(f.size() == 1);
    CHECK(f.count(cml::schedule::device_left_allocated("pipeline_pinned")) == 1);
}

TEST_CASE("the copies' time a kernel ran beside: none of it, all of it, or the part the two share")
{
    SUBCASE("no overlap: the kernel runs after the copy, even where it starts as the copy ends")
    {
        CHECK(fraction({{kIdA, 100, 200}}, {{kIdA, 200, 300}}) == 0.0);
        CHECK(fraction({{kIdA, 100, 200}}, {}) == 0.0);
    }
    SUBCASE("full overlap: the copy runs wholly inside the kernel")
    {
        CHECK(fraction({{kIdA, 150, 250}}, {{kIdB, 100, 300}}) == 1.0);
        CHECK(fraction({{kIdA, 100, 300}}, {{kIdB, 100, 300}}) == 1.0);
    }
    SUBCASE("partial: a quarter of the copy, then three quarters")
    {
        CHECK(fraction({{kIdA, 100, 500}}, {{kIdB, 400, 900}}) == 0.25);
        CHECK(fraction({{kIdA, 100, 500}}, {{kIdB, 0, 200}, {kIdB, 250, 450}}) == 0.75);
    }
}

TEST_CASE("over several streams, copies that overlap each other count once, and so do kernels")
{
    // Copies on A and B cover [100, 500] together (400 ns); kernels on A and B cover [300, 600] together.
    const std::vector<Interval> copies = {{kIdA, 100, 300}, {kIdB, 200, 500}, {kIdA, 250, 260}};
    const std::vector<Interval> kernels = {{kIdB, 300, 450}, {kIdA, 400, 600}, {kDefaultId, 320, 330}};
    CHECK(fraction(copies, kernels) == 0.5);
    // The order of the records does not matter.
    CHECK(fraction({copies[2], copies[0], copies[1]}, {kernels[1], kernels[2], kernels[0]}) == 0.5);
}

TEST_CASE("copies that took no time have no fraction, whatever the kernels did")
{
    CHECK_FALSE(fraction({}, {{kIdA, 100, 200}}).has_value());
    CHECK_FALSE(fraction({{kIdA, 150, 150}, {kIdB, 160, 150}}, {{kIdA, 100, 200}}).has_value());
}

TEST_CASE("a call that expects two streams measures its own copies and kernels only, on the GPU's times")
{
    Timeline t = two_streams_and_a_call();
    work(t, Work::copy_in, kIdA, 1, 110, 120, 320);   // 200 ns, its kernel beside it from 220
    work(t, Work::kernel, kIdB, 2, 115, 220, 420);
    work(t, Work::copy_out, kIdB, 3, 116, 600, 800);  // 200 ns, left running past the call's end at 700
    t.range_popped(700);
    t.add(Activity{Work::kernel, kDefaultId, false, true, 750, 900, 0});  // the harness's, beside that copy
    t.range_pushed("cml call: pipeline_pinned; expects: pinned copies,", 1000);  // expects no overlap: no figure
    work(t, Work::copy_in, kDefaultId, 4, 1010, 1020, 1100);
    t.range_popped(1200);
    const std::vector<cml::schedule::CopyTime> times = t.copies_overlapped();
    REQUIRE(times.size() == 1);
    CHECK(times[0].copying == 400);
    CHECK(times[0].computing == 200);
    CHECK(times[0].beside == 100);
}

TEST_CASE("the overlap figure weighs the calls by their time, and shows the longest call's own shares")
{
    using cml::schedule::overlap_figure;
    // A long call mostly hidden and many short ones not at all: the long call sets the figure, not the median.
    CHECK(overlap_figure({{4'000'000, 3'500'000, 3'000'000}, {0, 0, 0}, {20'000, 5'000, 0}, {30'000, 5'000, 0},
                          {50'000, 10'000, 0}}) ==
          "copies ran beside a kernel for 73% of their time on the GPU, kernels beside a copy for 85% of theirs (4.1 "
          "ms of copies and 3.52 ms of kernels over 4 calls; the call that copied longest, 4 ms: 75% and 86%)");
    // Kernels shorter than their copies: the copies' share is at most the kernels' time over theirs.
    CHECK(overlap_figure({{2'000'000, 500'000, 500'000}}) ==
          "copies ran beside a kernel for 25% of their time on the GPU, kernels beside a copy for 100% of theirs (2 "
          "ms of copies and 0.5 ms of kernels in 1 call)");
    // A share above nothing never reads 0%, nor one short of all of it 100%.
    CHECK(overlap_figure({{1'000'000, 1'000'000, 1'000}}) ==
          "copies ran beside a kernel for under 1% of their time on the GPU, kernels beside a copy for under 1% of "
          "theirs (1 ms of copies and 1 ms of kernels in 1 call)");
    CHECK(overlap_figure({{1'000'000, 999'000, 999'000}}) ==
          "copies ran beside a kernel for over 99% of their time on the GPU, kernels beside a copy for 100% of "
          "theirs (1 ms of copies and 0.999 ms of kernels in 1 call)");
    CHECK(overlap_figure({{1'000'000, 0, 0}}) ==
          "copies ran beside a kernel for 0% of their time on the GPU, no kernel ran (1 ms of copies and 0 ms of "
          "kernels in 1 call)");
    CHECK(overlap_figure({{1'000'000, 0, 0}, {500'000, 100'000, 50'000}}) ==
          "copies ran beside a kernel for 3% of their time on the GPU, kernels beside a copy for 50% of theirs (1.5 "
          "ms of copies and 0.1 ms of kernels over 2 calls; the call that copied longest, 1 ms: 0% and no kernel)");
    CHECK(overlap_figure({{0, 100, 0}}) ==
          cml::schedule::no_overlap_figure("no call that expects two streams copied for any time on the GPU"));
    CHECK(overlap_figure({}) == overlap_figure({{0, 0, 0}}));
}

TEST_CASE("the judge prints the overlap figure with the overlap aspect, before its summary, and not as a finding")
{
    Timeline t = two_streams_and_a_call();
    work(t, Work::copy_in, kIdA, 1, 110, 120, 320);
    work(t, Work::kernel, kIdB, 2, 115, 220, 420);
    synchronise_device(t, 3, 117, 630);
    t.range_popped(700);
    const Findings f = judged(t, "pinned,overlap");
    CHECK(f.size() == 0);
    CHECK(printed(f) == "========= SCHEDULE SUMMARY (pinned): 0 errors\n"
                        "========= SCHEDULE MEASURED (overlap): copies ran beside a kernel for 50% of their time on "
                        "the GPU, kernels beside a copy for 50% of theirs (0.0002 ms of copies and 0.0002 ms of kernels in "
                        "1 call)\n"
                        "========= SCHEDULE SUMMARY (overlap): 0 errors\n========= SCHEDULE SUMMARY: 0 errors\n");
    // Not asked for, the aspect prints nothing of it; the emulator, which measures nothing, prints nothing of it.
    CHECK(printed(judged(t, "pinned")).find("MEASURED") == std::string::npos);
    Findings emulator("overlap");
    emulator.add("overlap", "Schedule error: x");
    CHECK(printed(emulator).find("MEASURED") == std::string::npos);
}

TEST_CASE("a measurement said again replaces the first, and stays apart from the findings")
{
    Findings f("overlap");
    f.measured("overlap", "first");
    f.add("overlap", "Schedule error: x");
    f.measured("overlap", "second");
    CHECK(f.size() == 1);
    CHECK(printed(f) == "========= Schedule error: x\n=========     (1 time)\n=========\n"
                        "========= SCHEDULE MEASURED (overlap): second\n"
                        "========= SCHEDULE SUMMARY (overlap): 1 error\n========= SCHEDULE SUMMARY: 1 error\n");
}
