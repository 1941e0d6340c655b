// The counters as the profile shows them: per kernel (within its NVTX range), one row per source line,
// memory space and direction, the totals under the names of the Nsight Compute metrics they stand for,
// written as JSON (CML_EMU_PROFILE) and as a table on stderr.
#pragma once

#include <string>
#include <vector>

#include "profile.hpp"

namespace cml_emu {

struct LineRow {
    std::string file;
    int line = 0;
    LineCounters counters;  // of every instruction of the line in this space and direction
};

struct KernelReport {
    std::string name;   // the kernel's signature
    std::string range;  // the NVTX range open at its launches ("" for none)
    unsigned long long launches = 0;
    LaunchShapes shapes;  // summed over its launches
    std::vector<LineRow> rows;  // by file, line, space, direction
};

std::string json_report(const std::vector<KernelReport>& kernels);
std::string table_report(const std::vector<KernelReport>& kernels);

}  // namespace cml_emu
