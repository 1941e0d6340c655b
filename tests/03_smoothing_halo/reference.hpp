// CPU reference for Lab 3, in double: the window average with the clamp-to-edge rule of smoothing.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "cml/parallel.hpp"
#include "smoothing.hpp"

// The window slides one element per output (one element enters, one leaves), so the reference costs O(n)
// whatever R, which keeps the benchmark's check of 64M outputs at six radii fast. It is summed afresh every
// kResum outputs, so the double roundings of the sliding cannot pile up: between fresh sums at most
// 2 kResum + 2R of them, each <= 2^-53 (2R + 2) max|in|; after the division by 2R + 1 that is below
// 2^-43 max|in| for R <= 64, far under the fp32 tolerance below.
//
// Into `out`, resized to in.size(): the benchmark reuses one buffer for its six radii, as a fresh 512 MB one
// costs more in page faults than the sums do, with the GPU held for its launches.
inline void smooth_reference(const std::vector<float>& in, int radius, std::vector<double>& out)
{
    constexpr int kResum = 256;
    constexpr std::size_t kPart = kResum * 4096;  // outputs per part, the parts on every core: each starts afresh
    const int n = int(in.size());
    auto at = [&](int i) { return double(in[clamp_to_edge(i, n)]); };
    const double width = 2.0 * radius + 1.0;
    out.resize(in.size());
    cml::parallel_ranges(std::size_t(n), kPart, [&](std::size_t begin, std::size_t end) {
        double window = 0.0;
        for (int i = int(begin); i < int(end); ++i) {
            if (i % kResum == 0) {
                window = 0.0;
                for (int d = -radius; d <= radius; ++d) window += at(i + d);
            } else {
                window += at(i + radius) - at(i - radius - 1);  // in[i + R] enters, in[i - R - 1] leaves
            }
            out[i] = window / width;
        }
    });
}

inline std::vector<double> smooth_reference(const std::vector<float>& in, int radius)
{
    std::vector<double> out;
    smooth_reference(in, radius, out);
    return out;
}

// How far an fp32 window average may be from the exact one, with u = 2^-24 and M = max|in|:
//   - the 2R additions, in any order, err by at most 2R u (2R + 1) M (first order in u);
//     divided by 2R + 1, that is 2R u M;
//   - the division by 2R + 1 rounds once more (u M), or twice when the kernel multiplies by a rounded
//     reciprocal (2 u M);
// so |got - want| <= (2R + 2) u M, and one more u M covers the second-order terms.
inline double smooth_tolerance(int radius, double max_abs_in)
{
    constexpr double kUnitRoundoff = 1.0 / (1 << 24);
    return (2.0 * radius + 3.0) * kUnitRoundoff * max_abs_in;
}

inline double max_abs(const std::vector<float>& values)
{
    double most = 0.0;
    for (float v : values) most = std::max(most, double(std::fabs(v)));
    return most;
}
