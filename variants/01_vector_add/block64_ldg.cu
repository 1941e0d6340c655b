// Lab 1 variant, correct: the coalesced kernel with 64-thread blocks, loading through the read-only cache (__ldg).
#include "vector_add.hpp"

namespace {

constexpr int kBlock = 64;  // 2 warps; an H100 SM holds 32 such blocks, 2048 threads, so occupancy stays full

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    c[i] = __ldg(a + i) + __ldg(b + i);  // neighbouring lanes, neighbouring floats: 4 sectors per warp load
}

}  // namespace

void vector_add(const float* a, const float* b, float* c, int n)
{
    if (n == 0) return;  // a launch of 0 blocks is an error
    vector_add_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(a, b, c, n);
    CML_CHECK_LAUNCH();
}

const bool vector_add_float4_attempted = false;

void vector_add_float4(const float* a, const float* b, float* c, int n)
{
    (void)a, (void)b, (void)c, (void)n;
}
