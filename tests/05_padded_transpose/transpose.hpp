// Lab 5's interface: what labs/05_padded_transpose/kernel.cu must define. The grader always builds its own copy.
#pragma once

#include "cml/lab.hpp"

// out = the transpose of in. `in` is rows x cols and `out` is cols x rows, both row-major:
// out[c * rows + r] = in[r * cols + c]. rows, cols >= 0 and need not be multiples of 32. Both pointers are
// device pointers from cudaMalloc, and nothing outside the rows x cols elements of each may be touched.
void transpose(const float* in, float* out, int rows, int cols);

// TODO 6 (stretch): the same transpose, with the tile's bank conflicts removed by an XOR swizzle instead of
// padding.
void transpose_swizzled(const float* in, float* out, int rows, int cols);

// kernel.cu sets this to true once transpose_swizzled is written; until then its checks are skipped.
extern const bool transpose_swizzled_attempted;
