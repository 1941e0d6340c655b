// One call of a student's host-side pipeline, marked for the checks that judge what it left behind: an NVTX
// range named "cml call: NAME; expects: ...", open for exactly the call. The CPU emulator's schedule check
// (CML_EMU_CHECK=schedule: common/emu/src/schedule.hpp) reads it, and on a GPU the grader's CUPTI recorder
// (common/schedule/cupti_recorder.cpp), through NVTX's injection. The test program writes the mark, not the
// student, so the sizes it states are the judge's to trust.
#pragma once

#include <cstddef>
#include <string>

#include <nvtx3/nvToolsExt.h>

namespace cml {

// What a watched call must show, besides leaving nothing behind.
constexpr unsigned kExpectPinnedCopies = 1;  // the data copied between the host and the GPU, from pinned memory
constexpr unsigned kExpectTwoStreams = 2;    // work in flight on two streams at once
constexpr unsigned kExpectPrefetched = 4;    // no kernel takes page faults on managed memory

// The bytes a call is given and gives back: a call that expects pinned copies copies at least these, the input
// to the GPU and the output to the host, so that a kernel reaching host memory directly is not a pass.
struct CallBytes {
    std::size_t in = 0, out = 0;
};

template <class Call>
void watched_call(const char* name, unsigned expects, CallBytes bytes, Call call)
{
    std::string range = std::string("cml call: ") + name + "; expects:";
    if (expects & kExpectPinnedCopies)
        range += " pinned copies of " + std::to_string(bytes.in) + " bytes in and " + std::to_string(bytes.out) +
                 " bytes out,";
    if (expects & kExpectTwoStreams) range += " 2 streams,";
    if (expects & kExpectPrefetched) range += " prefetched,";
    nvtxRangePushA(range.c_str());
    call();
    nvtxRangePop();
}

}  // namespace cml
