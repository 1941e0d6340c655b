// Half precision as the CPU emulator provides it: CUDA's own header, whose types, conversions and arithmetic
// its host side has, then what only device code has there (cml_emu/half.hpp).
#pragma once

#include_next <cuda_fp16.h>

#include "cml_emu/half.hpp"
