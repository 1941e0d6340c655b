// Lab 4's interface: what labs/04_tiled_gemm/kernel.cu must define. The grader always builds its own copy.
#pragma once

#include "cml/lab.hpp"

// C = A B in fp32, every matrix row-major: A is m x k, B is k x n, C is m x n, so
// c[i * n + j] = sum over p of a[i * k + p] * b[p * n + j]. m, n, k >= 0 and need not be multiples of any
// tile; with k = 0, C is all zeros (an empty sum). All pointers are device pointers from cudaMalloc (so
// 16-byte aligned), and nothing outside the m x k, k x n and m x n elements may be read or written.
void gemm_tiled(const float* a, const float* b, float* c, int m, int n, int k);

// TODO 7 (stretch): the same product with register blocking, each thread computing a small block of C.
void gemm_register_blocked(const float* a, const float* b, float* c, int m, int n, int k);

// kernel.cu sets this to true once gemm_register_blocked is written; until then its checks are skipped.
extern const bool gemm_register_blocked_attempted;
