// The grader's kernels for Lab 12, each the same work as the student's by the ordinary path.
#pragma once

#include "readonly_texture.hpp"

// Part A's baseline: the gather with plain pointers, the output free to overlap the table as far as the compiler
// can tell, so it cannot prove the table read-only and loads it by the ordinary path (LDG.E, not LDG.E.CONSTANT).
void gather_plain(const float* table, const int* index, float* out, int n);

// Part B's baseline: the bilinear interpolation by hand, four loads from the image in global memory and the
// weights in fp32 (image: width x height floats, a device array).
void resample_by_hand(const float* image, int width, int height, float* out, int out_width, int out_height,
                      const Transform& t);
