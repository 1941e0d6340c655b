// Lab 11's interface: what labs/11_histogram_atomics/kernel.cu must define. The grader always builds its own copy.
#pragma once

#include "cml/lab.hpp"

// One bin per value of a byte.
constexpr int kBins = 256;

// bins[v] = how many of data[0], ..., data[n-1] equal v, for every v in [0, 256). data holds n device bytes and
// starts where cudaMalloc put it; bins points to 256 device unsigned ints, which the function sets itself,
// whatever they held before (all 0 when n = 0): callers never reset them. n >= 0. Like a kernel launch, it may
// return before the work is done (the caller synchronises); nothing outside data[0, n) and bins[0, 256) is touched.
void histogram(const unsigned char* data, unsigned* bins, int n);

// TODO 4 (stretch): the same result, each warp of a block adding into a copy of the histogram of its own.
void histogram_per_warp(const unsigned char* data, unsigned* bins, int n);

// kernel.cu sets this to true once histogram_per_warp is written; until then its checks are skipped.
extern const bool histogram_per_warp_attempted;
