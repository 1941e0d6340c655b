// The window as a ring in shared memory, indexed at run time with no template: slot-major, so the 32 lanes of a
// warp read 32 neighbouring floats, one per bank, with no conflict.
#include "column_filter.hpp"

namespace {

constexpr int kBlock = 256;
constexpr int kStrip = 64;

__global__ void column_filter_kernel(const float* __restrict__ in, const Filter filter, float* __restrict__ out,
                                     int rows, int cols)
{
    // 32 x 256 floats: 32 KB per block. Each thread owns its slots; no other thread reads them, so no barrier.
    __shared__ float ring[kMaxTaps][kBlock];
    const int t = threadIdx.x;
    const int c = blockIdx.x * blockDim.x + t;
    if (c >= cols) return;
    const int first = blockIdx.y * kStrip;
    const int last = min(first + kStrip, rows);
    const float* column = in + c;
    const int taps = filter.taps;
    // Row first + j lives in slot j % taps; head is the slot of row r, the oldest in the window.
    for (int k = 0; k < taps - 1; ++k) ring[k][t] = column[std::size_t(first + k) * cols];
    int head = 0;
    for (int r = first; r < last; ++r) {
        const int newest = head == 0 ? taps - 1 : head - 1;
        ring[newest][t] = column[std::size_t(r + taps - 1) * cols];
        float sum = 0.0f;
        int slot = head;
        for (int k = 0; k < taps; ++k) {
            sum += filter.weight[k] * ring[slot][t];
            slot = slot + 1 == taps ? 0 : slot + 1;
        }
        out[std::size_t(r) * cols + c] = sum;
        head = head + 1 == taps ? 0 : head + 1;
    }
}

}  // namespace

void column_filter(const float* in, const Filter& filter, float* out, int rows, int cols)
{
    if (rows == 0 || cols == 0) return;
    const dim3 grid(cml::ceil_div(cols, kBlock), cml::ceil_div(rows, kStrip));
    column_filter_kernel<<<grid, kBlock>>>(in, filter, out, rows, cols);
    CML_CHECK_LAUNCH();
}
