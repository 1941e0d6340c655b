// Lab 3 variant, wrong on purpose: the lesson half done. The tile and its halos are loaded into shared memory and
// the block waits for them, but the sum still reads its window from global memory, as the naive kernel does: the
// tile costs a load per element and saves none.
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
    __syncthreads();

    if (i >= n) return;
    float sum = 0.0f;
    for (int d = -radius; d <= radius; ++d) sum += in[clamp_to_edge(i + d, n)];  // the slip: in, not tile
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
