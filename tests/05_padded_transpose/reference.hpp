// CPU reference for Lab 5: the transpose, in double so that it compares with cml::compare. A transpose
// only moves floats, so the tests ask for an exact match (a tolerance of 0).
#pragma once

#include <cstddef>
#include <vector>

#include "cml/parallel.hpp"

inline std::vector<double> transpose_reference(const std::vector<float>& in, int rows, int cols)
{
    std::vector<double> out(in.size());
    constexpr std::size_t kRowsPerRange = 64;  // the benchmark's 8192 x 8192 on every core
    cml::parallel_ranges(std::size_t(rows), kRowsPerRange, [&](std::size_t begin, std::size_t end) {
        for (std::size_t r = begin; r < end; ++r)
            for (std::size_t c = 0; c < std::size_t(cols); ++c) out[c * rows + r] = in[r * cols + c];
    });
    return out;
}
