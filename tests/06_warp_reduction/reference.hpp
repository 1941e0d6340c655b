// CPU reference for Lab 6, in double: the sum of each block's elements, and how far a float sum may be from it.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "cml/random.hpp"
#include "warp_reduction.hpp"

// Block b's elements are in[b * kBlock * per_thread ...] up to kBlock * per_thread of them (warp_reduction.hpp);
// which thread adds which does not change the sum. In double, a sum of at most 2048 floats errs by less than
// 2048 x 2^-53 of the sum of their magnitudes: negligible next to the float tolerance below.
inline std::vector<double> block_sums_reference(const std::vector<float>& in, int per_thread)
{
    const int n = int(in.size());
    const std::size_t span = std::size_t(kBlock) * per_thread;
    std::vector<double> sums(block_count(n, per_thread), 0.0);
    for (std::size_t j = 0; j < in.size(); ++j) sums[j / span] += in[j];
    return sums;
}

// How far a block's float sum may be from the reference, for any order of the additions, with
// m = kBlock * per_thread elements per block and u = 2^-24, the unit roundoff of float:
//  - whole numbers with m max|in| <= 2^24: every partial sum, in whatever order, is a whole number no larger
//    than m max|in|, which float holds exactly: the sums must be exact (tolerance 0);
//  - otherwise each element passes through at most m - 1 rounded additions, so the error is at most
//    gamma_(m-1) (sum of |in_j| over the block) <= gamma_(m-1) m max|in|, gamma_k = k u / (1 - k u)
//    (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., Lemma 3.1).
// At 1 element per thread (m = 256) and inputs in [-1, 1) that is 3.9e-3 on sums of typical size 9: enough
// to see most lost elements, while the whole-number tests see every one of them.
inline double block_sum_tolerance(int per_thread, double max_abs_in, bool whole)
{
    constexpr double kUnitRoundoff = 1.0 / (1 << 24);
    const double m = double(kBlock) * per_thread;
    if (whole && m * max_abs_in <= double(1 << 24)) return 0.0;
    const double additions = (m - 1) * kUnitRoundoff;
    return additions / (1.0 - additions) * m * max_abs_in;
}

inline double max_abs(const std::vector<float>& values)
{
    double most = 0.0;
    for (float v : values) most = std::max(most, double(std::fabs(v)));
    return most;
}

