// The grader's pipeline for Lab 10: the one every program starts with.
#pragma once

// out[i] = polynomial(in[i]) for host pointers in and out: cudaMemcpy from and to the caller's pageable memory,
// one step after the other on the default stream.
void pipeline_pageable(const float* in, float* out, int n);

// The same through managed memory with no prefetch at all: the host writes the inputs into one managed buffer,
// the kernel faults its pages over to the GPU as it touches them (and the output's too), and the host's reads
// fault the results back. Part C's yardstick.
void pipeline_managed_faulting(const float* in, float* out, int n);

// The zero-copy stretch's yardstick: the same passes as pipeline_zero_copy, with copies. The inputs go through a
// pinned staging buffer (cudaHostAlloc, the CPU copying into it and out of it, as the stretch's solution does
// with its mapped ones) to the GPU's memory, every pass reads them there, and the results come back the same way.
void pipeline_staged_copies(const float* in, float* out, int n, int passes);
