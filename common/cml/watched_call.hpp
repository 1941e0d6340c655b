// One call of a student's host-side pipeline, marked for the checks that judge what it left behind: an NVTX
// range named "cml call: NAME; expects: ...", open for exactly the call. The CPU emulator's schedule check
// (CML_EMU_CHECK=schedule: common/emu/src/schedule.hpp) reads it, and on a GPU the grader's CUPTI recorder
// (common/schedule/cupti_recorder.cpp), through NVTX's injection. The test program writes the mark, not the
// student, so the sizes it states are the judge's to trust.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include <nvtx3/nvToolsExt.h>

namespace cml {

// What a watched call must show, besides leaving nothing behind.
constexpr unsigned kExpectPinnedCopies = 1;  // the data copied between the host and the GPU, from pinned memory
constexpr unsigned kExpectTwoStreams = 2;    // a copy and a kernel of two streams that may run at once
constexpr unsigned kExpectPrefetched = 4;    // no page faults on managed memory, the kernel's or the host's

// The buffers a call is given and gives back, in the caller's memory: a call that expects pinned copies must carry
// every byte of `in` to a device buffer its kernel is given, and every byte of `out` back from one, so that a
// kernel reaching host memory directly, beside copies of other bytes, is not a pass (common/schedule/data_path.hpp).
struct CallBuffers {
    const void* in = nullptr;
    std::size_t in_bytes = 0;
    const void* out = nullptr;
    std::size_t out_bytes = 0;
};

template <class Call>
void watched_call(const char* name, unsigned expects, CallBuffers buffers, Call call)
{
    std::string range = std::string("cml call: ") + name + "; expects:";
    if (expects & kExpectPinnedCopies)
        range += " pinned copies of " + std::to_string(buffers.in_bytes) + " bytes in and " +
                 std::to_string(buffers.out_bytes) + " bytes out,";
    if (expects & kExpectTwoStreams) range += " 2 streams,";
    if (expects & kExpectPrefetched) range += " prefetched,";
    char places[128];
    std::snprintf(places, sizeof places, "; buffers: in 0x%llx of %llu bytes, out 0x%llx of %llu bytes",
                  static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(buffers.in)),
                  static_cast<unsigned long long>(buffers.in_bytes),
                  static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(buffers.out)),
                  static_cast<unsigned long long>(buffers.out_bytes));
    range += places;
    nvtxRangePushA(range.c_str());
    call();
    nvtxRangePop();
}

}  // namespace cml
