// Texture objects on the CPU: textures of 1, 2 or 4 channels of 8, 16 or 32 bits (signed, unsigned, float, and
// half as 16-bit float), over a CUDA array (1D or 2D), pitched memory or linear memory; read as the element
// type or as normalized floats; point and linear filtering (the weights rounded to 1/256, as the hardware keeps
// them in 9-bit fixed point); clamp, border, wrap and mirror addressing; unnormalized or normalized coordinates
// (common/emu/src/textures.cpp). The fetches of what the labs' calls can make: tex1Dfetch, tex1D, tex2D, their
// Lod and Grad forms (a texture without mipmaps reads level 0) and tex2Dgather. 3D, layered and cubemap
// textures need cudaMalloc3DArray, which no lab allows: their fetches are not emulated.
#pragma once

#include <cstring>
#include <type_traits>

#include <texture_types.h>
#include <vector_types.h>

#include "cml_emu/device.hpp"

namespace cml_emu {

// What a fetch gives before it is made the kernel's type: four components, floating (a float texture, or a
// normalized read) or integers.
struct Texel {
    float f[4] = {0, 0, 0, 0};
    long long i[4] = {0, 0, 0, 0};
    bool floating = true;
};

Texel fetch_element(cudaTextureObject_t texture, int index);                       // tex1Dfetch
Texel fetch(cudaTextureObject_t texture, int dimensions, float x, float y);        // tex1D, tex2D
Texel gather(cudaTextureObject_t texture, float x, float y, int component);        // tex2Dgather

// The components of T: a scalar, or a CUDA vector type (float4, uchar2, ...), whose .x names the first.
template <class T, class = void>
struct components {
    using type = T;
};
template <class T>
struct components<T, std::void_t<decltype(T::x)>> {
    using type = decltype(T::x);
};

template <class T>
T texel_as(const Texel& texel)
{
    using C = typename components<T>::type;
    constexpr int count = int(sizeof(T) / sizeof(C));
    static_assert(count >= 1 && count <= 4, "a texture fetch gives 1 to 4 components");
    C parts[4];
    for (int k = 0; k < count; ++k) parts[k] = texel.floating ? C(texel.f[k]) : C(texel.i[k]);
    T out;
    std::memcpy(&out, parts, sizeof(T));
    return out;
}

}  // namespace cml_emu

template <class T>
T tex1Dfetch(cudaTextureObject_t texture, int x)
{
    return cml_emu::texel_as<T>(cml_emu::fetch_element(texture, x));
}
template <class T>
T tex1D(cudaTextureObject_t texture, float x)
{
    return cml_emu::texel_as<T>(cml_emu::fetch(texture, 1, x, 0.0f));
}
template <class T>
T tex2D(cudaTextureObject_t texture, float x, float y)
{
    return cml_emu::texel_as<T>(cml_emu::fetch(texture, 2, x, y));
}
// Level of detail and gradients choose among mipmaps, which the labs' textures have none of: level 0.
template <class T>
T tex1DLod(cudaTextureObject_t texture, float x, float)
{
    return tex1D<T>(texture, x);
}
template <class T>
T tex2DLod(cudaTextureObject_t texture, float x, float y, float)
{
    return tex2D<T>(texture, x, y);
}
template <class T>
T tex1DGrad(cudaTextureObject_t texture, float x, float, float)
{
    return tex1D<T>(texture, x);
}
template <class T>
T tex2DGrad(cudaTextureObject_t texture, float x, float y, float2, float2)
{
    return tex2D<T>(texture, x, y);
}
// The four texels a linear filter would blend, one component of each: (i, j+1), (i+1, j+1), (i+1, j), (i, j).
template <class T>
T tex2Dgather(cudaTextureObject_t texture, float x, float y, int component = 0)
{
    return cml_emu::texel_as<T>(cml_emu::gather(texture, x, y, component));
}
// The forms for sparse CUDA arrays say whether the texels are resident: every texel is, here.
template <class T>
T tex2D(cudaTextureObject_t texture, float x, float y, bool* resident)
{
    *resident = true;
    return tex2D<T>(texture, x, y);
}
template <class T>
T tex2DLod(cudaTextureObject_t texture, float x, float y, float level, bool* resident)
{
    *resident = true;
    return tex2DLod<T>(texture, x, y, level);
}
template <class T>
T tex2DGrad(cudaTextureObject_t texture, float x, float y, float2 dx, float2 dy, bool* resident)
{
    *resident = true;
    return tex2DGrad<T>(texture, x, y, dx, dy);
}
template <class T>
T tex2Dgather(cudaTextureObject_t texture, float x, float y, bool* resident, int component = 0)
{
    *resident = true;
    return tex2Dgather<T>(texture, x, y, component);
}

// The forms that write the texel through a pointer.
#define CML_EMU_TEXTURE_OUT(name)                                                                             \
    template <class T, class... Coordinates>                                                                 \
    void name(T* value, cudaTextureObject_t texture, Coordinates... coordinates)                             \
    {                                                                                                        \
        *value = name<T>(texture, coordinates...);                                                           \
    }
CML_EMU_TEXTURE_OUT(tex1Dfetch)
CML_EMU_TEXTURE_OUT(tex1D)
CML_EMU_TEXTURE_OUT(tex2D)
CML_EMU_TEXTURE_OUT(tex1DLod)
CML_EMU_TEXTURE_OUT(tex2DLod)
CML_EMU_TEXTURE_OUT(tex1DGrad)
CML_EMU_TEXTURE_OUT(tex2DGrad)
CML_EMU_TEXTURE_OUT(tex2Dgather)
#undef CML_EMU_TEXTURE_OUT

// 3D, layered and cubemap fetches, in both forms (T returned, or written through T*).
#define CML_EMU_TEXTURE_LIMIT(name)                                                                           \
    template <class T, class... Arguments>                                                                   \
    CML_EMU_NOT_EMULATED(#name " (3D, layered and cubemap textures)") T name(cudaTextureObject_t, Arguments...); \
    template <class T, class... Arguments>                                                                   \
    CML_EMU_NOT_EMULATED(#name " (3D, layered and cubemap textures)") void name(T*, cudaTextureObject_t, Arguments...);
CML_EMU_TEXTURE_LIMIT(tex3D)
CML_EMU_TEXTURE_LIMIT(tex3DLod)
CML_EMU_TEXTURE_LIMIT(tex3DGrad)
CML_EMU_TEXTURE_LIMIT(tex1DLayered)
CML_EMU_TEXTURE_LIMIT(tex1DLayeredLod)
CML_EMU_TEXTURE_LIMIT(tex1DLayeredGrad)
CML_EMU_TEXTURE_LIMIT(tex2DLayered)
CML_EMU_TEXTURE_LIMIT(tex2DLayeredLod)
CML_EMU_TEXTURE_LIMIT(tex2DLayeredGrad)
CML_EMU_TEXTURE_LIMIT(texCubemap)
CML_EMU_TEXTURE_LIMIT(texCubemapLod)
CML_EMU_TEXTURE_LIMIT(texCubemapGrad)
CML_EMU_TEXTURE_LIMIT(texCubemapLayered)
CML_EMU_TEXTURE_LIMIT(texCubemapLayeredLod)
CML_EMU_TEXTURE_LIMIT(texCubemapLayeredGrad)
#undef CML_EMU_TEXTURE_LIMIT
