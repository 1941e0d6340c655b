// What every kernel.cu includes (through its lab's interface header): the CUDA runtime, CML_CHECK,
// CML_TODO and ceil_div. Host test code stays out of kernel.cu, so the file also builds with a host
// compiler against an emulation of the runtime.
#pragma once

#include <cuda_runtime.h>

#include "cml/check.hpp"
#include "cml/todo.hpp"

namespace cml {

// Blocks needed to cover `count` items with `per_block` items per block.
__host__ __device__ constexpr int ceil_div(int count, int per_block)
{
    return (count + per_block - 1) / per_block;
}

}  // namespace cml
