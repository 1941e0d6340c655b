// Lab 1 variant, correct: a grid-stride loop over a grid sized to the GPU (32 blocks of 256 per SM, at most
// what n needs), after Justin Luitjens's "CUDA Pro Tip: Write Flexible Kernels with Grid-Stride Loops".
#include "vector_add.hpp"

namespace {

constexpr int kBlock = 256;
constexpr int kBlocksPerSm = 32;  // a multiple of the SM count, as the blog post suggests

__global__ void vector_add_kernel(const float* __restrict__ a, const float* __restrict__ b,
                                  float* __restrict__ c, int n)
{
    // At every pass the whole grid covers gridDim.x * blockDim.x neighbouring elements: still coalesced.
    const int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) c[i] = a[i] + b[i];
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

void vector_add(const float* a, const float* b, float* c, int n)
{
    if (n == 0) return;
    const int needed = cml::ceil_div(n, kBlock);
    const int full_gpu = sm_count() * kBlocksPerSm;
    vector_add_kernel<<<needed < full_gpu ? needed : full_gpu, kBlock>>>(a, b, c, n);
    CML_CHECK_LAUNCH();
}

const bool vector_add_float4_attempted = false;

void vector_add_float4(const float* a, const float* b, float* c, int n)
{
    (void)a, (void)b, (void)c, (void)n;
}
