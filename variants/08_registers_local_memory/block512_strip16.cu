// A window of registers sliding down each column, 512-thread blocks, 16 rows per thread.
#include "column_filter.hpp"

namespace {

constexpr int kBlock = 512;
constexpr int kStrip = 16;
constexpr int kMinBlocksPerSM = 2;  // 65536 / (2 x 512) = 64 registers per thread at most

template <int kTaps>
__global__ void __launch_bounds__(kBlock, kMinBlocksPerSM)
    column_filter_kernel(const float* __restrict__ in, const Filter filter, float* __restrict__ out, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    const int first = blockIdx.y * kStrip;
    const int last = min(first + kStrip, rows);
    const float* column = in + c;
    float window[kTaps];
#pragma unroll
    for (int k = 0; k < kTaps - 1; ++k) window[k] = column[std::size_t(first + k) * cols];
    for (int r = first; r < last; ++r) {
        window[kTaps - 1] = column[std::size_t(r + kTaps - 1) * cols];
        float sum = 0.0f;
#pragma unroll
        for (int k = 0; k < kTaps; ++k) sum += filter.weight[k] * window[k];
        out[std::size_t(r) * cols + c] = sum;
#pragma unroll
        for (int k = 0; k < kTaps - 1; ++k) window[k] = window[k + 1];
    }
}

template <int kTaps>
void launch(const float* in, const Filter& filter, float* out, int rows, int cols)
{
    const dim3 grid(cml::ceil_div(cols, kBlock), cml::ceil_div(rows, kStrip));
    column_filter_kernel<kTaps><<<grid, kBlock>>>(in, filter, out, rows, cols);
}

}  // namespace

void column_filter(const float* in, const Filter& filter, float* out, int rows, int cols)
{
    if (rows == 0 || cols == 0) return;
    switch (filter.taps) {
        case 4:
            launch<4>(in, filter, out, rows, cols);
            break;
        case 8:
            launch<8>(in, filter, out, rows, cols);
            break;
        case 16:
            launch<16>(in, filter, out, rows, cols);
            break;
        case 32:
            launch<32>(in, filter, out, rows, cols);
            break;
        default:
            CML_CHECK(cudaErrorInvalidValue);
    }
    CML_CHECK_LAUNCH();
}
