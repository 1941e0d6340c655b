// CPU reference for Lab 10: the polynomial in double, and the tolerance of its fp32 evaluation, once or over the
// zero-copy stretch's passes.
#pragma once

#include <limits>
#include <vector>

#include "cml/compare.hpp"
#include "host_memory.hpp"

// The benchmark's size, 16M floats, 64 MB each way: long enough copies that a pipeline's pieces can overlap.
constexpr int kBenchFloats = 1 << 24;

inline std::vector<double> polynomial_reference(const std::vector<float>& in)
{
    std::vector<double> out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        double y = 1.0;
        for (int k = 0; k < kDegree; ++k) y = y * double(in[i]) + 1.0;
        out[i] = y;
    }
    return out;
}

// What `passes` passes leave in out: passes x the polynomial.
inline std::vector<double> passes_reference(const std::vector<float>& in, int passes)
{
    std::vector<double> out = polynomial_reference(in);
    for (double& y : out) y *= passes;
    return out;
}

// Horner's rule in fp32 on |x| < 1: each of its kDegree steps rounds at most twice (once with an fma), and the
// error of step k is carried to the result times |x|^(kDegree-k) <= 1, so |error| <= 2 kDegree u sum_k |x|^k
// <= 2 kDegree u (kDegree + 1), u = 2^-24: about 5e-4, against |p(x)| >= 1/2 on [-1, 1). A refresh that negates an
// input with |x| >= 1/4 moves its result by 2 (x + x^3 + ...) >= 1/2, a thousand times more. The zero-copy
// stretch's second pass computes the same fp32 value y again, and y + y = 2y exactly: twice one pass's error.
inline cml::Tolerance polynomial_tolerance(int passes = 1)
{
    const double u = std::numeric_limits<float>::epsilon() / 2;
    return {0.0, passes * 2.0 * kDegree * u * (kDegree + 1)};
}
