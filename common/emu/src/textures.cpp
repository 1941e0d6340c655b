// CUDA arrays and texture objects on the CPU (include/cml_emu/textures.hpp). A CUDA array is a host allocation
// of width x height floats; a texture object is a slot of a fixed table, written when it is made and read by the
// fetches of every worker thread (no texture is made or destroyed while a kernel runs).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <mutex>
#include <vector>

#include "cml_emu/textures.hpp"
#include "memory.hpp"
#include "runtime_state.hpp"

struct cudaArray {
    std::size_t width = 0, height = 0;
    std::vector<float> texels;  // row by row
};

namespace cml_emu {
namespace {

struct Texture {
    bool live = false;
    const char* texels = nullptr;  // the first texel of row 0
    std::size_t width = 0, height = 0, pitch = 0;  // pitch: bytes from one row to the next
    cudaTextureAddressMode address[2] = {cudaAddressModeClamp, cudaAddressModeClamp};
    cudaTextureFilterMode filter = cudaFilterModePoint;
    bool normalized = false;
    float border = 0.0f;
};

// Handles are slot + 1, so that 0, a texture object never made, is refused.
constexpr std::size_t kTextures = 4096;
std::array<Texture, kTextures> g_textures;
std::mutex g_textures_mutex;

bool one_float(const cudaChannelFormatDesc& desc)
{
    return desc.f == cudaChannelFormatKindFloat && desc.x == 32 && desc.y == 0 && desc.z == 0 && desc.w == 0;
}

// The texel at integer coordinates (i, j), after addressing: clamped to the edge, or the border colour.
float texel(const Texture& t, long i, long j)
{
    const long w = long(t.width), h = long(t.height);
    if (t.address[0] == cudaAddressModeWrap) i = ((i % w) + w) % w;
    if (t.address[1] == cudaAddressModeWrap) j = ((j % h) + h) % h;
    if (t.address[0] == cudaAddressModeBorder && (i < 0 || i >= w)) return t.border;
    if (t.address[1] == cudaAddressModeBorder && (j < 0 || j >= h)) return t.border;
    i = std::clamp(i, 0L, w - 1);
    j = std::clamp(j, 0L, h - 1);
    float value;
    std::memcpy(&value, t.texels + std::size_t(j) * t.pitch + std::size_t(i) * sizeof(float), sizeof value);
    return value;
}

// A linear filter's weight as the texture unit holds it: 9-bit fixed point with 8 bits of fraction, so a
// multiple of 1/256. The Programming Guide gives the format, not the rounding: nearest is taken here, and the
// labs' tolerances allow for a whole step of 1/256 either way.
float quantised(float weight) { return std::nearbyint(weight * 256.0f) / 256.0f; }

}  // namespace

float fetch_2d(cudaTextureObject_t handle, float x, float y)
{
    if (handle == 0 || handle > kTextures || !g_textures[handle - 1].live)
        fatal("tex2D on a texture object that was never made, or was destroyed");
    const Texture& t = g_textures[handle - 1];
    if (t.normalized) {
        x *= float(t.width);
        y *= float(t.height);
    }
    if (t.filter == cudaFilterModePoint) return texel(t, long(std::floor(x)), long(std::floor(y)));
    // Linear: the four texels around (x - 0.5, y - 0.5), texel centres lying at integer + 0.5.
    const float xb = x - 0.5f, yb = y - 0.5f;
    const float i = std::floor(xb), j = std::floor(yb);
    const float a = quantised(xb - i), b = quantised(yb - j);
    const long li = long(i), lj = long(j);
    return (1.0f - a) * (1.0f - b) * texel(t, li, lj) + a * (1.0f - b) * texel(t, li + 1, lj) +
           (1.0f - a) * b * texel(t, li, lj + 1) + a * b * texel(t, li + 1, lj + 1);
}

}  // namespace cml_emu

using cml_emu::api_result;

extern "C" {

cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, cudaChannelFormatKind f)
{
    return cudaChannelFormatDesc{x, y, z, w, f};
}

cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width, size_t height,
                            unsigned int)
{
    if (!array || !desc || width == 0) return api_result(cudaErrorInvalidValue);
    if (!cml_emu::one_float(*desc)) return api_result(cudaErrorNotSupported);
    auto* made = new cudaArray;
    made->width = width;
    made->height = height == 0 ? 1 : height;
    made->texels.assign(made->width * made->height, 0.0f);
    *array = made;
    return api_result(cudaSuccess);
}

cudaError_t cudaFreeArray(cudaArray_t array)
{
    delete array;
    return api_result(cudaSuccess);
}

// `height` rows of `width` bytes from `src`, rows `spitch` bytes apart, into the array from texel (wOffset
// bytes, hOffset rows) on.
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch,
                                size_t width, size_t height, cudaMemcpyKind kind)
{
    if (!dst || !src || width > spitch) return api_result(cudaErrorInvalidValue);
    const std::size_t row_bytes = dst->width * sizeof(float);
    if (wOffset + width > row_bytes || hOffset + height > dst->height) return api_result(cudaErrorInvalidValue);
    if (height == 0 || width == 0) return api_result(cudaSuccess);
    const bool from_device = kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault;
    if (from_device && !cml_emu::is_device_range(src, (height - 1) * spitch + width))
        return api_result(cudaErrorInvalidValue);
    char* first = reinterpret_cast<char*>(dst->texels.data()) + hOffset * row_bytes + wOffset;
    for (std::size_t row = 0; row < height; ++row)
        std::memcpy(first + row * row_bytes, static_cast<const char*>(src) + row * spitch, width);
    return api_result(cudaSuccess);
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* object, const cudaResourceDesc* resource,
                                    const cudaTextureDesc* description, const cudaResourceViewDesc* view)
{
    if (!object || !resource || !description) return api_result(cudaErrorInvalidValue);
    cml_emu::Texture made;
    if (resource->resType == cudaResourceTypeArray && resource->res.array.array) {
        const cudaArray& array = *resource->res.array.array;
        made.texels = reinterpret_cast<const char*>(array.texels.data());
        made.width = array.width;
        made.height = array.height;
        made.pitch = array.width * sizeof(float);
    } else if (resource->resType == cudaResourceTypePitch2D) {
        const auto& pitched = resource->res.pitch2D;
        if (!cml_emu::one_float(pitched.desc)) return api_result(cudaErrorNotSupported);
        const std::size_t bytes = pitched.height ? (pitched.height - 1) * pitched.pitchInBytes + pitched.width * 4 : 0;
        if (pitched.width == 0 || pitched.height == 0 || pitched.pitchInBytes < pitched.width * sizeof(float) ||
            !cml_emu::is_device_range(pitched.devPtr, bytes))
            return api_result(cudaErrorInvalidValue);
        made.texels = static_cast<const char*>(pitched.devPtr);
        made.width = pitched.width;
        made.height = pitched.height;
        made.pitch = pitched.pitchInBytes;
    } else {
        return api_result(cudaErrorNotSupported);
    }
    made.normalized = description->normalizedCoords != 0;
    made.filter = description->filterMode;
    made.border = description->borderColor[0];
    for (int axis = 0; axis < 2; ++axis) {
        const cudaTextureAddressMode mode = description->addressMode[axis];
        const bool plain = mode == cudaAddressModeClamp || mode == cudaAddressModeBorder;
        if (!plain && !(mode == cudaAddressModeWrap && made.normalized)) return api_result(cudaErrorNotSupported);
        made.address[axis] = mode;
    }
    if (view || description->readMode != cudaReadModeElementType) return api_result(cudaErrorNotSupported);
    made.live = true;
    std::lock_guard<std::mutex> lock(cml_emu::g_textures_mutex);
    for (std::size_t slot = 0; slot < cml_emu::kTextures; ++slot) {
        if (!cml_emu::g_textures[slot].live) {
            cml_emu::g_textures[slot] = made;
            *object = slot + 1;
            return api_result(cudaSuccess);
        }
    }
    return api_result(cudaErrorMemoryAllocation);
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t object)
{
    std::lock_guard<std::mutex> lock(cml_emu::g_textures_mutex);
    if (object == 0 || object > cml_emu::kTextures || !cml_emu::g_textures[object - 1].live)
        return api_result(cudaErrorInvalidValue);
    cml_emu::g_textures[object - 1].live = false;
    return api_result(cudaSuccess);
}

}  // extern "C"
