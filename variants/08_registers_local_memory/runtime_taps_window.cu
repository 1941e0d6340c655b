// The skeleton as shipped, TODOs left undone: the window indexed by the run-time filter length, in local
// memory, under a register cap that would hold it (8 blocks of 256 would not).
#include "column_filter.hpp"

namespace {

constexpr int kBlock = 256;         // threads per block, one column each: neighbouring lanes read neighbouring floats
constexpr int kStrip = 64;          // output rows per thread: the window's first taps - 1 loads are spread over these
constexpr int kMinBlocksPerSM = 4;  // 64 registers per thread: room for 32 floats

__global__ void __launch_bounds__(kBlock, kMinBlocksPerSM)
    column_filter_kernel(const float* __restrict__ in, const Filter filter, float* __restrict__ out, int rows, int cols)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    const int first = blockIdx.y * kStrip;  // < rows: the grid has ceil(rows / kStrip) strips
    const int last = min(first + kStrip, rows);
    const float* column = in + c;
    const int taps = filter.taps;
    // window[k] holds in[r + k][c] for the row r being computed.
    float window[kMaxTaps];
    for (int k = 0; k < taps - 1; ++k) window[k] = column[std::size_t(first + k) * cols];
    for (int r = first; r < last; ++r) {
        window[taps - 1] = column[std::size_t(r + taps - 1) * cols];
        float sum = 0.0f;
        for (int k = 0; k < taps; ++k) sum += filter.weight[k] * window[k];
        out[std::size_t(r) * cols + c] = sum;
        for (int k = 0; k < taps - 1; ++k) window[k] = window[k + 1];  // slide down one row
    }
}

}  // namespace

void column_filter(const float* in, const Filter& filter, float* out, int rows, int cols)
{
    if (rows == 0 || cols == 0) return;  // a launch of 0 blocks is an error
    const dim3 grid(cml::ceil_div(cols, kBlock), cml::ceil_div(rows, kStrip));
    column_filter_kernel<<<grid, kBlock>>>(in, filter, out, rows, cols);
    CML_CHECK_LAUNCH();
}
