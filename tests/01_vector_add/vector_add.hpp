// Lab 1's interface: what labs/01_vector_add/kernel.cu must define. The grader always builds its own copy.
#pragma once

#include "cml/lab.hpp"

// c[i] = a[i] + b[i] for 0 <= i < n. All pointers are device pointers from cudaMalloc (so 16-byte
// aligned), n >= 0, and nothing outside [0, n) may be read or written.
void vector_add(const float* a, const float* b, float* c, int n);

// TODO 4 (stretch): the same result with each thread loading and storing float4s.
void vector_add_float4(const float* a, const float* b, float* c, int n);

// kernel.cu sets this to true once vector_add_float4 is written; until then its checks are skipped.
extern const bool vector_add_float4_attempted;
