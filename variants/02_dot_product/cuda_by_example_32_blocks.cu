// Lab 2 variant, correct: the dot product of "CUDA by Example" (chapter 5): at most 32 blocks of 256 threads, each
// thread summing a grid-stride slice, a halving tree in shared memory; the block sums are added with one atomicAdd
// each (the book adds them on the host). 32 blocks leave most of the GPU idle.
#include "dot_product.hpp"

namespace {

constexpr int kThreadsPerBlock = 256;
constexpr int kMaxBlocks = 32;

__global__ void dot_product_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ result, int n)
{
    __shared__ float cache[kThreadsPerBlock];
    const int cache_index = threadIdx.x;
    float temp = 0.0f;
    for (int tid = threadIdx.x + blockIdx.x * blockDim.x; tid < n; tid += blockDim.x * gridDim.x)
        temp += a[tid] * b[tid];
    cache[cache_index] = temp;
    __syncthreads();
    // blockDim.x is a power of two, so halving it always lands on 1.
    for (int i = blockDim.x / 2; i != 0; i /= 2) {
        if (cache_index < i) cache[cache_index] += cache[cache_index + i];
        __syncthreads();
    }
    if (cache_index == 0) atomicAdd(result, cache[0]);
}

}  // namespace

void dot_product(const float* a, const float* b, float* result, int n)
{
    CML_CHECK(cudaMemsetAsync(result, 0, sizeof(float)));
    if (n == 0) return;
    const int needed = cml::ceil_div(n, kThreadsPerBlock);
    dot_product_kernel<<<needed < kMaxBlocks ? needed : kMaxBlocks, kThreadsPerBlock>>>(a, b, result, n);
    CML_CHECK_LAUNCH();
}

const bool dot_product_grid_stride_attempted = false;

void dot_product_grid_stride(const float* a, const float* b, float* result, int n)
{
    (void)a, (void)b, (void)result, (void)n;
}
