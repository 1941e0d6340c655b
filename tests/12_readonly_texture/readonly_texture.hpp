// Lab 12's interface: what labs/12_readonly_texture/kernel.cu must define. The grader always builds its own copy.
#pragma once

#include "cml/lab.hpp"

// Part A: a gather with reuse. Each output sums kTaps entries of a table, at positions an index array gives:
//   out[i] = table[index[i * kTaps]] + table[index[i * kTaps + 1]] + ... + table[index[i * kTaps + kTaps - 1]]
// for 0 <= i < n, with 0 <= index[j] < the table's length. Device pointers from cudaMalloc, n >= 0; nothing
// outside the index array's n * kTaps entries and out's n may be read or written.
constexpr int kTaps = 8;
void gather(const float* table, const int* index, float* out, int n);

// Part B: a resample. Output pixel (x, y) takes the source image at the point that a rotation by an angle a and a
// scaling by 1 / inv_scale about both images' centres map it to, bilinearly interpolated from the four nearest
// texels, with coordinates past an edge clamped to it (a texture's clamp addressing).
struct Transform {
    float cos_a = 1.0f;
    float sin_a = 0.0f;
    float inv_scale = 1.0f;  // source texels per output pixel
};

// Where output pixel (x, y) samples the source, in texel units: texel (i, j) is the square [i, i + 1) x [j, j + 1),
// its centre at (i + 0.5, j + 0.5), as a texture with unnormalized coordinates has it. Pixel centres map to points.
__host__ __device__ inline float2 source_point(const Transform& t, int x, int y, int width, int height,
                                               int out_width, int out_height)
{
    const float dx = (float(x) + 0.5f - 0.5f * float(out_width)) * t.inv_scale;
    const float dy = (float(y) + 0.5f - 0.5f * float(out_height)) * t.inv_scale;
    return make_float2(0.5f * float(width) + t.cos_a * dx + t.sin_a * dy,
                       0.5f * float(height) - t.sin_a * dx + t.cos_a * dy);
}

// Makes a copy of `image` (width x height floats, row by row, a device pointer; width, height >= 1) the source
// of every later resample(), until the next set_image(). The caller may change or free `image` afterwards.
void set_image(const float* image, int width, int height);

// out (out_width x out_height floats, row by row, a device pointer; both >= 0) = the source image resampled
// under `t`, as above.
void resample(float* out, int out_width, int out_height, const Transform& t);
