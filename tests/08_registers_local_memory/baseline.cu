// The grader's kernels for Lab 8: the skeleton's kernel as shipped (the window in local memory), and the
// solution's under a register cap that makes it spill. Both share the solution's launch shape, so only where
// the window lives differs.
#include "baseline.hpp"

namespace {

constexpr int kBlock = 256;
constexpr int kStrip = 64;
constexpr int kCappedBlocksPerSM = 8;  // 65536 registers / (8 x 256 threads) = 32 per thread

__global__ void column_filter_local_kernel(const float* __restrict__ in, const Filter filter, float* __restrict__ out,
                                           int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    const int first = blockIdx.y * kStrip;
    const int last = min(first + kStrip, rows);
    const float* column = in + c;
    const int taps = filter.taps;
    float window[kMaxTaps];  // indexed by run-time values: local memory
    for (int k = 0; k < taps - 1; ++k) window[k] = column[std::size_t(first + k) * cols];
    for (int r = first; r < last; ++r) {
        window[taps - 1] = column[std::size_t(r + taps - 1) * cols];
        float sum = 0.0f;
        for (int k = 0; k < taps; ++k) sum += filter.weight[k] * window[k];
        out[std::size_t(r) * cols + c] = sum;
        for (int k = 0; k < taps - 1; ++k) window[k] = window[k + 1];
    }
}

template <int kTaps>
__global__ void __launch_bounds__(kBlock, kCappedBlocksPerSM)
    column_filter_capped_kernel(const float* __restrict__ in, const Filter filter, float* __restrict__ out, int rows,
                                int cols)
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

dim3 grid_for(int rows, int cols)
{
    return dim3(cml::ceil_div(cols, kBlock), cml::ceil_div(rows, kStrip));
}

}  // namespace

void column_filter_local(const float* in, const Filter& filter, float* out, int rows, int cols)
{
    if (rows == 0 || cols == 0) return;
    column_filter_local_kernel<<<grid_for(rows, cols), kBlock>>>(in, filter, out, rows, cols);
    CML_CHECK_LAUNCH();
}

void column_filter_capped(const float* in, const Filter& filter, float* out, int rows, int cols)
{
    if (rows == 0 || cols == 0) return;
    const dim3 grid = grid_for(rows, cols);
    switch (filter.taps) {
        case 4:
            column_filter_capped_kernel<4><<<grid, kBlock>>>(in, filter, out, rows, cols);
            break;
        case 8:
            column_filter_capped_kernel<8><<<grid, kBlock>>>(in, filter, out, rows, cols);
            break;
        case 16:
            column_filter_capped_kernel<16><<<grid, kBlock>>>(in, filter, out, rows, cols);
            break;
        case 32:
            column_filter_capped_kernel<32><<<grid, kBlock>>>(in, filter, out, rows, cols);
            break;
        default:
            CML_CHECK(cudaErrorInvalidValue);
    }
    CML_CHECK_LAUNCH();
}
