// Each way a kernel.cu may copy between the host and the GPU (cudaMemcpy and cudaMemcpyAsync, cudaMemcpy2D and
// cudaMemcpy2DAsync, copies to and from a __constant__ variable), made from pinned memory in a watched call that
// expects its input carried to a device buffer a kernel is then given, and its output back from one, as Lab 10's
// test program marks its calls (its caller's buffers here are the pinned buffer itself); and one watched call that
// copies nothing. grader/tests/emulator/test_emulator_api.py runs it on the CPU emulator under the schedule check, which
// must find the last call alone: every other one carried what it had to, by its own calls.
#include <cuda_runtime.h>

#include <cstddef>

#include "cml/watched_call.hpp"

namespace {

constexpr int kWidth = 24;      // bytes of a row
constexpr int kHeight = 5;      // rows
constexpr int kHostPitch = 32;  // bytes from row to row in host memory: the rows are not contiguous there
constexpr int kTable = 16;

__constant__ float c_table[kTable];

constexpr unsigned kPinned = cml::kExpectPinnedCopies;

// The kernel between each call's copies: given the device buffer, it reads and writes every byte.
__global__ void touch(char* bytes, int n)
{
    for (int i = int(threadIdx.x); i < n; i += int(blockDim.x)) bytes[i] = char(bytes[i] + c_table[0] * 0);
}

}  // namespace

int main()
{
    char* host = nullptr;
    char* device = nullptr;
    std::size_t pitch = 0;
    constexpr std::size_t kBytes = kHostPitch * kHeight;
    constexpr std::size_t kRows = std::size_t(kWidth) * kHeight;  // what a 2D copy of the rows moves
    if (cudaMallocHost(&host, kBytes) != cudaSuccess) return 1;
    if (cudaMallocPitch(reinterpret_cast<void**>(&device), &pitch, kWidth, kHeight) != cudaSuccess) return 1;
    cudaStream_t stream = nullptr;
    if (cudaStreamCreate(&stream) != cudaSuccess) return 1;

    const cml::CallBuffers rows = {host, kRows, host, kRows};
    cml::watched_call("by_cudaMemcpy", kPinned, rows, [&] {
        cudaMemcpy(device, host, kRows, cudaMemcpyHostToDevice);
        touch<<<1, 32>>>(device, int(kRows));
        cudaMemcpy(host, device, kRows, cudaMemcpyDefault);
    });
    cml::watched_call("by_cudaMemcpyAsync_in_two_halves", kPinned, rows, [&] {
        cudaMemcpyAsync(device, host, kRows / 2, cudaMemcpyHostToDevice, stream);
        cudaMemcpyAsync(device + kRows / 2, host + kRows / 2, kRows - kRows / 2, cudaMemcpyHostToDevice, stream);
        touch<<<1, 32, 0, stream>>>(device, int(kRows));
        cudaMemcpyAsync(host, device, kRows, cudaMemcpyDeviceToHost, stream);
        cudaStreamSynchronize(stream);
    });
    cml::watched_call("by_cudaMemcpy2D", kPinned, rows, [&] {
        cudaMemcpy2D(device, pitch, host, kHostPitch, kWidth, kHeight, cudaMemcpyHostToDevice);
        touch<<<1, 32, 0, stream>>>(device, int(pitch * kHeight));
        cudaMemcpy2DAsync(host, kHostPitch, device, pitch, kWidth, kHeight, cudaMemcpyDeviceToHost, stream);
        cudaStreamSynchronize(stream);
    });
    constexpr std::size_t kTableBytes = sizeof(float) * kTable;
    cml::watched_call("by_symbols", kPinned, {host, kTableBytes, host, kTableBytes}, [&] {
        cudaMemcpyToSymbolAsync(c_table, host, kTableBytes, 0, cudaMemcpyHostToDevice, stream);
        touch<<<1, 32, 0, stream>>>(device, 1);  // it reads the table, as every kernel may
        cudaMemcpyFromSymbolAsync(host, c_table, kTableBytes, 0, cudaMemcpyDeviceToHost, stream);
        cudaStreamSynchronize(stream);
    });
    cml::watched_call("by_no_copy_at_all", kPinned, rows, [] {});

    cudaStreamDestroy(stream);
    cudaFree(device);
    cudaFreeHost(host);
    return 0;
}
