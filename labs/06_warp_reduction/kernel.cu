// Lab 6: a block's sum, with the last warp unrolled and then with warp shuffles. The only file you edit; the
// handout is README.md beside it. On an H100 (64M floats, 1 element per thread), against the grader's full
// tree with a __syncthreads() at every step, the unrolled last warp and the warp shuffles are both faster (the
// handout's table gives the figures, and which of them this GPU grades).
#include "warp_reduction.hpp"

namespace {

constexpr int kWarpSize = 32;
constexpr int kWarpsPerBlock = kBlock / kWarpSize;
constexpr unsigned kFullMask = 0xffffffffu;  // all 32 lanes of the warp take part

// Given: the sum of this thread's per_thread elements, 0 for those past n. Element k of thread t is
// in[first + k * kBlock + t]: at each k the block's threads read kBlock neighbouring floats, and the loop is
// unrolled, so the per_thread loads are independent and in flight together.
__device__ float thread_sum(const float* __restrict__ in, int n, int per_thread)
{
    const int first = blockIdx.x * kBlock * per_thread + threadIdx.x;
    float sum = 0.0f;
#pragma unroll
    for (int k = 0; k < kMaxPerThread; ++k) {
        const int j = first + k * kBlock;
        if (k < per_thread && j < n) sum += in[j];
    }
    return sum;
}

__global__ void block_sums_unrolled_kernel(const float* __restrict__ in, float* __restrict__ partial, int n,
                                           int per_thread)
{
    __shared__ float cache[kBlock];
    const int t = threadIdx.x;
    cache[t] = thread_sum(in, n, per_thread);
    __syncthreads();

    // TODO 1: the baseline's tree steps (README), but only while more than one warp works: strides 128 and
    //   64, that is while stride > kWarpSize, each step followed by __syncthreads().
    //   Hint: the threads t < stride add cache[t + stride] to cache[t]; the barrier stays outside the `if`.

    // TODO 2: warp 0 (t < kWarpSize) finishes alone, strides 32, 16, 8, 4, 2, 1, with no __syncthreads(),
    //   reading and writing `cache` through a `volatile float*`.
    //   Hint: at each step some lanes read slots that other lanes write in the same step. A __syncwarp() must
    //   stand between each such read and that write, and another between a step's writes and the next step's
    //   reads (the README's rule and its rotation example). The pre-Volta `v[t] += v[t + stride];` with no
    //   __syncwarp() prints the right sums on an H100 and is still a race: racecheck fails it (README).

    // TODO 3: lane 0 writes the block's sum to partial[blockIdx.x]. Then delete the CML_TODO line in
    //   block_sums_unrolled below.
    //   Hint: after the stride-1 step slot 0 holds the block's sum (and so does lane 0's running sum, if you
    //   kept one in a register).
    (void)partial, (void)cache[0];  // delete this line once TODO 2 and 3 use them
}

// TODO 4: return the sum of `value` over the 32 lanes of the warp, complete in lane 0, with __shfl_down_sync
//   and no shared memory.
//   Hint: the tree of TODOs 1 and 2 with registers instead of slots. __shfl_down_sync(mask, v, o) returns
//   lane (l + o)'s v to lane l; which offsets fold 32 lanes into lane 0 (the README folds 8 with 4, 2, 1)?
//   Every lane named in the mask must call it, so keep all 32 lanes in the loop even though only lane 0's
//   result is used.
__device__ float warp_sum(float value)
{
    (void)kFullMask;  // delete this line once TODO 4 uses it
    return value;
}

__global__ void block_sums_shuffle_kernel(const float* __restrict__ in, float* __restrict__ partial, int n,
                                          int per_thread)
{
    __shared__ float warp_sums[kWarpsPerBlock];
    const int lane = threadIdx.x % kWarpSize;
    const int warp = threadIdx.x / kWarpSize;
    const float sum = thread_sum(in, n, per_thread);

    // TODO 5: each warp adds up its 32 lanes' `sum` with warp_sum; lane 0 of each warp stores the result in
    //   warp_sums[warp]; after one __syncthreads(), warp 0 adds up the kWarpsPerBlock warp sums with warp_sum
    //   again (its lanes past kWarpsPerBlock contribute 0) and lane 0 writes partial[blockIdx.x]. Then delete
    //   the CML_TODO line in block_sums_shuffle below.
    //   Hint: one block-wide barrier in all, against the baseline's nine.
    (void)partial, (void)warp_sums[0], (void)lane, (void)warp, (void)warp_sum(sum);  // delete once TODO 5 uses them
}

}  // namespace

void block_sums_unrolled(const float* in, float* partial, int n, int per_thread)
{
    CML_TODO("TODO 1-3: unroll the last warp of block_sums_unrolled_kernel (labs/06_warp_reduction/kernel.cu)");
    if (n == 0) return;  // a launch of 0 blocks is an error, and there is no sum to write
    block_sums_unrolled_kernel<<<block_count(n, per_thread), kBlock>>>(in, partial, n, per_thread);
    CML_CHECK_LAUNCH();
}

void block_sums_shuffle(const float* in, float* partial, int n, int per_thread)
{
    CML_TODO("TODO 4-5: warp_sum and block_sums_shuffle_kernel (labs/06_warp_reduction/kernel.cu)");
    if (n == 0) return;
    block_sums_shuffle_kernel<<<block_count(n, per_thread), kBlock>>>(in, partial, n, per_thread);
    CML_CHECK_LAUNCH();
}
