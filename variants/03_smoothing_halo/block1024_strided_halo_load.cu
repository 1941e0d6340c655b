// Lab 3 variant, correct: 1024-thread blocks that load the whole tile, halos included, with one strided loop
// (element j of the tile by thread j % 1024), as PMPP's tiled stencils do. Measured x0.75 over naive at R = 1 on
// an H100, against the solution's x0.96 (the same measurement gave the x0.8 threshold).
#include "smoothing.hpp"

namespace {

constexpr int kBlock = 1024;

__global__ void smooth_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int radius)
{
    extern __shared__ float tile[];  // [ left halo: R | kBlock elements | right halo: R ]
    const int t = threadIdx.x;
    const int first = blockIdx.x * kBlock;
    const int width = kBlock + 2 * radius;
    // Slot j of the tile holds in[first - R + j]: neighbouring threads, neighbouring floats, 1 or 2 passes.
    for (int j = t; j < width; j += kBlock) tile[j] = in[clamp_to_edge(first - radius + j, n)];
    __syncthreads();  // every thread reads slots that up to 2R others wrote

    const int i = first + t;
    if (i >= n) return;
    float sum = 0.0f;
    for (int d = 0; d <= 2 * radius; ++d) sum += tile[t + d];
    out[i] = sum / float(2 * radius + 1);
}

}  // namespace

void smooth(const float* in, float* out, int n, int radius)
{
    if (n == 0) return;
    const size_t tile_bytes = (kBlock + 2 * radius) * sizeof(float);
    smooth_kernel<<<cml::ceil_div(n, kBlock), kBlock, tile_bytes>>>(in, out, n, radius);
    CML_CHECK_LAUNCH();
}
