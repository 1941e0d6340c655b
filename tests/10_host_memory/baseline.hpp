// The grader's pipeline for Lab 10: the one every program starts with.
#pragma once

// out[i] = polynomial(in[i]) for host pointers in and out: cudaMemcpy from and to the caller's pageable memory,
// one step after the other on the default stream.
void pipeline_pageable(const float* in, float* out, int n);
