// Lab 7's interface: what labs/07_constant_memory/kernel.cu must define. The grader always builds its own copy.
#pragma once

#include "cml/lab.hpp"

// Part A: a polynomial p(x) = c[0] + c[1] x + ... + c[count - 1] x^(count - 1), up to degree 31.
constexpr int kMaxCoefficients = 32;

// Copies `count` coefficients from host memory (1 <= count <= kMaxCoefficients) to where the kernel reads
// them. Every later polynomial() evaluates this polynomial, until the next set_polynomial().
void set_polynomial(const float* coefficients, int count);

// y[i] = p(x[i]) for 0 <= i < n, by Horner's rule: (...(c[count-1] x + c[count-2]) x + ...) x + c[0].
// x and y are device pointers from cudaMalloc, n >= 0; nothing outside [0, n) may be read or written.
void polynomial(const float* x, float* y, int n);

// Part B: a table look-up.
constexpr int kTableEntries = 1024;

// Copies the kTableEntries floats of `table` (host memory) to where the kernel reads them.
void set_table(const float* table);

// out[i] = table[index[i]] for 0 <= i < n, with 0 <= index[i] < kTableEntries. Device pointers, n >= 0.
void lookup(const int* index, float* out, int n);
