// Lab 3: 1D smoothing with a halo in shared memory. The only file you edit; the handout is README.md beside it.
// Each output averages the 2R + 1 inputs around it. Staged in shared memory, every input is read from global
// once per block instead of 2R + 1 times: on an H100 that pays at R = 32 and not at R = 1, where the L1 cache
// already serves the few neighbours (the handout's table gives the figures and the speed bars).
#include "smoothing.hpp"

namespace {

constexpr int kBlock = 256;  // at least kMaxRadius, so that the first R threads can fetch both halos

__global__ void smooth_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int radius)
{
    // The tile: [ left halo: R floats | the block's kBlock elements | right halo: R floats ].
    // Its size is set by the launch (TODO 5).
    extern __shared__ float tile[];
    const int t = threadIdx.x;
    const int first = blockIdx.x * blockDim.x;  // the block's first output
    const int i = first + t;

    // TODO 1: every thread, the spare ones of the last block included, copies its own element into the tile,
    //   at tile[radius + t].
    //   Hint: read in[clamp_to_edge(i, n)]: past the end, the edge rule gives in[n - 1], which is what the
    //   last outputs' right halo must hold. (A thread that returns early here leaves a hole in the tile.)

    // TODO 2: the first `radius` threads also fetch the halos: the R elements before the block's first one
    //   into tile[0 .. R-1], and the R elements after its last one into tile[R + kBlock .. 2R + kBlock - 1].
    //   Hint: tile slot s holds in[first - R + s], the index clamped to the edge (TODO 1 is the slot s = R + t).
    //   Which slots does thread t fill on each side? Block 1 at R = 3, as the README draws it: thread 0
    //   fetches in[253] into tile[0] and in[512] into tile[259].

    // TODO 3: make every thread wait until the whole tile is written.
    //   Hint: thread t reads what 2R other threads wrote. ./cml grade runs compute-sanitizer racecheck, which
    //   reports the race even when the output happens to come out right.

    // TODO 4: threads with i < n average tile[t .. t + 2R] and write out[i].
    //   Hint: the tile starts R elements before the block, so tile[t + R] is in[i]; divide by 2R + 1.
    (void)i;  // delete this line once TODO 4 uses i
}

}  // namespace

void smooth(const float* in, float* out, int n, int radius)
{
    if (n == 0) return;  // a launch of 0 blocks is an error
    // TODO 5: ask for the tile's shared memory at launch: kBlock + 2 * radius floats, in bytes, as the third
    //   launch parameter <<<grid, block, bytes>>>. Then delete the CML_TODO line.
    //   Hint: `extern __shared__` arrays are sized by that third parameter; with 0 there is no tile at all.
    CML_TODO("TODO 5: size the shared tile at launch (labs/03_smoothing_halo/kernel.cu)");
    const size_t tile_bytes = 0;
    smooth_kernel<<<cml::ceil_div(n, kBlock), kBlock, tile_bytes>>>(in, out, n, radius);
    CML_CHECK_LAUNCH();
}
