// Texture objects on the CPU: 2D textures of one float per texel, in a CUDA array or in pitched linear memory,
// fetched with point or linear filtering, clamp, border or wrap addressing, and unnormalized or normalized
// coordinates (common/emu/src/textures.cpp). What the labs use, and no more: another format or mode is refused
// when the texture object is made, with cudaErrorNotSupported.
#pragma once

#include <texture_types.h>

namespace cml_emu {
// The texel that tex2D<float> returns at (x, y), filtered as the GPU filters it (linear weights in 9-bit fixed
// point, 8 bits of fraction: the CUDA Programming Guide's appendix on texture fetching).
float fetch_2d(cudaTextureObject_t texture, float x, float y);
}  // namespace cml_emu

template <class T>
T tex2D(cudaTextureObject_t texture, float x, float y)
{
    static_assert(sizeof(T) == sizeof(float), "the CPU emulator's textures hold one float per texel");
    return T(::cml_emu::fetch_2d(texture, x, y));
}

template <class T>
void tex2D(T* value, cudaTextureObject_t texture, float x, float y)
{
    *value = tex2D<T>(texture, x, y);
}
