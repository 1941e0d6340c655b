// A queue of registers that rotates instead of shifting: the loop over rows is unrolled kTaps at a time, so the
// slot of each row is a compile-time constant at every step and no value moves between registers.
#include "column_filter.hpp"

namespace {

constexpr int kBlock = 256;
constexpr int kStrip = 64;  // a multiple of every filter length, so each chunk of kTaps rows starts at slot 0
constexpr int kMinBlocksPerSM = 4;

template <int kTaps>
__global__ void __launch_bounds__(kBlock, kMinBlocksPerSM)
    column_filter_kernel(const float* __restrict__ in, const Filter filter, float* __restrict__ out, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    const int first = blockIdx.y * kStrip;
    const int last = min(first + kStrip, rows);
    const float* column = in + c;
    float window[kTaps];  // row first + j lives in slot j % kTaps
#pragma unroll
    for (int k = 0; k < kTaps - 1; ++k) window[k] = column[std::size_t(first + k) * cols];
    for (int base = first; base < last; base += kTaps) {
#pragma unroll
        for (int s = 0; s < kTaps; ++s) {
            const int r = base + s;
            if (r >= last) break;
            window[(s + kTaps - 1) % kTaps] = column[std::size_t(r + kTaps - 1) * cols];
            float sum = 0.0f;
#pragma unroll
            for (int k = 0; k < kTaps; ++k) sum += filter.weight[k] * window[(s + k) % kTaps];
            out[std::size_t(r) * cols + c] = sum;
        }
    }
}

template <int kTaps>
void launch(const float* in, const Filter& filter, float* out, int rows, int cols)
{
    static_assert(kStrip % kTaps == 0, "a strip must hold whole chunks of kTaps rows");
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
