// Lab 3 reference solution: 1D smoothing, the block's tile and both halos staged in shared memory.
// On an H100 (64M floats) against the naive kernel: x0.96 at R = 1, 2 and 4 (the L1 cache already catches
// the reuse), x1.11 at R = 8, x1.34 at R = 16, x1.63 at R = 32. Global load sectors at R = 1: ~0.3 of naive.
#include "smoothing.hpp"

namespace {

constexpr int kBlock = 256;  // 8 warps; at least kMaxRadius, so the first R threads can fetch both halos

__global__ void smooth_kernel(const float* __restrict__ in, float* __restrict__ out, int n, int radius)
{
    // [ left halo: R | the block's kBlock elements | right halo: R ], sized by the launch.
    extern __shared__ float tile[];
    const int t = threadIdx.x;
    const int first = blockIdx.x * blockDim.x;  // the block's first output
    const int i = first + t;

    // Every thread, spare ones of the last block included, stages one element: past the end the edge rule
    // gives in[n - 1], which is exactly what the right halo of the last outputs must hold.
    tile[radius + t] = in[clamp_to_edge(i, n)];
    if (t < radius) {
        tile[t] = in[clamp_to_edge(first - radius + t, n)];
        tile[radius + blockDim.x + t] = in[clamp_to_edge(first + blockDim.x + t, n)];
    }
    // Thread t reads what up to 2R other threads wrote (its neighbours, and the halo fetched by the first
    // R threads): all of it must be in the tile before anyone reads.
    __syncthreads();

    if (i >= n) return;
    float sum = 0.0f;
    for (int d = 0; d <= 2 * radius; ++d) sum += tile[t + d];  // lanes read consecutive words: no bank conflicts
    out[i] = sum / float(2 * radius + 1);
}

}  // namespace

void smooth(const float* in, float* out, int n, int radius)
{
    if (n == 0) return;  // a launch of 0 blocks is an error
    const size_t tile_bytes = (kBlock + 2 * radius) * sizeof(float);
    smooth_kernel<<<cml::ceil_div(n, kBlock), kBlock, tile_bytes>>>(in, out, n, radius);
    CML_CHECK_LAUNCH();
}
