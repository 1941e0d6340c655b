// CPU reference for Lab 12, in double, and the tolerances the GPU's results are held to, derived below.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>
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

// The image bilinearly interpolated at output pixel (x, y)'s source point, in double, with exact weights. The point
// is the header's source_point in fp32, as the GPU computes it (up to the contraction of a multiply and an add into
// one fma, which resample_error_bound allows for).
inline double resample_reference_at(const Image& image, int x, int y, int out_width, int out_height,
                                    const Transform& t)
{
    const float2 p = source_point(t, x, y, image.width, image.height, out_width, out_height);
    const double xb = double(p.x) - 0.5, yb = double(p.y) - 0.5;
    const double fi = std::floor(xb), fj = std::floor(yb);
    const double a = xb - fi, b = yb - fj;
    const long i = long(fi), j = long(fj);
    const double top = (1 - a) * image.at_clamped(i, j) + a * image.at_clamped(i + 1, j);
    const double bottom = (1 - a) * image.at_clamped(i, j + 1) + a * image.at_clamped(i + 1, j + 1);
    return (1 - b) * top + b * bottom;
}

// What the texture unit makes of output pixel (x, y), as measured on an H100 (tex2D<float> of an fp32 image with
// unnormalized coordinates, 20,000 random points, every one within fp32 rounding of this):
// - each weight in 1/256ths, the fraction times 256 rounded to the nearest step (the Programming Guide's 9-bit
//   fixed point with 8 bits of fraction): A and B steps;
// - the four texels' weights from those, the corner's (A B / 65536) rounded to the nearest 1/256 too, halves up,
//   and the other three what is left of A / 256, B / 256 and 1: the weights still add up to 1, and a blend along
//   one axis alone is the exact one of the rounded weight.
// `held` is false where a rounding lies within a tenth of a step of its half, where the fp32 arithmetic of the
// point, or another GPU's rounding of a tie, could take the other step.
struct TextureBlend {
    double value = 0.0;
    bool held = false;
};

inline TextureBlend texture_blend_at(const Image& image, int x, int y, int out_width, int out_height,
                                     const Transform& t)
{
    const float2 p = source_point(t, x, y, image.width, image.height, out_width, out_height);
    const double xb = double(p.x) - 0.5, yb = double(p.y) - 0.5;
    const double fi = std::floor(xb), fj = std::floor(yb);
    const double a_steps = (xb - fi) * 256.0, b_steps = (yb - fj) * 256.0;
    const long a = std::lround(std::floor(a_steps + 0.5)), b = std::lround(std::floor(b_steps + 0.5));
    const long corner = (a * b + 128) / 256;  // A B / 256 steps, rounded to the nearest, halves up
    const auto clear_of_half = [](double steps) { return std::fabs(steps - std::floor(steps) - 0.5) > 0.1; };
    const bool held = clear_of_half(a_steps) && clear_of_half(b_steps) && (a * b) % 256 != 128;
    const long i = long(fi), j = long(fj);
    const double w11 = corner / 256.0, w10 = a / 256.0 - w11, w01 = b / 256.0 - w11;
    const double w00 = 1.0 - a / 256.0 - b / 256.0 + w11;
    const double value = w00 * image.at_clamped(i, j) + w10 * image.at_clamped(i + 1, j) +
                         w01 * image.at_clamped(i, j + 1) + w11 * image.at_clamped(i + 1, j + 1);
    return {value, held};
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
//   appendix on texture fetching), rounded to the nearest 1/256 (texture_blend_at): within 1/512 of the exact
//   weight. The interpolated value moves by at most `range` per unit of either weight, so by range / 256 for
//   both. The corner's weight, rounded to the nearest 1/256 again, is within 1/512 of the product of the two,
//   and it weighs a sum of four texels, two of them subtracted, within 2 range: range / 256 more. A further
//   2 range / 256^2 is kept from when the bound allowed a step either way.
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
