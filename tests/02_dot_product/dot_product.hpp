// Lab 2's interface: what labs/02_dot_product/kernel.cu must define. The grader always builds its own copy.
#pragma once

#include "cml/lab.hpp"

// *result = a[0] * b[0] + ... + a[n-1] * b[n-1], computed in float, in any order. a and b hold n device
// floats; result points to one device float, which the function sets itself, whatever it held before
// (to 0 when n = 0): callers never reset it. n >= 0. Like a kernel launch, it may return before the
// work is done (the caller synchronises); nothing outside a[0, n), b[0, n) and *result is touched.
void dot_product(const float* a, const float* b, float* result, int n);

// TODO 5 (stretch): the same result from a fixed grid that loops over the arrays, with warp shuffles.
void dot_product_grid_stride(const float* a, const float* b, float* result, int n);

// kernel.cu sets this to true once dot_product_grid_stride is written; until then its checks are skipped.
extern const bool dot_product_grid_stride_attempted;
