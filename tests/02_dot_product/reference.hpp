// CPU reference for Lab 2, in double, and how far a float dot product may be from it.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <random>
#include <vector>

#include "cml/random.hpp"

struct DotReference {
    double value = 0.0;     // sum of a_i b_i: each product is exact in double (24 + 24 bits < 53)
    double abs_sum = 0.0;   // sum of |a_i b_i|: the scale of every rounding error
    bool whole = true;      // every a_i and b_i is a whole number
    std::size_t n = 0;
};

inline DotReference dot_reference(const std::vector<float>& a, const std::vector<float>& b)
{
    DotReference ref;
    ref.n = a.size();
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double product = double(a[i]) * double(b[i]);
        ref.value += product;
        ref.abs_sum += std::fabs(product);
        ref.whole = ref.whole && a[i] == std::trunc(a[i]) && b[i] == std::trunc(b[i]);
    }
    return ref;
}

// How far the float result may be from the reference, for ANY order of the additions (atomics make the
// order unpredictable), with u = 2^-24, the unit roundoff of float:
//  - Whole-number inputs with sum |a_i b_i| <= 2^24: every product and every partial sum, in whatever
//    order, is a whole number no larger than sum |a_i b_i|. Float holds all of those exactly (and the
//    double reference too), so the result must be exact: tolerance 0.
//  - Otherwise: each product is rounded once and then passes through at most n - 1 rounded additions, so
//    the result is sum p_i (1 + theta_i) with |theta_i| <= gamma_n = n u / (1 - n u) (Higham, Accuracy and
//    Stability of Numerical Algorithms, 2nd ed., Lemma 3.1): |error| <= gamma_n sum |a_i b_i|. A fused
//    multiply-add only rounds less. The bound is worst case, far above typical errors of large sums, and
//    says nothing once n u >= 1, so the tests that must catch a lost or doubled element use whole numbers.
// The double reference errs by at most n 2^-53 sum |a_i b_i|, negligible next to either.
inline double dot_tolerance(const DotReference& ref)
{
    constexpr double kUnitRoundoff = 1.0 / (1 << 24);
    constexpr double kExactLimit = double(1 << 24);
    if (ref.whole && ref.abs_sum <= kExactLimit) return 0.0;
    const double nu = double(ref.n) * kUnitRoundoff;
    if (nu >= 1.0) return std::numeric_limits<double>::infinity();
    return nu / (1.0 - nu) * ref.abs_sum;
}

