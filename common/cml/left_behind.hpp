// What the code a test program runs has allocated on the device and not released: device buffers (cudaMalloc,
// cudaMallocAsync, cudaMallocPitch), CUDA arrays (cudaMallocArray) and texture objects (cudaCreateTextureObject).
// A lab whose test program links left_behind.cpp has the linker send every such call through it (meson.build:
// test_extras, --wrap), on a GPU and on the CPU emulator alike, and each goes on to the runtime unchanged; a test
// compares two counts taken around the calls it makes, since the harness's own buffers are counted too.
#pragma once

namespace cml {

struct Held {
    long long device_buffers = 0;
    long long arrays = 0;
    long long textures = 0;
};

// Alive now. A program whose link does not route the calls through left_behind.cpp (the checker) has none.
Held held();

}  // namespace cml
