// Lab 2 variant, correct: the lab's tree with the smallest block a student might pick, 64 threads, loads through
// __ldg: one atomicAdd per 64 elements, four times the solution's, so about a quarter of its speed.
#include "dot_product.hpp"

namespace {

constexpr int kBlock = 64;

__global__ void dot_product_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ result, int n)
{
    __shared__ float products[kBlock];
    const int t = threadIdx.x;
    const int i = blockIdx.x * kBlock + t;
    products[t] = i < n ? __ldg(a + i) * __ldg(b + i) : 0.0f;
    for (int stride = kBlock / 2; stride > 0; stride /= 2) {
        __syncthreads();  // 2 warps: stride 32 reads what warp 1 wrote
        if (t < stride) products[t] += products[t + stride];
    }
    if (t == 0) atomicAdd(result, products[0]);
}

}  // namespace

void dot_product(const float* a, const float* b, float* result, int n)
{
    CML_CHECK(cudaMemsetAsync(result, 0, sizeof(float)));
    if (n == 0) return;
    dot_product_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(a, b, result, n);
    CML_CHECK_LAUNCH();
}

const bool dot_product_grid_stride_attempted = false;

void dot_product_grid_stride(const float* a, const float* b, float* result, int n)
{
    (void)a, (void)b, (void)result, (void)n;
}
