// Lab 6's interface: what labs/06_warp_reduction/kernel.cu must define. The grader always builds its own copy.
#pragma once

#include "cml/lab.hpp"

// Every kernel of this lab runs blocks of kBlock threads. Thread t of block b first adds up its per_thread
// elements, in[b * kBlock * per_thread + k * kBlock + t] for k = 0 .. per_thread - 1 (those before n), so
// block b owns the kBlock * per_thread elements from b * kBlock * per_thread on (fewer in the last block).
constexpr int kBlock = 256;
constexpr int kMaxPerThread = 8;

// How many blocks, and so partial sums, there are for n elements at per_thread elements per thread.
__host__ __device__ constexpr int block_count(int n, int per_thread)
{
    return cml::ceil_div(n, kBlock * per_thread);
}

// partial[b] = the sum of block b's elements, in float, in any order, for 0 <= b < block_count(n, per_thread).
// `in` holds n device floats and `partial` block_count(n, per_thread); n >= 0 (with n = 0 nothing is launched
// or written); 1 <= per_thread <= kMaxPerThread. Nothing else is read or written. Each block writes its own
// sum, with no atomics, so the time measured is that of the reduction inside the block.

// TODO 1-3: a tree with __syncthreads() down to 64 slots, then warp 0 alone with volatile and __syncwarp().
void block_sums_unrolled(const float* in, float* partial, int n, int per_thread);

// TODO 4-5: warp shuffles within each warp, then one __syncthreads() to combine the warps' sums.
void block_sums_shuffle(const float* in, float* partial, int n, int per_thread);
