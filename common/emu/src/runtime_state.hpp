// The runtime's error state, shared by the API calls and the launches.
#pragma once

#include <cuda_runtime_api.h>

namespace cml_emu {

// A launch that was refused: returned (and cleared) by the next cudaGetLastError().
void set_launch_error(cudaError_t error);
// A kernel that failed: every later call returns it, as after a fault on a GPU.
void set_sticky_error(cudaError_t error);

}  // namespace cml_emu
