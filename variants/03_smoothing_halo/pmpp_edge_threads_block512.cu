// Lab 3 variant, correct: the halo loading of PMPP's tiled 1D convolution, with 512-thread blocks: the last R
// threads fetch the left halo (the previous block's last R elements), the first R threads the right halo.
#include "smoothing.hpp"

namespace {

constexpr int kBlock = 512;
static_assert(kBlock >= kMaxRadius, "R threads at each end fetch the halos");

__global__ void smooth_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int radius)
{
    extern __shared__ float tile[];
    const int t = threadIdx.x;
    const int block = blockIdx.x;  // signed: block 0's left halo starts at a negative index
    const int i = block * kBlock + t;
    // Left halo: thread t of the last R fetches element t of the previous block, which lands in slot t - (B - R).
    const int left = (block - 1) * kBlock + t;
    if (t >= kBlock - radius) tile[t - (kBlock - radius)] = in[clamp_to_edge(left, n)];
    tile[radius + t] = in[clamp_to_edge(i, n)];
    // Right halo: thread t of the first R fetches element t of the next block.
    const int right = (block + 1) * kBlock + t;
    if (t < radius) tile[radius + kBlock + t] = in[clamp_to_edge(right, n)];
    __syncthreads();
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
