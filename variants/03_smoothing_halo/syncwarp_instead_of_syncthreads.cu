// Lab 3 variant, wrong on purpose: the solution's tile with __syncwarp() where __syncthreads() belongs. A warp waits
// for its own lanes only, but reads slots that other warps (and warp 0, for the halos) write: a race, which
// racecheck reports as errors even where the output comes out right (as it does on the CPU emulator).
#include "smoothing.hpp"

namespace {

constexpr int kBlock = 256;

__global__ void smooth_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int radius)
{
    extern __shared__ float tile[];
    const int t = threadIdx.x;
    const int first = blockIdx.x * blockDim.x;
    const int i = first + t;
    tile[radius + t] = in[clamp_to_edge(i, n)];
    if (t < radius) {
        tile[t] = in[clamp_to_edge(first - radius + t, n)];
        tile[radius + blockDim.x + t] = in[clamp_to_edge(first + blockDim.x + t, n)];
    }
    __syncwarp();  // the bug: only this warp's writes are waited for
    if (i >= n) return;
    float sum = 0.0f;
    for (int d = 0; d <= 2 * radius; ++d) sum += tile[t + d];
    out[i] = sum / float(2 * radius + 1);
}

}  // namespace

void smooth(const float* in, float* out, int n, int radius)
{
    if (n == 0) return;
    smooth_kernel<<<cml::ceil_div(n, kBlock), kBlock, (kBlock + 2 * radius) * sizeof(float)>>>(in, out, n, radius);
    CML_CHECK_LAUNCH();
}
