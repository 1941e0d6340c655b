// The runtime's error state, shared by the API calls and the launches.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

namespace cml_emu {

// A launch that was refused: returned (and cleared) by the next cudaGetLastError().
void set_launch_error(cudaError_t error);
// A kernel that failed: every later call returns it, as after a fault on a GPU.
void set_sticky_error(cudaError_t error);

// A use of the emulator it cannot go on from (no GPU would either): says what, and aborts.
[[noreturn]] inline void fatal(const char* what)
{
    std::fprintf(stderr, "cml_emu: %s\n", what);
    std::abort();
}

}  // namespace cml_emu
