// CPU reference for Lab 4, in double, and the tolerance an fp32 product must meet.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

#include "cml/compare.hpp"
#include "cml/parallel.hpp"

// C = A B, row-major, every product and sum in double. The loop order i, p, j walks B and C row by row.
// Its own error, at most K 2^-53 sum|a||b|, is 2^-29 of the fp32 tolerance below: the reference is exact for
// this purpose.
inline std::vector<double> gemm_reference(const std::vector<float>& a, const std::vector<float>& b, int m, int n,
                                          int k)
{
    std::vector<double> c(std::size_t(m) * n, 0.0);
    for (int i = 0; i < m; ++i) {
        double* c_row = &c[std::size_t(i) * n];
        for (int p = 0; p < k; ++p) {
            const double a_ip = a[std::size_t(i) * k + p];
            const float* b_row = &b[std::size_t(p) * n];
            for (int j = 0; j < n; ++j) c_row[j] += a_ip * double(b_row[j]);
        }
    }
    return c;
}

// One element of C in double: the dot product of row i of A with column j of B.
inline double gemm_reference_at(const std::vector<float>& a, const std::vector<float>& b, int n, int k, int i, int j)
{
    double sum = 0.0;
    for (int p = 0; p < k; ++p) sum += double(a[std::size_t(i) * k + p]) * double(b[std::size_t(p) * n + j]);
    return sum;
}

// How far an fp32 dot product of length K may be from the exact one. With u = 2^-24, any order of the K
// multiply-adds (a plain loop, tiles, register blocks, fused or not) gives
//     |got - exact| <= gamma_K sum_p |a_ip| |b_pj|,   gamma_K = K u / (1 - K u)      (Higham, ch. 3),
// and sum_p |a_ip| |b_pj| <= max|b| x (the largest sum of |a| along a row of A). For inputs in [-1, 1) that
// is about K^2 u / 2: 0.03 at K = 1000, against outputs of typical size sqrt(K / 9) ~ 10, so a dot product
// that misses or repeats even a few terms is far outside it. K = 0: C must be exactly 0.
inline double gemm_tolerance(const std::vector<float>& a, const std::vector<float>& b, int m, int k)
{
    constexpr double kUnitRoundoff = 1.0 / (1 << 24);
    const double ku = k * kUnitRoundoff;
    const double gamma = ku / (1.0 - ku);
    double max_row_sum = 0.0;
    for (int i = 0; i < m; ++i) {
        double row_sum = 0.0;
        for (int p = 0; p < k; ++p) row_sum += std::fabs(a[std::size_t(i) * k + p]);
        max_row_sum = std::max(max_row_sum, row_sum);
    }
    double max_b = 0.0;
    for (float v : b) max_b = std::max(max_b, double(std::fabs(v)));
    return gamma * max_row_sum * max_b;
}

// A check of a large C against the reference at a sample of its elements, for the benchmark, where the
// full reference (2 M N K flops in double on one CPU core) would take minutes at N = 4096. The sample holds
// whole rows and whole columns at the tile edges (first, last, 31, 32, 127, 128, middle) and random elements.
struct GemmSample {
    std::vector<std::size_t> index;  // into C, row-major
    std::vector<double> want;
    double tolerance = 0.0;

    GemmSample(const std::vector<float>& a, const std::vector<float>& b, int m, int n, int k, std::mt19937_64& rng,
               int random_elements = 1 << 15)
    {
        tolerance = gemm_tolerance(a, b, m, k);
        auto add = [&](int i, int j) { index.push_back(std::size_t(i) * n + j); };
        auto edges = [](int size) {
            std::vector<int> at = {0, 31, 32, 127, 128, size / 2, size - 1};
            at.erase(std::remove_if(at.begin(), at.end(), [&](int x) { return x >= size; }), at.end());
            return at;
        };
        if (m == 0 || n == 0) return;
        for (int i : edges(m))
            for (int j = 0; j < n; ++j) add(i, j);
        for (int j : edges(n))
            for (int i = 0; i < m; ++i) add(i, j);
        std::uniform_int_distribution<int> row(0, m - 1), col(0, n - 1);
        for (int s = 0; s < random_elements; ++s) add(row(rng), col(rng));
        // K multiply-adds per sampled element, ~90,000 of them at N = 4096: on every core.
        want.resize(index.size());
        constexpr std::size_t kElementsPerRange = 1024;
        cml::parallel_ranges(index.size(), kElementsPerRange, [&](std::size_t begin, std::size_t end) {
            for (std::size_t s = begin; s < end; ++s)
                want[s] = gemm_reference_at(a, b, n, k, int(index[s] / n), int(index[s] % n));
        });
    }

    // Compares the sampled elements of c; the first bad index reported is the one in C.
    cml::Comparison compare(const std::vector<float>& c) const
    {
        std::vector<float> got(index.size());
        for (std::size_t s = 0; s < index.size(); ++s) got[s] = c[index[s]];
        cml::Comparison result = cml::compare(got, want, {0.0, tolerance});
        if (!result.ok) result.first_bad = index[result.first_bad];
        return result;
    }
};
