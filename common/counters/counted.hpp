// What the counters recorder (cupti_counters.cpp) is asked to count, and the line it answers with: plain C++,
// tested on the host alone (tests/test.cpp).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace cml::counters {

// A checked launch the grader asks about: its group's NVTX range ("" where the lab has no groups) and its
// role's, the innermost (common/cml/launches.cpp wraps each checked launch, and nothing else, in both).
struct CountedLaunch {
    std::string group;
    std::string role;
};

// "group<TAB>role" a line, as grader/steps/profile.py writes CML_COUNTED_LAUNCHES; lines without a tab are
// skipped.
std::vector<CountedLaunch> parse_launches(const std::string& listed);

// "m1,m2,...", as CML_COUNTER_METRICS lists the metrics; empty names are skipped.
std::vector<std::string> parse_metrics(const std::string& listed);

// The index in `launches` of the one whose ranges the open NVTX ranges `stack` (outermost first) end in: its
// role innermost, its group (if any) anywhere below; -1 if none.
int launch_at(const std::vector<CountedLaunch>& launches, const std::vector<std::string>& stack);

// What one counted launch came to: each metric summed over the kernels it launched, in the order asked.
struct Count {
    int launch = -1;             // index in the launches asked for
    std::size_t kernels = 0;     // kernels profiled in its ranges
    std::size_t dropped = 0;     // kernels CUPTI could not keep: the sums then miss them
    std::vector<double> values;  // per metric; NaN where CUPTI gave none
    std::vector<std::string> names;  // the kernels launched in its ranges, as CUDA names them (mangled), each once
};

// The line the grader reads on the program's stderr: "CML COUNTERS <mark> {json}", where `mark` is the word
// the grader gave this run alone, so that a line the program prints itself is not taken for one of these.
std::string count_line(const std::string& mark, const Count& count);
// The same for a failure of the recorder's own: the grader then counts with Nsight Compute instead.
std::string failure_line(const std::string& mark, const std::string& failure);

}  // namespace cml::counters
