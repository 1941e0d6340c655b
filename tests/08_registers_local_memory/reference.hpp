// CPU reference for Lab 8, in double, and the error bound of an fp32 sum of `taps` products.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "cml/parallel.hpp"
#include "cml/random.hpp"
#include "column_filter.hpp"

// out[r][c] = sum_k weight[k] in[r + k][c], in double: its own error is 2^29 times below the fp32 bound.
inline std::vector<double> column_filter_reference(const std::vector<float>& in, const Filter& filter, int rows,
                                                   int cols)
{
    std::vector<double> out(std::size_t(rows) * std::size_t(cols));
    const std::size_t rows_per_range = std::max<std::size_t>(1, cml::kGrain / std::size_t(std::max(cols, 1)));
    cml::parallel_ranges(std::size_t(rows), rows_per_range, [&](std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r)
            for (std::size_t c = 0; c < std::size_t(cols); ++c) {
                double sum = 0.0;
                for (int k = 0; k < filter.taps; ++k)
                    sum += double(filter.weight[k]) * in[(r + std::size_t(k)) * std::size_t(cols) + c];
                out[r * std::size_t(cols) + c] = sum;
            }
    });
    return out;
}

// A sum of `taps` products in fp32, in any order, each product and each addition rounded once (or fused into
// one fma, rounded once), errs by at most gamma(taps) * sum_k |weight[k]| |in[r + k][c]|, where
// gamma(m) = m u / (1 - m u) and u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, eq. 3.5).
// This returns that bound with every |in| at its largest: one absolute tolerance for every element.
inline double column_filter_error_bound(const std::vector<float>& in, const Filter& filter)
{
    constexpr double kUnitRoundoff = 1.0 / (1 << 24);
    const double gamma = filter.taps * kUnitRoundoff / (1.0 - filter.taps * kUnitRoundoff);
    double largest = 0.0;
    for (float v : in) largest = std::fmax(largest, std::fabs(v));
    double weights = 0.0;
    for (int k = 0; k < filter.taps; ++k) weights += std::fabs(filter.weight[k]);
    return gamma * weights * largest;
}

// A filter of `taps` random weights in [-1, 1) from the run's seeded generator. The slots past `taps` hold a
// weight far larger than any real one, so that a kernel summing them shows it in every output.
constexpr float kUnusedWeight = 1000.0f;

inline Filter random_filter(int taps)
{
    Filter filter{taps, {}};
    for (float& w : filter.weight) w = kUnusedWeight;
    const std::vector<float> weight = cml::random_floats(std::size_t(taps));
    for (int k = 0; k < taps; ++k) filter.weight[k] = weight[std::size_t(k)];
    return filter;
}
