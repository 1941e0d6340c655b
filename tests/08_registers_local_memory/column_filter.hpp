// Lab 8's interface: what labs/08_registers_local_memory/kernel.cu must define. The grader always builds its own copy.
#pragma once

#include "cml/lab.hpp"

// A vertical FIR filter down the columns of a row-major image, `taps` rows tall:
//   out[r][c] = weight[0] in[r][c] + weight[1] in[r + 1][c] + ... + weight[taps - 1] in[r + taps - 1][c]
// for 0 <= r < rows and 0 <= c < cols. `in` has rows + taps - 1 rows, so the window never leaves it.
constexpr int kMaxTaps = 32;

// The filter's lengths a kernel must support: taps is always one of these.
constexpr int kTapCounts[] = {4, 8, 16, 32};

// Passed to the kernel by value: a kernel's parameters live in constant memory, which every lane reads alike.
struct Filter {
    int taps;
    float weight[kMaxTaps];  // the first `taps` are the filter's
};

// in: (rows + taps - 1) x cols floats, out: rows x cols floats, both device pointers from cudaMalloc, rows and
// cols >= 0. Nothing outside them may be read or written.
void column_filter(const float* in, const Filter& filter, float* out, int rows, int cols);
