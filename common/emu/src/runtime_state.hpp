// The runtime's error state, shared by the API calls and the launches; the emulated device's limits; and
// what the runtime knows of each kernel.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>

namespace cml_emu {

// What an API call returns: `error`, kept for cudaGetLastError(), or the error of a kernel that failed before.
cudaError_t api_result(cudaError_t error);
// A launch that was refused: returned (and cleared) by the next cudaGetLastError().
void set_launch_error(cudaError_t error);
// A kernel that failed: every later call returns it, as after a fault on a GPU.
void set_sticky_error(cudaError_t error);
// The checks' summaries and exit status at the program's end: from the first launch, or the first watched call.
void report_at_exit();

// A use of the emulator it cannot go on from (no GPU would either): says what, and aborts.
[[noreturn]] inline void fatal(const char* what)
{
    std::fprintf(stderr, "cml_emu: %s\n", what);
    std::abort();
}

// The emulated device, an H100 (compute capability 9.0), as cudaGetDeviceProperties describes it and as the
// launches and the occupancy calls hold kernels to it.
namespace device {
constexpr int kMultiprocessors = 132;
constexpr int kMaxThreadsPerBlock = 1024;
constexpr int kMaxThreadsPerMultiprocessor = 2048;
constexpr int kMaxBlocksPerMultiprocessor = 32;
constexpr std::size_t kSharedPerMultiprocessor = 228 * 1024;
constexpr std::size_t kSharedPerBlock = 48 * 1024;        // without cudaFuncSetAttribute
constexpr std::size_t kSharedPerBlockOptin = 227 * 1024;  // the most cudaFuncSetAttribute may allow
constexpr std::size_t kReservedSharedPerBlock = 1024;     // what the system keeps of each block's share
constexpr std::size_t kSharedAllocationUnit = 128;
constexpr int kRegistersPerMultiprocessor = 64 * 1024;
}  // namespace device

// What the runtime knows of a kernel: what cudaFuncSetAttribute set, and the most static __shared__ memory
// a block of it used in the launches so far (the emulator learns a kernel's __shared__ variables only as
// its threads reach their declarations).
struct KernelAttributes {
    std::size_t max_dynamic_shared = device::kSharedPerBlock;
    int carveout = -1;  // cudaFuncAttributePreferredSharedMemoryCarveout: none asked for
    std::size_t static_shared = 0;
};
KernelAttributes kernel_attributes(const void* kernel);
void note_static_shared(const void* kernel, std::size_t bytes);

}  // namespace cml_emu
