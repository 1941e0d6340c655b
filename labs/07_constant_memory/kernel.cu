// Lab 7: constant memory, and when not to use it. The only file you edit; the handout is README.md beside it.
// Part A: when all lanes of a warp read the same coefficient, __constant__ broadcasts it: faster than a global
// pointer. Part B: when each lane reads its own table entry, __constant__ serialises: several times slower. The
// handout's table gives the figures on an H100 and the speed bars.
#include "constant_memory.hpp"

namespace {
constexpr int kBlock = 256;
}  // namespace

// ---- Part A: a polynomial, every lane reading the same coefficient at the same time ----

namespace {

// TODO 1: declare the coefficients in constant memory: an array of kMaxCoefficients floats at file scope.
//   Hint: `__constant__ float name[size];`. It lives in device memory, but is read through the constant
//   cache, which hands one address to all 32 lanes of a warp in a single access.

int coefficient_count = 0;  // host side: set by set_polynomial, passed to each launch

__global__ void polynomial_kernel(const float* __restrict__ x, float* __restrict__ y, int n, int count)
{
    // TODO 2: thread i (when i < n) evaluates p(x[i]) by Horner's rule, reading the coefficients from the
    //   array of TODO 1, and writes y[i]. The loop over the coefficients must have a fixed length: all
    //   kMaxCoefficients of them, under #pragma unroll, the ones the polynomial does not have (index count
    //   and up) skipped inside the loop. Never a loop that stops at `count`.
    //   Hint: Horner starts from the highest coefficient and, for each lower one, multiplies by x and adds it:
    //   2 + 3x + 5x^2 = (5x + 3)x + 2. A fixed, unrolled loop gives every c[k] an address known at compile
    //   time, which the compiler reads from the constant bank inside the multiply-add. A loop to `count` makes
    //   each c[k] a separate load in the chain of dependent multiply-adds: on an H100 that ran slower than
    //   the global pointer and fails the speed check, while every other check passes it (README).
}

}  // namespace

void set_polynomial(const float* host_coefficients, int count)
{
    // TODO 3: copy the `count` coefficients into the array of TODO 1, checked with CML_CHECK, then delete the
    //   CML_TODO line.
    //   Hint: cudaMemcpyToSymbol(symbol, source, bytes) takes the array itself, not its address; copy
    //   count * sizeof(float) bytes. The kernel reads only the first `count`, so older ones may stay behind.
    CML_TODO("TODO 3: copy the coefficients to constant memory (labs/07_constant_memory/kernel.cu)");
    (void)host_coefficients;
    coefficient_count = count;
}

void polynomial(const float* x, float* y, int n)
{
    if (n == 0) return;  // a launch of 0 blocks is an error
    polynomial_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(x, y, n, coefficient_count);
    CML_CHECK_LAUNCH();
}

// ---- Part B: a table look-up, every lane reading a different entry ----

namespace {

// TODO 4: declare the table, kTableEntries floats at file scope, in the memory space that suits this kernel.
//   Hint: `__constant__ float table[...]`, or `__device__ float table[...]` (global memory, cached in L1):
//   cudaMemcpyToSymbol fills either. Ask what the 32 lanes of a warp read at the same moment in
//   lookup_kernel, and read "When not to" in the handout before you choose: the grade measures your choice.

__global__ void lookup_kernel(const int* __restrict__ index, float* __restrict__ out, int n)
{
    // TODO 5: thread i (when i < n) writes out[i] = table[index[i]].
}

}  // namespace

void set_table(const float* host_table)
{
    // TODO 6: copy the kTableEntries floats of host_table into the table of TODO 4, checked with CML_CHECK,
    //   then delete the CML_TODO line.
    //   Hint: the same call as in TODO 3, whichever memory space you chose.
    CML_TODO("TODO 6: copy the look-up table to the device (labs/07_constant_memory/kernel.cu)");
    (void)host_table;
}

void lookup(const int* index, float* out, int n)
{
    if (n == 0) return;
    lookup_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(index, out, n);
    CML_CHECK_LAUNCH();
}
