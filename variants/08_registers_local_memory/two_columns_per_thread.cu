// Two columns per thread, kBlock apart so that each load stays coalesced: two windows of registers, twice
// the work per thread, and a register cap of 128 that leaves room for both.
#include "column_filter.hpp"

namespace {

constexpr int kBlock = 128;
constexpr int kStrip = 32;
constexpr int kMinBlocksPerSM = 4;  // 65536 / (4 x 128) = 128 registers per thread at most

template <int kTaps>
__global__ void __launch_bounds__(kBlock, kMinBlocksPerSM)
    column_filter_kernel(const float* __restrict__ in, const Filter filter, float* __restrict__ out, int rows, int cols)
{
    const int c = blockIdx.x * 2 * kBlock + threadIdx.x;  // and c + kBlock
    if (c >= cols) return;
    const bool second = c + kBlock < cols;
    const int first = blockIdx.y * kStrip;
    const int last = min(first + kStrip, rows);
    const float* column = in + c;
    float a[kTaps], b[kTaps];
#pragma unroll
    for (int k = 0; k < kTaps - 1; ++k) {
        a[k] = column[std::size_t(first + k) * cols];
        b[k] = second ? column[std::size_t(first + k) * cols + kBlock] : 0.0f;
    }
    for (int r = first; r < last; ++r) {
        a[kTaps - 1] = column[std::size_t(r + kTaps - 1) * cols];
        b[kTaps - 1] = second ? column[std::size_t(r + kTaps - 1) * cols + kBlock] : 0.0f;
        float sum_a = 0.0f, sum_b = 0.0f;
#pragma unroll
        for (int k = 0; k < kTaps; ++k) {
            sum_a += filter.weight[k] * a[k];
            sum_b += filter.weight[k] * b[k];
        }
        out[std::size_t(r) * cols + c] = sum_a;
        if (second) out[std::size_t(r) * cols + c + kBlock] = sum_b;
#pragma unroll
        for (int k = 0; k < kTaps - 1; ++k) {
            a[k] = a[k + 1];
            b[k] = b[k + 1];
        }
    }
}

template <int kTaps>
void launch(const float* in, const Filter& filter, float* out, int rows, int cols)
{
    const dim3 grid(cml::ceil_div(cols, 2 * kBlock), cml::ceil_div(rows, kStrip));
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
