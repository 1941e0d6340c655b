// Lab 2 variant, correct: Mark Harris's reduction 6 (the tree completely unrolled by a template on the block size),
// here 1024 threads with two products each, the warp steps made safe with __syncwarp(); one atomicAdd per 2048.
#include "dot_product.hpp"

namespace {

constexpr int kBlock = 1024;
constexpr int kWarpSize = 32;

// One step of the tree over a block of kThreads: compiled away when the block is too small for it.
template <int kThreads, int kStride>
__device__ void tree_step(float* products, int t)
{
    if constexpr (kThreads > kStride) {
        if (t < kStride) products[t] += products[t + kStride];
        __syncthreads();
    }
}

template <int kThreads>
__global__ void dot_product_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ result, int n)
{
    __shared__ float products[kThreads];
    const int t = threadIdx.x;
    const int i = blockIdx.x * 2 * kThreads + t;
    const int j = i + kThreads;
    float sum = i < n ? a[i] * b[i] : 0.0f;
    if (j < n) sum += a[j] * b[j];
    products[t] = sum;
    __syncthreads();
    tree_step<kThreads, 512>(products, t);
    tree_step<kThreads, 256>(products, t);
    tree_step<kThreads, 128>(products, t);
    tree_step<kThreads, 64>(products, t);
    if (t < kWarpSize) {
        volatile float* v = products;
        float warp_sum = v[t];
#pragma unroll
        for (int stride = kWarpSize; stride > 0; stride >>= 1) {
            warp_sum += v[t + stride];
            __syncwarp();  // every lane has read before any lane overwrites
            v[t] = warp_sum;
            __syncwarp();  // every lane has written before the next read
        }
        if (t == 0) atomicAdd(result, warp_sum);
    }
}

}  // namespace

void dot_product(const float* a, const float* b, float* result, int n)
{
    static_assert(kBlock >= 2 * kWarpSize && kBlock <= 1024 && (kBlock & (kBlock - 1)) == 0, "the unrolled steps");
    CML_CHECK(cudaMemsetAsync(result, 0, sizeof(float)));
    if (n == 0) return;
    dot_product_kernel<kBlock><<<cml::ceil_div(n, 2 * kBlock), kBlock>>>(a, b, result, n);
    CML_CHECK_LAUNCH();
}

const bool dot_product_grid_stride_attempted = false;

void dot_product_grid_stride(const float* a, const float* b, float* result, int n)
{
    (void)a, (void)b, (void)result, (void)n;
}
