// CPU reference for Lab 7, in double, and the error bound of evaluating a polynomial by Horner's rule in fp32.
#pragma once

#include <cmath>
#include <random>
#include <vector>

#include "cml/parallel.hpp"
#include "cml/random.hpp"
#include "constant_memory.hpp"

// p(x) by Horner's rule in double. Its own error obeys the bound below with u = 2^-53: 2^29 times smaller
// than the fp32 bound the kernels are held to.
inline std::vector<double> polynomial_reference(const std::vector<float>& c, const std::vector<float>& x)
{
    std::vector<double> y(x.size());
    cml::parallel_ranges(x.size(), cml::kGrain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            double p = c.back();
            for (int k = int(c.size()) - 2; k >= 0; --k) p = p * x[i] + c[k];
            y[i] = p;
        }
    });
    return y;
}

// Horner's rule in fp32 with d = count - 1 steps, each a multiply and an add rounded separately (or one fma,
// rounded once), errs by at most gamma(2d) * sum_k |c[k]| |x|^k, where gamma(m) = m u / (1 - m u) and
// u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, eq. 5.3). This returns that bound for
// the x where it is largest: one absolute tolerance for every element. The sum grows with |x| (every term
// is >= 0), and so does its value computed below (rounding is monotonic), so that x is the largest |x|.
inline double polynomial_error_bound(const std::vector<float>& c, const std::vector<float>& x)
{
    constexpr double kUnitRoundoff = 1.0 / (1 << 24);
    const double steps = 2.0 * (double(c.size()) - 1.0);
    const double gamma = steps * kUnitRoundoff / (1.0 - steps * kUnitRoundoff);
    double largest = 0.0;
    for (float xi : x) largest = std::fmax(largest, std::fabs(xi));
    double terms = std::fabs(c.back());  // sum_k |c[k]| largest^k, by Horner on the absolute values
    for (int k = int(c.size()) - 2; k >= 0; --k) terms = terms * largest + std::fabs(c[k]);
    return gamma * terms;
}

// With every c[k] >= 0 and x >= 0 all terms are positive: sum_k |c[k]| |x|^k is p(x) itself, so the same
// bound holds relative to each element.
inline double polynomial_relative_bound(int count)
{
    constexpr double kUnitRoundoff = 1.0 / (1 << 24);
    const double steps = 2.0 * (count - 1.0);
    return steps * kUnitRoundoff / (1.0 - steps * kUnitRoundoff);
}

inline std::vector<double> lookup_reference(const std::vector<float>& table, const std::vector<int>& index)
{
    std::vector<double> out(index.size());
    cml::parallel_ranges(index.size(), cml::kGrain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) out[i] = table[index[i]];
    });
    return out;
}

// n table indices drawn uniformly from [0, kTableEntries) with the run's seeded generator: the 32 lanes of a
// warp almost always ask for 32 different entries.
inline std::vector<int> random_indices(std::size_t n)
{
    return cml::random_values<int>(n, std::uniform_int_distribution<int>(0, kTableEntries - 1));
}
