// A cheap look at a large device output, for every timed launch of a student's kernel (cml/launches.hpp):
// a few chunks at random places, copied back and compared with the expected values there. Skipping a
// launch, or doing part of its work, shows in the sample; the full comparison stays for the checked launch,
// the last timed one and one drawn at random.
#pragma once

#include <vector>

#include "cml/compare.hpp"
#include "cml/device_buffer.hpp"

namespace cml {

// kSpotChunks chunks of kSpotChunk consecutive elements each, placed at random (the machine's entropy, not the
// run's seed): a kernel that leaves a fraction f of its output unwritten or wrong passes one look with a
// probability of about (1 - f)^kSpotChunks, and no launch goes unlooked-at.
constexpr std::size_t kSpotChunks = 64;
constexpr std::size_t kSpotChunk = 1024;

// The sample of `got` against `want`, as compare() would report it (first_bad indexes the whole output), and
// the elements at `also` besides: the outputs that the instance's refresh before this launch changed
// (cml/instances.hpp), which a result kept from an earlier launch gets wrong.
Comparison spot_check(const DeviceBuffer<float>& got, const std::vector<double>& want, Tolerance tolerance,
                      const std::vector<std::size_t>& also = {});

// The same look at an output in host memory: a whole pipeline's (Lab 10), which the host reads where it lies.
Comparison spot_check(const std::vector<float>& got, const std::vector<double>& want, Tolerance tolerance,
                      const std::vector<std::size_t>& also = {});

// The elements of `got` at `at` (read back one by one) against `want` there; first_bad indexes the whole output.
Comparison compare_at(const float* got, const std::vector<double>& want, const std::vector<std::size_t>& at,
                      Tolerance tolerance);

}  // namespace cml
