// Lab 10's interface: what labs/10_host_memory/kernel.cu must define. The grader always builds its own copy.
//
// Each function is a whole pipeline, host to host: n floats from host memory to the GPU, the same polynomial of
// every element there, and the results back to host memory, all done before it returns. The caller's buffers are
// ordinary (pageable) host memory, as a program's std::vector is; what the function allocates, pins, creates or
// registers it frees, destroys or unregisters before it returns.
#pragma once

#include <cmath>

#include "cml/lab.hpp"

// Terms of the polynomial each element goes through: p(x) = 1 + x + x^2 + ... + x^kDegree, by Horner's rule
// (kDegree fused multiply-adds). Enough arithmetic per element that the GPU's work takes a time of the same
// order as the copies, so that overlapping the two has something to hide.
constexpr int kDegree = 64;

// The GPU's part of every pipeline: out[i] = p(in[i]) for 0 <= i < n, on device pointers.
__host__ __device__ inline float polynomial(float x)
{
    float y = 1.0f;
    for (int k = 0; k < kDegree; ++k) y = fmaf(y, x, 1.0f);
    return y;
}

// ---- Part A: pinned memory ----

// out[i] = polynomial(in[i]) for 0 <= i < n, host pointers in and out (pageable, from malloc), n >= 0. The
// copies go through page-locked (pinned) host memory: cudaMemcpyAsync from it, on one stream.
void pipeline_pinned(const float* in, float* out, int n);

// ---- Part B: copies that overlap the GPU's work ----

// How many streams, and how many chunks the array is cut into, in Part B.
constexpr int kStreams = 4;
constexpr int kChunks = 16;

// The same result as pipeline_pinned, the array cut into kChunks chunks taken in turn by kStreams streams: the
// copy of one chunk to the GPU overlaps the polynomial of another, and the copy of a third back to the host.
void pipeline_overlapped(const float* in, float* out, int n);

// ---- Part C: managed memory ----

// The same result again through managed memory (cudaMallocManaged), one address the host and the GPU both use:
// the host writes the inputs into a managed buffer, the managed buffers are prefetched to the GPU before the
// kernel (cudaMemPrefetchAsync), so that the kernel takes no page faults, and the results are prefetched back to
// the host before it reads them into out.
void pipeline_managed(const float* in, float* out, int n);

// ---- Stretch (optional): zero-copy ----

// How many passes the zero-copy stretch is timed at: one, where zero-copy saves the copies, and two, where every
// pass reads the host's memory again.
constexpr int kMostPasses = 2;

// The same arithmetic, `passes` times over the same input (1 <= passes <= kMostPasses): the first pass writes
// out[i] = polynomial(in[i]) and each later one adds polynomial(in[i]) to it, so that out[i] ends as passes x
// polynomial(in[i]), each pass a kernel of its own that reads all of in again. With no copy at all: the kernels
// read in and write out in host memory, through mapped pinned memory (cudaHostAlloc with cudaHostAllocMapped, or
// cudaHostRegister with cudaHostRegisterMapped, and cudaHostGetDevicePointer).
void pipeline_zero_copy(const float* in, float* out, int n, int passes);

// kernel.cu sets this to true once pipeline_zero_copy is written; until then its checks are skipped.
extern const bool pipeline_zero_copy_attempted;
