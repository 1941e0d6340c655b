// What the emulator was asked to do, read once from the environment (see common/emu/README.md).
#pragma once

#include <string>

namespace cml_emu {

struct Options {
    bool memcheck = false;   // CML_EMU_CHECK has "memcheck": accesses outside allocations, misaligned accesses
    bool racecheck = false;  // "racecheck": shared-memory hazards between barriers
    bool initcheck = false;  // "initcheck": reads of shared memory no thread of the block wrote
    std::string profile;     // CML_EMU_PROFILE: per-line counters, as JSON to this path ("-": the table only)
    bool schedule = false;   // "schedule": host memory and streams, at the end of each watched call (schedule.hpp)
    std::string schedule_aspects;  // CML_EMU_SCHEDULE: which of the schedule's findings to report ("": all)
    int print_limit = 10;    // CML_EMU_PRINT_LIMIT: findings printed per tool
    int error_exitcode = 86; // CML_EMU_ERROR_EXITCODE: the exit status when a check found anything
    int workers = 0;         // CML_EMU_WORKERS: OS threads that run blocks (0: one per core)
    std::size_t stack_bytes = 64 * 1024;  // CML_EMU_STACK_KB: each GPU thread's stack

    bool any_check() const { return memcheck || racecheck || initcheck; }
    bool shared_tracking() const { return racecheck || initcheck; }
    bool watching() const { return any_check() || !profile.empty(); }  // the access callbacks have work
};

const Options& options();

}  // namespace cml_emu
