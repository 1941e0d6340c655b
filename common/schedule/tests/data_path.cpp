// The data's path through a call's pinned copies (data_path.hpp), on buffers of the test's own.
#include <doctest/doctest.h>

#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "schedule/data_path.hpp"
#include "schedule/findings.hpp"

namespace {

using cml::schedule::DataPath;

constexpr std::uintptr_t kInDev = 0x10000, kOutDev = 0x20000;
constexpr std::size_t kFloats = 64, kBytes = kFloats * sizeof(float), kChunk = 16;

// A call's buffers and its mark, its input 0.5, 1.5, ... and its output their negatives.
struct Call {
    std::vector<float> in = std::vector<float>(kFloats), out = std::vector<float>(kFloats);
    cml::schedule::CallMark mark;
    Call()
    {
        std::iota(in.begin(), in.end(), 0.5f);
        for (std::size_t i = 0; i < kFloats; ++i) out[i] = -in[i];
        mark.name = "pipeline_overlapped";
        mark.expects_pinned = true;
        mark.in = reinterpret_cast<std::uintptr_t>(in.data());
        mark.out = reinterpret_cast<std::uintptr_t>(out.data());
        mark.bytes_in = mark.bytes_out = kBytes;
    }
};

DataPath::Device device(std::uintptr_t allocation, std::size_t floats) { return {allocation, floats * sizeof(float)}; }

}  // namespace

TEST_CASE("data path: a ring of chunk-long staging buffers, reused, carries each chunk both ways")
{
    Call call;
    DataPath path(call.mark);
    std::vector<float> staging(kChunk);  // one pinned buffer, a chunk long, at offset 0 of itself
    for (std::size_t first = 0; first < kFloats; first += kChunk) {
        std::copy(call.in.begin() + long(first), call.in.begin() + long(first + kChunk), staging.begin());
        path.copied_to_device({staging.data(), 0}, device(kInDev, first), kChunk * sizeof(float));
        path.kernel({kInDev, kOutDev}, false);
        path.copied_to_host(device(kOutDev, first), {staging.data(), 0}, kChunk * sizeof(float));
        // The copy brought the chunk's results; the host learns it is done, then takes them to out.
        std::copy(call.out.begin() + long(first), call.out.begin() + long(first + kChunk), staging.begin());
        path.arrived(staging.data(), kChunk * sizeof(float));
    }
    CHECK(path.returned().empty());
}

TEST_CASE("data path: bytes staged that out never held, or read before they arrived, count for nothing")
{
    Call call;
    DataPath path(call.mark);
    std::vector<float> staging = call.in;
    path.copied_to_device({staging.data(), 0}, device(kInDev, 0), kBytes);
    path.kernel({kInDev, kOutDev}, false);
    path.copied_to_host(device(kOutDev, 0), {staging.data(), 0}, kBytes);
    std::fill(call.out.begin(), call.out.end(), 9.0f);  // the host took the staging buffer's old bytes
    std::copy(call.out.begin(), call.out.end(), staging.begin());
    staging.assign(kFloats, -1.0f);  // then the copy's bytes arrived, and out does not hold them
    path.arrived(staging.data(), kBytes);
    const std::vector<std::string> found = path.returned();
    REQUIRE(found.size() == 1);
    CHECK(found[0] == cml::schedule::not_copied("pipeline_overlapped", true, true));
}

TEST_CASE("data path: a copy to a __device__ variable reaches every kernel after it, and none before")
{
    Call call;
    DataPath after(call.mark);
    after.copied_to_device({call.in.data(), DataPath::kNotPinned}, {DataPath::kEveryKernel, 0}, kBytes);
    after.kernel({kOutDev}, false);
    after.copied_to_host(device(kOutDev, 0), {call.out.data(), DataPath::kNotPinned}, kBytes);
    CHECK(after.returned().empty());

    DataPath before(call.mark);
    before.kernel({kOutDev}, false);
    before.copied_to_device({call.in.data(), DataPath::kNotPinned}, {DataPath::kEveryKernel, 0}, kBytes);
    before.copied_to_host(device(kOutDev, 0), {call.out.data(), DataPath::kNotPinned}, kBytes);
    CHECK(before.returned() == std::vector<std::string>{cml::schedule::not_copied("pipeline_overlapped", false, true)});
}

TEST_CASE("data path: mapping host memory for the GPU in the call makes every later kernel one that reaches it")
{
    Call call;
    DataPath path(call.mark);
    path.copied_to_device({call.in.data(), DataPath::kNotPinned}, device(kInDev, 0), kBytes);
    path.host_memory_mapped();
    path.kernel({kInDev, kOutDev}, false);
    path.copied_to_host(device(kOutDev, 0), {call.out.data(), DataPath::kNotPinned}, kBytes);
    CHECK(path.returned() == std::vector<std::string>{cml::schedule::kernel_reached_host("pipeline_overlapped")});

    cml::schedule::CallMark unasked = call.mark;  // a call that expects no pinned copies is not judged
    unasked.expects_pinned = false;
    DataPath stretch(unasked);
    stretch.host_memory_mapped();
    stretch.kernel({}, true);
    CHECK(stretch.returned().empty());
}
