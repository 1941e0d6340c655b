// Lab 1 variant, wrong on purpose: the roles of blockIdx and threadIdx swapped in the index, a slip that still
// covers every element once. Neighbouring lanes are gridDim.x elements apart, so a warp-wide load touches 32
// sectors instead of 4, as the grader's lanes-32-apart baseline does.
#include "vector_add.hpp"

namespace {

constexpr int kBlock = 256;

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, int n)
{
    const int i = threadIdx.x * gridDim.x + blockIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, int n)
{
    if (n == 0) return;
    vector_add_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(a, b, c, n);
    CML_CHECK_LAUNCH();
}

const bool vector_add_float4_attempted = false;

void vector_add_float4(const float* a, const float* b, float* c, int n)
{
    (void)a, (void)b, (void)c, (void)n;
}
