// Sizes the grader draws afresh for each run, or an instructor lists, and passes in CML_GRADER_SIZES
// ("1000003;17" or "17x33x65;1000x1x7"): output hard-coded for the public cases fails on them. A plain
// run of the tests has none, and the case that uses them is skipped, not passed (cml::needs_grader_sizes).
#pragma once

#include <vector>

namespace cml {

// One entry per size; each holds the lab's dimensions in order (n; or m, n, k; or rows, cols).
std::vector<std::vector<int>> grader_sizes();

// The same, for a lab whose sizes have `dimensions` parts; throws, naming the lab's format, when one does not.
std::vector<std::vector<int>> grader_sizes(std::size_t dimensions, const char* format);

}  // namespace cml
