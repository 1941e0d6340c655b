// One call of a student's host-side pipeline, marked for the checks that judge what it left behind: an NVTX
// range named "cml call: NAME; expects: ...", open for exactly the call. The CPU emulator's schedule check
// (CML_EMU_CHECK=schedule: common/emu/src/schedule.hpp) reads it, and on a GPU the grader's CUPTI recorder
// (common/schedule/cupti_recorder.cpp), through NVTX's injection.
#pragma once

#include <string>

#include <nvtx3/nvToolsExt.h>

namespace cml {

// What a watched call must show, besides leaving nothing behind.
constexpr unsigned kExpectPinnedCopies = 1;  // every copy between the host and the GPU from pinned memory
constexpr unsigned kExpectTwoStreams = 2;    // work in flight on two streams at once
constexpr unsigned kExpectPrefetched = 4;    // no kernel takes page faults on managed memory

template <class Call>
void watched_call(const char* name, unsigned expects, Call call)
{
    std::string range = std::string("cml call: ") + name + "; expects:";
    if (expects & kExpectPinnedCopies) range += " pinned copies,";
    if (expects & kExpectTwoStreams) range += " 2 streams,";
    if (expects & kExpectPrefetched) range += " prefetched,";
    nvtxRangePushA(range.c_str());
    call();
    nvtxRangePop();
}

}  // namespace cml
