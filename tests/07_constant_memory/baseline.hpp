// The grader's kernels for Lab 7, each the same work as the student's with the other memory space.
#pragma once

// Part A's baseline: the coefficients (count of them, a device array) read through a global pointer.
void polynomial_global(const float* coefficients, int count, const float* x, float* y, int n);

// Part B's baseline: the table in __constant__ memory, where a warp's 32 different indices are served one
// after another. set_table_constant copies kTableEntries floats from host memory.
void set_table_constant(const float* table);
void lookup_constant(const int* index, float* out, int n);

// Part B, shown for comparison: the table (kTableEntries floats, a device array) read through a global pointer.
void lookup_global(const float* table, const int* index, float* out, int n);
