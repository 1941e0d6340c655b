// CPU reference for Lab 10: the polynomial in double, and the tolerance of its fp32 evaluation, once or over the
// zero-copy stretch's passes.
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

#include "cml/compare.hpp"
#include "cml/parallel.hpp"
#include "host_memory.hpp"

// The benchmark's size, 16M floats, 64 MB each way: long enough copies that a pipeline's pieces can overlap.
constexpr int kBenchFloats = 1 << 24;

// Horner's rule on a block of elements at a time, each step over the whole block, so that the compiler keeps the
// block in registers and works on several elements per instruction, and blocks over the host's cores: the checker
// computes it for every case of every run, about fourteen million elements. Each element goes through the same
// steps, in the same order, as in a loop over one element at a time, so the doubles are the same.
inline std::vector<double> polynomial_reference(const std::vector<float>& in)
{
    constexpr std::size_t kBlock = 16;
    constexpr std::size_t kGrain = std::size_t(1) << 16;  // elements per core's turn: 64 steps each
    std::vector<double> out(in.size());
    cml::parallel_ranges(in.size(), kGrain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; i += kBlock) {
            const std::size_t count = std::min(kBlock, end - i);
            double x[kBlock] = {}, y[kBlock];
            for (std::size_t j = 0; j < count; ++j) x[j] = double(in[i + j]);
            for (double& value : y) value = 1.0;
            for (int k = 0; k < kDegree; ++k)
                for (std::size_t j = 0; j < kBlock; ++j) y[j] = y[j] * x[j] + 1.0;
            for (std::size_t j = 0; j < count; ++j) out[i + j] = y[j];
        }
    });
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
