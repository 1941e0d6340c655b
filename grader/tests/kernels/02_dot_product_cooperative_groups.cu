// Lab 2 written with cooperative groups, as NVIDIA's samples write reductions: a test kernel of
// grader/tests/emulator/test_emulator.py, which grades it on the CPU emulator (it must pass as the solution does).
// dot_product: the block's tree in shared memory, block.sync() between its steps, one atomicAdd per block.
// dot_product_grid_stride: tiles of 32 sum with cg::reduce, tiles of 8 with shuffles, one atomicAdd per block.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include "dot_product.hpp"

namespace cg = cooperative_groups;

namespace {

constexpr int kBlock = 256;  // a power of two, so the tree halves it down to one
constexpr int kWarpSize = 32;
constexpr int kWarpsPerBlock = kBlock / kWarpSize;
constexpr int kBlocksPerSm = 8;

__global__ void dot_product_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                   float* __restrict__ result, int n)
{
    __shared__ float products[kBlock];
    const cg::thread_block block = cg::this_thread_block();
    const unsigned t = block.thread_rank();
    const int i = blockIdx.x * blockDim.x + t;
    products[t] = i < n ? a[i] * b[i] : 0.0f;
    // The barrier before each step: the slots it reads were written by the step before (by other warps).
    for (unsigned stride = block.size() / 2; stride > 0; stride /= 2) {
        cg::sync(block);
        if (t < stride) products[t] += products[t + stride];
    }
    if (t == 0) atomicAdd(result, products[0]);
}

// The sum over a tile of 8 with shuffles down: rank 0 of the tile holds it.
__device__ float tile_sum(const cg::thread_block_tile<8>& tile, float value)
{
    for (unsigned offset = tile.size() / 2; offset > 0; offset /= 2) value += tile.shfl_down(value, offset);
    return value;
}

__global__ void dot_product_grid_stride_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                               float* __restrict__ result, int n)
{
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) sum += a[i] * b[i];

    __shared__ float warp_sums[kWarpsPerBlock];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    sum = cg::reduce(warp, sum, cg::plus<float>());  // every lane of the tile gets the sum
    if (warp.thread_rank() == 0) warp_sums[warp.meta_group_rank()] = sum;
    block.sync();
    if (warp.meta_group_rank() == 0) {
        // The first warp adds the 8 warp sums: one tile of 8 of it does.
        const cg::thread_block_tile<8> eight = cg::tiled_partition<8>(warp);
        if (eight.meta_group_rank() == 0) {
            sum = tile_sum(eight, warp_sums[eight.thread_rank()]);
            if (eight.thread_rank() == 0) atomicAdd(result, sum);
        }
    }
}

int sm_count()
{
    static const int count = [] {
        int device = 0, sms = 0;
        CML_CHECK(cudaGetDevice(&device));
        CML_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        return sms;
    }();
    return count;
}

}  // namespace

void dot_product(const float* a, const float* b, float* result, int n)
{
    CML_CHECK(cudaMemsetAsync(result, 0, sizeof(float)));
    if (n == 0) return;
    dot_product_kernel<<<cml::ceil_div(n, kBlock), kBlock>>>(a, b, result, n);
    CML_CHECK_LAUNCH();
}

const bool dot_product_grid_stride_attempted = true;

void dot_product_grid_stride(const float* a, const float* b, float* result, int n)
{
    CML_CHECK(cudaMemsetAsync(result, 0, sizeof(float)));
    if (n == 0) return;
    const int full_gpu = sm_count() * kBlocksPerSm;
    const int needed = cml::ceil_div(n, kBlock);
    dot_product_grid_stride_kernel<<<needed < full_gpu ? needed : full_gpu, kBlock>>>(a, b, result, n);
    CML_CHECK_LAUNCH();
}
