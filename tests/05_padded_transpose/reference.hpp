// CPU reference for Lab 5: the transpose, in double so that it compares with cml::compare. A transpose
// only moves floats, so the tests ask for an exact match (a tolerance of 0).
#pragma once

#include <cstddef>
#include <vector>

inline std::vector<double> transpose_reference(const std::vector<float>& in, int rows, int cols)
{
    std::vector<double> out(in.size());
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) out[std::size_t(c) * rows + r] = in[std::size_t(r) * cols + c];
    return out;
}
