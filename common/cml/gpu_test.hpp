// Decorators for doctest cases that need a GPU. With none present they are reported as skipped (the
// test main prints why), never as passed.
#pragma once

#include <doctest/doctest.h>

#include "cml/device_facts.hpp"
#include "cml/grader_sizes.hpp"

namespace cml {

// `TEST_CASE("..." * cml::needs_gpu())`; pass `attempted = false` for an optional stretch the student
// has not switched on, so its checks are skipped rather than failed or passed.
inline doctest::skip needs_gpu(bool attempted = true) { return doctest::skip(!attempted || !gpu_available()); }

// A case on the sizes the grader picks for this run (cml/grader_sizes.hpp): skipped outside the grader.
inline doctest::skip needs_grader_sizes(bool attempted = true)
{
    return doctest::skip(!attempted || !gpu_available() || grader_sizes().empty());
}

}  // namespace cml
