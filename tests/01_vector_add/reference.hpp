// CPU reference for Lab 1, in double: the exact sum of two floats (one fp32 rounding away from the GPU's).
#pragma once

#include <vector>

inline std::vector<double> vector_add_reference(const std::vector<float>& a, const std::vector<float>& b)
{
    std::vector<double> c(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) c[i] = double(a[i]) + double(b[i]);
    return c;
}

// A correctly rounded fp32 sum is within half an fp32 ulp of the exact one: 2^-24 relative.
constexpr double kSumRelTol = 1.0 / (1 << 24);
