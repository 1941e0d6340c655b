// Lab 8 variant, wrong on purpose (the lesson side-stepped): the window kept in global memory the launcher
// allocates, a slot per thread and element, laid out so that neighbouring lanes use neighbouring floats, and
// indexed at run time as a ring. It has no stack frame and makes no local-memory access, so the resources check
// and the local-memory counter cannot see it: only the speed check can.
#include "column_filter.hpp"

namespace {

constexpr int kBlock = 256;  // threads per block, one column each
constexpr int kStrip = 64;   // output rows per thread

__global__ void column_filter_kernel(const float* __restrict__ in, const Filter filter, float* __restrict__ out,
                                     int rows, int cols, float* __restrict__ scratch)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    const std::size_t threads = std::size_t(gridDim.x) * gridDim.y * blockDim.x;
    const std::size_t slot = (std::size_t(blockIdx.y) * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
    float* window = scratch + slot;  // element k of this thread's window is window[k * threads]
    const int first = blockIdx.y * kStrip;
    const int last = min(first + kStrip, rows);
    const float* column = in + c;
    const int taps = filter.taps;
    for (int k = 0; k < taps - 1; ++k) window[std::size_t(k) * threads] = column[std::size_t(first + k) * cols];
    int oldest = 0;  // the ring's slot that holds in[r][c]
    for (int r = first; r < last; ++r) {
        window[std::size_t((oldest + taps - 1) % taps) * threads] = column[std::size_t(r + taps - 1) * cols];
        float sum = 0.0f;
        for (int k = 0; k < taps; ++k) sum += filter.weight[k] * window[std::size_t((oldest + k) % taps) * threads];
        out[std::size_t(r) * cols + c] = sum;
        oldest = (oldest + 1) % taps;
    }
}

float* scratch_of(std::size_t floats)  // kept from call to call, grown when a launch needs more
{
    static float* scratch = nullptr;
    static std::size_t held = 0;
    if (floats > held) {
        if (scratch != nullptr) CML_CHECK(cudaFree(scratch));
        CML_CHECK(cudaMalloc(&scratch, floats * sizeof(float)));
        held = floats;
    }
    return scratch;
}

}  // namespace

void column_filter(const float* in, const Filter& filter, float* out, int rows, int cols)
{
    if (rows == 0 || cols == 0) return;  // a launch of 0 blocks is an error
    const dim3 grid(cml::ceil_div(cols, kBlock), cml::ceil_div(rows, kStrip));
    float* scratch = scratch_of(std::size_t(grid.x) * grid.y * kBlock * kMaxTaps);
    column_filter_kernel<<<grid, kBlock>>>(in, filter, out, rows, cols, scratch);
    CML_CHECK_LAUNCH();
}
