// CPU reference for Lab 12, in double, and the tolerances the GPU's results are held to, derived below.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
#include <utility>
#include <vector>

#include "cml/parallel.hpp"
#include "cml/random.hpp"
#include "readonly_texture.hpp"

constexpr double kUnitRoundoff = 1.0 / (1 << 24);  // fp32

inline std::vector<double> gather_reference(const std::vector<float>& table, const std::vector<int>& index)
{
    std::vector<double> out(index.size() / kTaps);
    cml::parallel_ranges(out.size(), cml::kGrain, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
            double sum = 0.0;
            for (int k = 0; k < kTaps; ++k) sum += table[std::size_t(index[i * kTaps + k])];
            out[i] = sum;
        }
    });
    return out;
}

// A sum of kTaps floats in fp32, in any order, errs by at most gamma(kTaps - 1) times the sum of their magnitudes
// (Higham, Accuracy and Stability of Numerical Algorithms, eq. 4.4), gamma(m) = m u / (1 - m u): one absolute
// bound for every output, from the table's largest magnitude.
inline double gather_error_bound(const std::vector<float>& table)
{
    double largest = 0.0;
    for (float v : table) largest = std::max(largest, double(std::fabs(v)));
    const double m = kTaps - 1;
    return m * kUnitRoundoff / (1.0 - m * kUnitRoundoff) * kTaps * largest;
}

// n * kTaps indices drawn uniformly from [0, entries) with the run's seeded generator.
inline std::vector<int> random_indices(std::size_t n, int entries)
{
    return cml::random_values<int>(n * kTaps, std::uniform_int_distribution<int>(0, entries - 1));
}

struct Image {
    int width = 0, height = 0;
    std::vector<float> pixels;  // row by row

    float at_clamped(long i, long j) const
    {
        i = std::clamp(i, 0L, long(width) - 1);
        j = std::clamp(j, 0L, long(height) - 1);
        return pixels[std::size_t(j) * std::size_t(width) + std::size_t(i)];
    }
};

// The image bilinearly interpolated at output pixel (x, y)'s source point, in double, each weight made by
// `weight` of the exact one (the exact weight itself, by default). The point is the header's source_point in
// fp32, as the GPU computes it (up to the contraction of a multiply and an add into one fma, which
// resample_error_bound allows for).
template <class Weight>
double resample_reference_at(const Image& image, int x, int y, int out_width, int out_height, const Transform& t,
                             Weight weight)
{
    const float2 p = source_point(t, x, y, image.width, image.height, out_width, out_height);
    const double xb = double(p.x) - 0.5, yb = double(p.y) - 0.5;
    const double fi = std::floor(xb), fj = std::floor(yb);
    const double a = weight(xb - fi), b = weight(yb - fj);
    const long i = long(fi), j = long(fj);
    const double top = (1 - a) * image.at_clamped(i, j) + a * image.at_clamped(i + 1, j);
    const double bottom = (1 - a) * image.at_clamped(i, j + 1) + a * image.at_clamped(i + 1, j + 1);
    return (1 - b) * top + b * bottom;
}

inline double resample_reference_at(const Image& image, int x, int y, int out_width, int out_height,
                                    const Transform& t)
{
    return resample_reference_at(image, x, y, out_width, out_height, t, [](double exact) { return exact; });
}

// The two fractions of output pixel (x, y)'s source point, in steps of the texture's weights (1/256 each).
inline std::pair<double, double> weight_steps(const Image& image, int x, int y, int out_width, int out_height,
                                              const Transform& t)
{
    const float2 p = source_point(t, x, y, image.width, image.height, out_width, out_height);
    const double xb = double(p.x) - 0.5, yb = double(p.y) - 0.5;
    return {(xb - std::floor(xb)) * 256.0, (yb - std::floor(yb)) * 256.0};
}

// Whether a weight of `steps` 1/256ths lies in the lower part of its step, from a tenth to four tenths of the way:
// the texture unit then holds the step below it whether it rounds to the nearest step or truncates (the
// Programming Guide gives the format, not the rounding), and no last bit of the point's fp32 arithmetic moves it
// to another step.
inline bool held_below(double steps)
{
    const double part = steps - std::floor(steps);
    return part > 0.1 && part < 0.4;
}

// The blend the texture unit makes where both weights are held_below: each weight its step below.
inline double texture_blend_at(const Image& image, int x, int y, int out_width, int out_height, const Transform& t)
{
    return resample_reference_at(image, x, y, out_width, out_height, t,
                                 [](double exact) { return std::floor(exact * 256.0) / 256.0; });
}

inline std::vector<double> resample_reference(const Image& image, int out_width, int out_height, const Transform& t)
{
    std::vector<double> out(std::size_t(out_width) * std::size_t(out_height));
    cml::parallel_ranges(std::size_t(out_height), 1, [&](std::size_t begin, std::size_t end) {
        for (std::size_t y = begin; y < end; ++y)
            for (int x = 0; x < out_width; ++x)
                out[y * std::size_t(out_width) + std::size_t(x)] =
                    resample_reference_at(image, x, int(y), out_width, out_height, t);
    });
    return out;
}

// How far a correct resample may lie from the reference, for images whose values span `range` (max - min) with
// magnitudes up to `largest`:
// - A texture holds each linear weight in 9-bit fixed point, 8 bits of fraction (the CUDA Programming Guide's
//   appendix on texture fetching): a multiple of 1/256, a step of 1/256 from the exact weight at worst, whatever
//   the rounding. The interpolated value moves by at most `range` per unit of either weight, so by range / 128
//   for both, and by 2 range / 256^2 more where both are off together.
// - The source point in fp32: its terms reach 2 max(width, height, out sizes x inv_scale); a few roundings of
//   those, or an fma in place of a multiply and an add, move it by at most 4 u of that per axis, and the
//   interpolation moves by at most `range` per texel of either axis.
// - The interpolation's own arithmetic in fp32: 8 roundings of values up to `largest`.
// A kernel that takes the nearest texel instead, or misses the half-texel offset of the centres, errs by up to
// range / 2 on images of noise: far outside.
inline double resample_error_bound(double range, double largest, int width, int height, int out_width, int out_height,
                                   const Transform& t)
{
    const double weights = range / 128.0 + 2.0 * range / (256.0 * 256.0);
    const double reach =
        2.0 * std::max({double(width), double(height), (out_width + out_height) * double(std::fabs(t.inv_scale))});
    const double point = 2.0 * range * 4.0 * kUnitRoundoff * reach;
    return weights + point + 8.0 * kUnitRoundoff * largest;
}

inline Image random_image(int width, int height)
{
    return Image{width, height, cml::random_floats(std::size_t(width) * std::size_t(height), 0.0f, 1.0f)};
}

inline Transform rotation(double degrees, double scale)
{
    const double radians = degrees * M_PI / 180.0;
    return Transform{float(std::cos(radians)), float(std::sin(radians)), float(1.0 / scale)};
}
