// Lab 11: atomics and privatization. The only file you edit; the handout is README.md beside it.
// A histogram of bytes. As shipped it computes the right answer with one global atomicAdd per byte, and the
// atomics on the few hot bins of a text queue one after another in L2. A private histogram per block, in shared
// memory, moves the queue onto the SM and leaves one global atomic per bin and block. The handout gives the bars.
#include <algorithm>

#include "histogram.hpp"

namespace {

constexpr int kThreads = 256;     // threads per block
constexpr int kBlocksPerSm = 4;   // the grid fills every SM this many times over; each thread loops over the rest

// Each thread counts the bytes i, i + the grid's threads, ...: consecutive lanes read consecutive bytes.
__global__ void histogram_kernel(const unsigned char* __restrict__ data, unsigned* __restrict__ bins, int n)
{
    // TODO 1: declare the block's own histogram, `__shared__ unsigned local[kBins];`, and set it to 0: each thread
    //   zeroes the bins threadIdx.x, threadIdx.x + blockDim.x, ... Then make sure every bin is 0 before any thread
    //   of the block adds to one.
    //   Hint: shared memory starts with whatever the last block left there. Which call makes a thread wait until
    //   every thread of its block has reached it?
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        // TODO 2: add into local instead, with a shared-memory atomicAdd (the same call on a __shared__ address).
        atomicAdd(&bins[data[i]], 1u);
    }
    // TODO 3: once every thread of the block has added its bytes, merge local into bins: one global atomicAdd per
    //   bin (the threads share the 256 bins out as in TODO 1), none for a bin that holds 0.
    //   Hint: the same barrier as in TODO 1, for the opposite reason: which threads' additions must be done
    //   before a thread reads a bin?
}

// The grid: kBlocksPerSm blocks per SM of this GPU, fewer where n needs fewer.
int blocks_for(int n)
{
    int device = 0, sms = 0;
    CML_CHECK(cudaGetDevice(&device));
    CML_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    return std::min(cml::ceil_div(n, kThreads), sms * kBlocksPerSm);
}

}  // namespace

void histogram(const unsigned char* data, unsigned* bins, int n)
{
    CML_CHECK(cudaMemsetAsync(bins, 0, kBins * sizeof(unsigned)));  // the kernel only adds
    if (n == 0) return;  // a launch of 0 blocks is an error
    histogram_kernel<<<blocks_for(n), kThreads>>>(data, bins, n);
    CML_CHECK_LAUNCH();
}

// ---- Stretch: a copy of the histogram per warp ----

// TODO 4 (stretch, optional): write histogram_per_warp, the same result with a private histogram per warp of the
//   block (kThreads / 32 copies of kBins in shared memory), added up bin by bin before the merge. Then set the flag
//   to true.
//   Hint: with one copy per block, every warp of the block that meets a space queues at the same shared bin; with
//   a copy per warp, only the lanes of one warp do. The handout says when that pays.
const bool histogram_per_warp_attempted = false;

void histogram_per_warp(const unsigned char* data, unsigned* bins, int n)
{
    (void)data;
    (void)bins;
    (void)n;
}
