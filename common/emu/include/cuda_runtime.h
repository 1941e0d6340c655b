// The CUDA runtime as the CPU emulator provides it: CUDA's own header for the API's declarations, error codes
// and vector types (dim3, float4, make_float4), the C++ overloads it keeps for nvcc, then what kernels use on
// the device, emulated: what nvcc gives device code by itself (common/emu/device_api.txt lists it, from the
// toolkit's headers). The API is defined by common/emu/src, linked in place of libcudart. Put this folder
// before CUDA's include folder.
#pragma once

#include_next <cuda_runtime.h>

#include "cml_emu/device.hpp"
#include "cml_emu/warp.hpp"
#include "cml_emu/atomics.hpp"
#include "cml_emu/intrinsics.hpp"
#include "cml_emu/math.hpp"
#include "cml_emu/launch.hpp"
#include "cml_emu/runtime.hpp"
#include "cml_emu/textures.hpp"
