// Lab 3's interface: what labs/03_smoothing_halo/kernel.cu must define. The grader always builds its own copy.
#pragma once

#include "cml/lab.hpp"

// The widest window the lab asks for. With 256 threads per block, the first R threads of a block can fetch
// both halos (R <= the block size).
constexpr int kMaxRadius = 64;

// The edge rule, clamp to the edge: an index before the first element reads in[0], one past the last reads
// in[n - 1]. One definition for the kernels and the CPU reference.
__host__ __device__ constexpr int clamp_to_edge(int i, int n)
{
    return i < 0 ? 0 : i >= n ? n - 1 : i;
}

// out[i] = (in[clamp_to_edge(i - R, n)] + ... + in[clamp_to_edge(i + R, n)]) / (2R + 1) for 0 <= i < n:
// the average of the 2R + 1 elements around i. `in` and `out` are distinct device pointers from cudaMalloc,
// n >= 0 (n may be smaller than R), 1 <= radius <= kMaxRadius, and nothing outside [0, n) may be read or
// written.
void smooth(const float* in, float* out, int n, int radius);
