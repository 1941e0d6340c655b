// Comparison of a kernel's output with a CPU reference, element by element.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cml {

// An element passes when |got - want| <= abs_tol + rel_tol * |want|. Derive the tolerances from the
// arithmetic (how many roundings, of what magnitude) in the test, never by trial.
struct Tolerance {
    double rel_tol = 0.0;
    double abs_tol = 0.0;
};

struct Comparison {
    bool ok = true;
    std::size_t count = 0;
    std::size_t bad_count = 0;
    std::size_t first_bad = 0;  // meaningful when !ok
    double first_bad_got = 0.0;
    double first_bad_want = 0.0;
    bool first_bad_unwritten = false;  // still holds the poison pattern: the kernel never wrote it
    bool first_bad_nan = false;        // a NaN other than the poison: one the kernel's arithmetic made
    double max_rel_error = 0.0;        // over all elements, |got - want| / max(|want|, tiny)

    // One line for a test report: "ok, max relative error 0" or "3 of 33 elements wrong; first at 32: ...".
    std::string describe() const;
};

Comparison compare(const std::vector<float>& got, const std::vector<double>& want, Tolerance tolerance);
// The same, of `count` elements at `got` and `want` (on the host), on every core where they are many.
Comparison compare(const float* got, const double* want, std::size_t count, Tolerance tolerance);

// `later`, the comparison of other elements (its first_bad an index into the same output), added to `whole`.
void append(Comparison& whole, const Comparison& later);

// True when the value still has every byte of the poison pattern.
bool is_poison(float value);

}  // namespace cml
