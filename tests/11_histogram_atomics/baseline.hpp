// The grader's baseline for Lab 11: the same histogram, with one global atomicAdd per byte.
#pragma once

void histogram_global_atomics(const unsigned char* data, unsigned* bins, int n);
