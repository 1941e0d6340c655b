// A cap of 40 registers (6 blocks of 256 per SM), too few for the 32-tap window, with the spill sent to shared
// memory instead of the stack (CUDA 13's PTX pragma): no stack frame, and still a spill.
#include "column_filter.hpp"

namespace {

constexpr int kBlock = 256;         // threads per block, one column each: neighbouring lanes read neighbouring floats
constexpr int kStrip = 64;          // output rows per thread: the window's first taps - 1 loads are spread over these
constexpr int kMinBlocksPerSM = 6;  // 65536 / (6 x 256) = 42, rounded down to 40 registers

template <int kTaps>
__global__ void __launch_bounds__(kBlock, kMinBlocksPerSM)
    column_filter_kernel(const float* __restrict__ in, const Filter filter, float* __restrict__ out, int rows, int cols)
{
    asm volatile(".pragma \"enable_smem_spilling\";");
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    const int first = blockIdx.y * kStrip;  // < rows: the grid has ceil(rows / kStrip) strips
    const int last = min(first + kStrip, rows);
    const float* column = in + c;
    // window[k] holds in[r + k][c] for the row r being computed. Every index below is a constant once the loops
    // are unrolled, so the compiler gives each element a register of its own.
    float window[kTaps];
#pragma unroll
    for (int k = 0; k < kTaps - 1; ++k) window[k] = column[std::size_t(first + k) * cols];
    for (int r = first; r < last; ++r) {
        window[kTaps - 1] = column[std::size_t(r + kTaps - 1) * cols];
        float sum = 0.0f;
#pragma unroll
        for (int k = 0; k < kTaps; ++k) sum += filter.weight[k] * window[k];
        out[std::size_t(r) * cols + c] = sum;
        // Slide down one row: register-to-register moves, which the compiler renames away where it can.
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
    if (rows == 0 || cols == 0) return;  // a launch of 0 blocks is an error
    // One kernel per length of kTapCounts: the run-time taps picks which compiled window runs.
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
            CML_CHECK(cudaErrorInvalidValue);  // the interface allows no other length
    }
    CML_CHECK_LAUNCH();
}
