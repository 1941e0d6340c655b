// CUDA arrays and texture objects on the CPU (include/cml_emu/textures.hpp). A CUDA array is a host allocation
// of width x height texels; a texture object is a slot of a fixed table, written when it is made and read by the
// fetches of every worker thread (no texture is made or destroyed while a kernel runs).
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <string>
#include <vector>

#include "cml_emu/textures.hpp"
#include "memory.hpp"
#include "runtime_state.hpp"

struct cudaArray {
    cudaChannelFormatDesc format{};
    std::size_t width = 0, height = 0;  // a 1D array has one row
    std::vector<unsigned char> bytes;   // row by row
};

namespace cml_emu {
namespace {

// A channel format the emulator reads: 1, 2 or 4 channels of one size, 8, 16 or 32 bits (a float one of 16 or 32).
struct Format {
    int channels = 0;
    int bits = 0;
    cudaChannelFormatKind kind = cudaChannelFormatKindFloat;
    std::size_t texel_bytes() const { return std::size_t(channels) * std::size_t(bits) / 8; }
};

bool format_of(const cudaChannelFormatDesc& desc, Format& format)
{
    const int sizes[4] = {desc.x, desc.y, desc.z, desc.w};
    int channels = 0;
    while (channels < 4 && sizes[channels] != 0) ++channels;
    for (int k = channels; k < 4; ++k)
        if (sizes[k] != 0) return false;
    for (int k = 1; k < channels; ++k)
        if (sizes[k] != desc.x) return false;
    const bool sized = desc.x == 8 || desc.x == 16 || desc.x == 32;
    const bool kind = desc.f == cudaChannelFormatKindSigned || desc.f == cudaChannelFormatKindUnsigned ||
                      (desc.f == cudaChannelFormatKindFloat && desc.x != 8);
    if ((channels != 1 && channels != 2 && channels != 4) || !sized || !kind) return false;
    format = Format{channels, desc.x, desc.f};
    return true;
}

struct Texture {
    bool live = false;
    bool linear = false;  // over linear memory: tex1Dfetch reads it by index, unfiltered
    Format format;
    const unsigned char* texels = nullptr;  // the first texel of row 0
    std::size_t width = 0, height = 0, pitch = 0;  // pitch: bytes from one row to the next
    cudaTextureAddressMode address[2] = {cudaAddressModeClamp, cudaAddressModeClamp};
    cudaTextureFilterMode filter = cudaFilterModePoint;
    bool normalized = false;      // coordinates in [0, 1)
    bool normalized_read = false;  // cudaReadModeNormalizedFloat, of an 8- or 16-bit integer texture
    float border[4] = {0, 0, 0, 0};
};

// Handles are slot + 1, so that 0, a texture object never made, is refused.
constexpr std::size_t kTextures = 4096;
std::array<Texture, kTextures> g_textures;
std::mutex g_textures_mutex;

const Texture& texture_of(cudaTextureObject_t handle, const char* fetch)
{
    if (handle == 0 || handle > kTextures || !g_textures[handle - 1].live)
        fatal((std::string(fetch) + " on a texture object that was never made, or was destroyed").c_str());
    return g_textures[handle - 1];
}

float half_to_float(std::uint16_t h)
{
    const int exponent = h >> 10 & 0x1f, mantissa = h & 0x3ff;
    const float sign = h >> 15 ? -1.0f : 1.0f;
    if (exponent == 0) return sign * std::ldexp(float(mantissa), -24);
    if (exponent == 31) return mantissa ? std::numeric_limits<float>::quiet_NaN() : sign * INFINITY;
    return sign * std::ldexp(float(mantissa | 0x400), exponent - 25);
}

// The texel at `at`, as the kernel reads it.
Texel read_texel(const Texture& t, const unsigned char* at)
{
    Texel out;
    const Format& f = t.format;
    out.floating = f.kind == cudaChannelFormatKindFloat || t.normalized_read;
    for (int k = 0; k < f.channels; ++k) {
        const unsigned char* p = at + std::size_t(k) * std::size_t(f.bits) / 8;
        long long integer = 0;
        float value = 0;
        if (f.bits == 8) {
            integer = f.kind == cudaChannelFormatKindSigned ? (long long)(std::int8_t)*p : (long long)*p;
        } else if (f.bits == 16) {
            std::uint16_t bits;
            std::memcpy(&bits, p, 2);
            integer = f.kind == cudaChannelFormatKindSigned ? (long long)(std::int16_t)bits : (long long)bits;
            if (f.kind == cudaChannelFormatKindFloat) value = half_to_float(bits);
        } else {
            std::uint32_t bits;
            std::memcpy(&bits, p, 4);
            integer = f.kind == cudaChannelFormatKindSigned ? (long long)(std::int32_t)bits : (long long)bits;
            if (f.kind == cudaChannelFormatKindFloat) std::memcpy(&value, &bits, 4);
        }
        if (f.kind != cudaChannelFormatKindFloat && t.normalized_read) {
            const double full = f.kind == cudaChannelFormatKindSigned ? double((1ll << (f.bits - 1)) - 1)
                                                                       : double((1ll << f.bits) - 1);
            value = float(std::max(double(integer) / full, -1.0));
        }
        out.f[k] = value;
        out.i[k] = integer;
    }
    return out;
}

Texel border_texel(const Texture& t)
{
    Texel out;
    out.floating = t.format.kind == cudaChannelFormatKindFloat || t.normalized_read;
    for (int k = 0; k < 4; ++k) {
        out.f[k] = t.border[k];
        out.i[k] = (long long)t.border[k];
    }
    return out;
}

// One coordinate after addressing: wrapped or mirrored into [0, n), or -1 for the border.
long address(cudaTextureAddressMode mode, long i, long n)
{
    if (mode == cudaAddressModeWrap) return ((i % n) + n) % n;
    if (mode == cudaAddressModeMirror) {
        const long period = ((i % (2 * n)) + 2 * n) % (2 * n);
        return period < n ? period : 2 * n - 1 - period;
    }
    if (mode == cudaAddressModeBorder && (i < 0 || i >= n)) return -1;
    return std::clamp(i, 0L, n - 1);
}

// The texel at integer coordinates (i, j), after addressing.
Texel texel(const Texture& t, long i, long j)
{
    i = address(t.address[0], i, long(t.width));
    j = address(t.address[1], j, long(t.height));
    if (i < 0 || j < 0) return border_texel(t);
    return read_texel(t, t.texels + std::size_t(j) * t.pitch + std::size_t(i) * t.format.texel_bytes());
}

// A linear filter's weight along one axis as the texture unit holds it, in steps of 1/256 (the Programming Guide's
// 9-bit fixed point with 8 bits of fraction): the fraction rounded to the nearest step, halves up, as an H100
// rounds it (tests/12_readonly_texture/reference.hpp, texture_blend_at, says how it was measured).
int weight_steps(float fraction) { return int(std::floor(fraction * 256.0f + 0.5f)); }

Texel blend(const Texel* texels, const float* weights, int count)
{
    Texel out = texels[0];
    for (int k = 0; k < 4; ++k) {
        float sum = 0;
        for (int n = 0; n < count; ++n) sum += weights[n] * texels[n].f[k];
        out.f[k] = sum;
    }
    return out;
}

}  // namespace

Texel fetch_element(cudaTextureObject_t handle, int index)
{
    const Texture& t = texture_of(handle, "tex1Dfetch");
    if (!t.linear) fatal("tex1Dfetch on a texture object that is not over linear memory");
    if (index < 0 || std::size_t(index) >= t.width) {
        Texel zero;
        zero.floating = t.format.kind == cudaChannelFormatKindFloat || t.normalized_read;
        return zero;  // out of range: zeros
    }
    return read_texel(t, t.texels + std::size_t(index) * t.format.texel_bytes());
}

Texel fetch(cudaTextureObject_t handle, int dimensions, float x, float y)
{
    const Texture& t = texture_of(handle, dimensions == 1 ? "tex1D" : "tex2D");
    if (t.linear) fatal("tex1D or tex2D on a texture object over linear memory: tex1Dfetch reads one");
    if (t.normalized) {
        x *= float(t.width);
        y *= float(t.height);
    }
    if (dimensions == 1) y = 0.5f;  // the one row's centre
    if (t.filter == cudaFilterModePoint) return texel(t, long(std::floor(x)), long(std::floor(y)));
    // Linear: the texels around (x - 0.5, y - 0.5), texel centres lying at integer + 0.5.
    const float xb = x - 0.5f, yb = y - 0.5f;
    const float i = std::floor(xb), j = std::floor(yb);
    const int a = weight_steps(xb - i), b = dimensions == 1 ? 0 : weight_steps(yb - j);
    const long li = long(i), lj = long(j);
    const Texel around[4] = {texel(t, li, lj), texel(t, li + 1, lj), texel(t, li, lj + 1), texel(t, li + 1, lj + 1)};
    // The far corner's weight, a b / 256 steps, rounded to the nearest step again, halves up; the other three
    // what is left of a, b and a whole, so that they add up to one and a blend along one axis is that axis's.
    const int corner = (a * b + 128) / 256;
    const float weights[4] = {float(256 - a - b + corner) / 256.0f, float(a - corner) / 256.0f,
                              float(b - corner) / 256.0f, float(corner) / 256.0f};
    return blend(around, weights, 4);
}

Texel gather(cudaTextureObject_t handle, float x, float y, int component)
{
    const Texture& t = texture_of(handle, "tex2Dgather");
    if (t.normalized) {
        x *= float(t.width);
        y *= float(t.height);
    }
    const long i = long(std::floor(x - 0.5f)), j = long(std::floor(y - 0.5f));
    const Texel around[4] = {texel(t, i, j + 1), texel(t, i + 1, j + 1), texel(t, i + 1, j), texel(t, i, j)};
    Texel out = around[0];
    const int c = component >= 0 && component < 4 ? component : 0;
    for (int k = 0; k < 4; ++k) {
        out.f[k] = around[k].f[c];
        out.i[k] = around[k].i[c];
    }
    return out;
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
    cml_emu::Format format;
    if (!cml_emu::format_of(*desc, format)) return api_result(cudaErrorNotSupported);
    auto* made = new cudaArray;
    made->format = *desc;
    made->width = width;
    made->height = height == 0 ? 1 : height;
    made->bytes.assign(made->width * made->height * format.texel_bytes(), 0);
    *array = made;
    return api_result(cudaSuccess);
}

cudaError_t cudaFreeArray(cudaArray_t array)
{
    delete array;
    return api_result(cudaSuccess);
}

// `height` rows of `width` bytes from `src`, rows `spitch` bytes apart, into the array from (wOffset bytes,
// hOffset rows) on.
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void* src, size_t spitch,
                                size_t width, size_t height, cudaMemcpyKind kind)
{
    if (!dst || !src || width > spitch) return api_result(cudaErrorInvalidValue);
    cml_emu::Format format;
    cml_emu::format_of(dst->format, format);
    const std::size_t row_bytes = dst->width * format.texel_bytes();
    if (wOffset + width > row_bytes || hOffset + height > dst->height) return api_result(cudaErrorInvalidValue);
    if (height == 0 || width == 0) return api_result(cudaSuccess);
    const bool from_device = kind == cudaMemcpyDeviceToDevice || kind == cudaMemcpyDefault;
    if (from_device && !cml_emu::is_device_range(src, (height - 1) * spitch + width))
        return api_result(cudaErrorInvalidValue);
    unsigned char* first = dst->bytes.data() + hOffset * row_bytes + wOffset;
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
        cml_emu::format_of(array.format, made.format);
        made.texels = array.bytes.data();
        made.width = array.width;
        made.height = array.height;
        made.pitch = array.width * made.format.texel_bytes();
    } else if (resource->resType == cudaResourceTypePitch2D) {
        const auto& pitched = resource->res.pitch2D;
        if (!cml_emu::format_of(pitched.desc, made.format)) return api_result(cudaErrorNotSupported);
        const std::size_t row = pitched.width * made.format.texel_bytes();
        const std::size_t bytes = pitched.height ? (pitched.height - 1) * pitched.pitchInBytes + row : 0;
        if (pitched.width == 0 || pitched.height == 0 || pitched.pitchInBytes < row ||
            !cml_emu::is_device_range(pitched.devPtr, bytes))
            return api_result(cudaErrorInvalidValue);
        made.texels = static_cast<const unsigned char*>(pitched.devPtr);
        made.width = pitched.width;
        made.height = pitched.height;
        made.pitch = pitched.pitchInBytes;
    } else if (resource->resType == cudaResourceTypeLinear) {
        const auto& linear = resource->res.linear;
        if (!cml_emu::format_of(linear.desc, made.format)) return api_result(cudaErrorNotSupported);
        if (linear.sizeInBytes == 0 || !cml_emu::is_device_range(linear.devPtr, linear.sizeInBytes))
            return api_result(cudaErrorInvalidValue);
        made.linear = true;
        made.texels = static_cast<const unsigned char*>(linear.devPtr);
        made.width = linear.sizeInBytes / made.format.texel_bytes();
        made.height = 1;
        made.pitch = linear.sizeInBytes;
    } else {
        return api_result(cudaErrorNotSupported);  // a mipmapped array
    }
    made.normalized = description->normalizedCoords != 0;
    made.filter = description->filterMode;
    made.normalized_read = description->readMode == cudaReadModeNormalizedFloat &&
                           made.format.kind != cudaChannelFormatKindFloat;
    if (made.normalized_read && made.format.bits == 32) return api_result(cudaErrorInvalidValue);
    const bool floating = made.format.kind == cudaChannelFormatKindFloat || made.normalized_read;
    if (made.filter == cudaFilterModeLinear && (!floating || made.linear)) return api_result(cudaErrorInvalidValue);
    for (int k = 0; k < 4; ++k) made.border[k] = description->borderColor[k];
    for (int axis = 0; axis < 2; ++axis) {
        const cudaTextureAddressMode mode = description->addressMode[axis];
        const bool plain = mode == cudaAddressModeClamp || mode == cudaAddressModeBorder;
        // Wrap and mirror are for normalized coordinates only: with others, a GPU clamps.
        made.address[axis] = plain || made.normalized ? mode : cudaAddressModeClamp;
    }
    if (view) return api_result(cudaErrorNotSupported);
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
