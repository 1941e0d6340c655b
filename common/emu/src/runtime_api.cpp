// The CUDA runtime API, every call a kernel.cu may make (grader/steps/integrity/symbols.py) and what the harness
// uses besides, for memory that is the host's own: device pointers are host pointers with red zones around
// them (memory.hpp), copies are memcpy, every call is synchronous (the Async ones too, as on the default
// stream once it is synchronised), and the one device is an H100 as its properties describe it.
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

#include "cml_emu/launch.hpp"
#include "memory.hpp"
#include "options.hpp"
#include "runtime_state.hpp"
#include "schedule.hpp"

namespace cml_emu {
namespace {

std::mutex g_mutex;
cudaError_t g_last = cudaSuccess;    // returned and cleared by cudaGetLastError
cudaError_t g_sticky = cudaSuccess;  // a failed kernel: every call returns it from then on

cudaError_t record(cudaError_t error)
{
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_sticky != cudaSuccess) return g_sticky;
    if (error != cudaSuccess) g_last = error;
    return error;
}

struct Event {
    std::chrono::steady_clock::time_point at;
    bool recorded = false;
};

// The L2 settings the benchmark pins and reads back (common/cml/cache_state.hpp): kept, though no cache is
// emulated, so that a kernel.cu that changes them is seen changing them.
std::size_t g_persisting_l2_bytes = 0;
cudaAccessPolicyWindow g_default_stream_window{};

bool device_side(cudaMemcpyKind kind, bool destination)
{
    switch (kind) {
    case cudaMemcpyHostToDevice: return destination;
    case cudaMemcpyDeviceToHost: return !destination;
    case cudaMemcpyDeviceToDevice: return true;
    default: return false;
    }
}

// A copy between the host and the device, for the schedule check (schedule.hpp): `moved` bytes, from within
// [src, src + src_span) to within [dst, dst + dst_span).
void note_host_copy(void* dst, size_t dst_span, const void* src, size_t src_span, size_t moved, cudaMemcpyKind kind,
                    cudaStream_t stream, bool async)
{
    const bool to_host =
        kind == cudaMemcpyDeviceToHost || (kind == cudaMemcpyDefault && !is_device_range(dst, dst_span));
    const bool from_host =
        kind == cudaMemcpyHostToDevice || (kind == cudaMemcpyDefault && !is_device_range(src, src_span));
    if (to_host == from_host) return;  // device to device, or host to host
    schedule::host_copy(to_host ? dst : src, to_host ? dst_span : src_span, to_host ? src : dst, moved, to_host,
                        stream, async);
}

// Host memory a copy is about to read or write: a copy to it that the schedule check still owes lands first.
void touch_host(const void* pointer, size_t span)
{
    if (!is_device_range(pointer, span)) schedule::host_touched(pointer, span);
}

cudaError_t copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind)
{
    if (count == 0) return record(cudaSuccess);
    if (!dst || !src) return record(cudaErrorInvalidValue);
    if ((device_side(kind, true) && !is_device_range(dst, count)) ||
        (device_side(kind, false) && !is_device_range(src, count)))
        return record(cudaErrorInvalidValue);
    touch_host(dst, count);
    touch_host(src, count);
    std::memmove(dst, src, count);
    return record(cudaSuccess);
}

cudaError_t fill(void* pointer, int value, size_t count)
{
    if (count == 0) return record(cudaSuccess);
    if (!is_device_range(pointer, count)) return record(cudaErrorInvalidValue);
    std::memset(pointer, value, count);
    return record(cudaSuccess);
}

// `height` rows of `width` bytes, each `pitch` bytes after the one before it: [pointer, pointer + extent).
std::size_t extent(size_t pitch, size_t width, size_t height) { return (height - 1) * pitch + width; }

cudaError_t copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                    cudaMemcpyKind kind)
{
    if (width == 0 || height == 0) return record(cudaSuccess);
    if (!dst || !src) return record(cudaErrorInvalidValue);
    if (width > dpitch || width > spitch) return record(cudaErrorInvalidPitchValue);
    if ((device_side(kind, true) && !is_device_range(dst, extent(dpitch, width, height))) ||
        (device_side(kind, false) && !is_device_range(src, extent(spitch, width, height))))
        return record(cudaErrorInvalidValue);
    touch_host(dst, extent(dpitch, width, height));
    touch_host(src, extent(spitch, width, height));
    for (size_t row = 0; row < height; ++row)
        std::memmove(static_cast<char*>(dst) + row * dpitch, static_cast<const char*>(src) + row * spitch, width);
    return record(cudaSuccess);
}

// A 2D copy between the host and the device, for the schedule check: its rows' bytes, each side's extent.
void note_host_copy_2d(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                       cudaMemcpyKind kind, cudaStream_t stream, bool async)
{
    if (width == 0 || height == 0) return;
    note_host_copy(dst, extent(dpitch, width, height), src, extent(spitch, width, height), width * height, kind, stream,
                   async);
}

// A copy to or from [symbol + offset, + count) of a __device__ or __constant__ variable, for the schedule check,
// where its other side is the host's memory (`to_host`: a copy from the variable).
void note_symbol_copy(const void* symbol, size_t offset, const void* other_side, size_t count, bool to_host,
                      cudaStream_t stream, bool async)
{
    const Allocation* variable = device_variable(symbol);
    if (count && variable && !is_device_range(other_side, count))
        schedule::host_copy(other_side, count, reinterpret_cast<const char*>(variable->start) + offset, count, to_host,
                            stream, async);
}

cudaError_t fill_2d(void* pointer, size_t pitch, int value, size_t width, size_t height)
{
    if (width == 0 || height == 0) return record(cudaSuccess);
    if (width > pitch) return record(cudaErrorInvalidPitchValue);
    if (!is_device_range(pointer, extent(pitch, width, height))) return record(cudaErrorInvalidValue);
    for (size_t row = 0; row < height; ++row) std::memset(static_cast<char*>(pointer) + row * pitch, value, width);
    return record(cudaSuccess);
}

// A copy to or from [symbol + offset, + count), which must lie in the __device__ or __constant__ variable
// that starts at `symbol`, as CUDA checks it: the address of the variable in the emulator's memory.
cudaError_t symbol_range(const void* symbol, size_t count, size_t offset, char** address)
{
    const Allocation* variable = device_variable(symbol);
    if (!variable) return cudaErrorInvalidSymbol;
    if (offset > variable->size || count > variable->size - offset) return cudaErrorInvalidValue;
    *address = reinterpret_cast<char*>(variable->start) + offset;
    return cudaSuccess;
}

cudaError_t copy_to_symbol(const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind)
{
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return record(cudaErrorInvalidMemcpyDirection);
    char* address = nullptr;
    if (const cudaError_t error = symbol_range(symbol, count, offset, &address)) return record(error);
    if (count && kind == cudaMemcpyDeviceToDevice && !is_device_range(src, count)) return record(cudaErrorInvalidValue);
    if (count) touch_host(src, count);
    if (count) std::memmove(address, src, count);
    return record(cudaSuccess);
}

cudaError_t copy_from_symbol(void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind)
{
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return record(cudaErrorInvalidMemcpyDirection);
    char* address = nullptr;
    if (const cudaError_t error = symbol_range(symbol, count, offset, &address)) return record(error);
    if (count && kind == cudaMemcpyDeviceToDevice && !is_device_range(dst, count)) return record(cudaErrorInvalidValue);
    if (count) touch_host(dst, count);
    if (count) std::memmove(dst, address, count);
    return record(cudaSuccess);
}

std::mutex g_kernels_mutex;
std::map<const void*, KernelAttributes> g_kernels;  // the kernels an attribute was set for, or launched

// Blocks of `block_threads` threads, each with `dynamic_shared` bytes besides its static __shared__ memory,
// that one multiprocessor of the emulated device holds at once. Registers are not emulated: the limits are
// the threads, the blocks and the shared memory of a multiprocessor, and what the kernel allows.
int active_blocks(const KernelAttributes& kernel, int block_threads, std::size_t dynamic_shared)
{
    if (block_threads > device::kMaxThreadsPerBlock || dynamic_shared > kernel.max_dynamic_shared) return 0;
    const int warps = (block_threads + 31) / 32;
    int blocks = std::min(device::kMaxBlocksPerMultiprocessor, device::kMaxThreadsPerMultiprocessor / 32 / warps);
    const std::size_t unit = device::kSharedAllocationUnit;
    const std::size_t shared = (kernel.static_shared + dynamic_shared + unit - 1) / unit * unit;
    if (shared > 0)
        blocks = std::min<std::size_t>(
            std::size_t(blocks), device::kSharedPerMultiprocessor / (shared + device::kReservedSharedPerBlock));
    return blocks;
}

}  // namespace

KernelAttributes kernel_attributes(const void* kernel)
{
    std::lock_guard<std::mutex> lock(g_kernels_mutex);
    auto it = g_kernels.find(kernel);
    return it == g_kernels.end() ? KernelAttributes{} : it->second;
}

void note_static_shared(const void* kernel, std::size_t bytes)
{
    std::lock_guard<std::mutex> lock(g_kernels_mutex);
    KernelAttributes& attributes = g_kernels[kernel];
    attributes.static_shared = std::max(attributes.static_shared, bytes);
}

cudaError_t check_cooperative_launch(const void* kernel, const LaunchConfig& config)
{
    const unsigned long long blocks = std::uint64_t(config.grid.x) * config.grid.y * config.grid.z;
    const int threads = int(std::min<std::uint64_t>(std::uint64_t(config.block.x) * config.block.y * config.block.z,
                                                    device::kMaxThreadsPerBlock + 1));
    const int per_multiprocessor = active_blocks(kernel_attributes(kernel), threads, config.shared_bytes);
    return blocks <= std::uint64_t(per_multiprocessor) * device::kMultiprocessors ? cudaSuccess
                                                                                 : cudaErrorCooperativeLaunchTooLarge;
}

cudaError_t api_result(cudaError_t error) { return record(error); }

void set_launch_error(cudaError_t error) { record(error); }

void set_sticky_error(cudaError_t error)
{
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_sticky == cudaSuccess) g_sticky = error;
    g_last = error;
}

}  // namespace cml_emu

using cml_emu::record;

extern "C" {

cudaError_t cudaMalloc(void** pointer, size_t size)
{
    if (!pointer) return record(cudaErrorInvalidValue);
    *pointer = cml_emu::allocate_global(size);
    if (*pointer) cml_emu::schedule::device_allocated(*pointer);
    return record(*pointer ? cudaSuccess : cudaErrorMemoryAllocation);
}

cudaError_t cudaFree(void* pointer)
{
    if (!pointer) return record(cudaSuccess);
    if (!cml_emu::free_managed(pointer)) cml_emu::schedule::device_freed(pointer);
    return record(cml_emu::free_global(pointer) ? cudaSuccess : cudaErrorInvalidValue);
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind)
{
    const cudaError_t error = cml_emu::copy(dst, src, count, kind);
    if (error == cudaSuccess) cml_emu::note_host_copy(dst, count, src, count, count, kind, nullptr, false);
    return error;
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream)
{
    const cudaError_t error = cml_emu::copy(dst, src, count, kind);
    if (error == cudaSuccess) cml_emu::note_host_copy(dst, count, src, count, count, kind, stream, true);
    return error;
}

cudaError_t cudaMemset(void* pointer, int value, size_t count) { return cml_emu::fill(pointer, value, count); }

cudaError_t cudaMemsetAsync(void* pointer, int value, size_t count, cudaStream_t)
{
    return cml_emu::fill(pointer, value, count);
}

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind)
{
    const cudaError_t error = cml_emu::copy_to_symbol(symbol, src, count, offset, kind);
    if (error == cudaSuccess) cml_emu::note_symbol_copy(symbol, offset, src, count, false, nullptr, false);
    return error;
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count, size_t offset,
                                    cudaMemcpyKind kind, cudaStream_t stream)
{
    const cudaError_t error = cml_emu::copy_to_symbol(symbol, src, count, offset, kind);
    if (error == cudaSuccess) cml_emu::note_symbol_copy(symbol, offset, src, count, false, stream, true);
    return error;
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind)
{
    const cudaError_t error = cml_emu::copy_from_symbol(dst, symbol, count, offset, kind);
    if (error == cudaSuccess) cml_emu::note_symbol_copy(symbol, offset, dst, count, true, nullptr, false);
    return error;
}

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind,
                                      cudaStream_t stream)
{
    const cudaError_t error = cml_emu::copy_from_symbol(dst, symbol, count, offset, kind);
    if (error == cudaSuccess) cml_emu::note_symbol_copy(symbol, offset, dst, count, true, stream, true);
    return error;
}

cudaError_t cudaGetSymbolAddress(void** devPtr, const void* symbol)
{
    if (!devPtr) return record(cudaErrorInvalidValue);
    const cml_emu::Allocation* variable = cml_emu::device_variable(symbol);
    if (!variable) return record(cudaErrorInvalidSymbol);
    *devPtr = reinterpret_cast<void*>(variable->start);
    return record(cudaSuccess);
}

cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol)
{
    if (!size) return record(cudaErrorInvalidValue);
    const cml_emu::Allocation* variable = cml_emu::device_variable(symbol);
    if (!variable) return record(cudaErrorInvalidSymbol);
    *size = variable->size;
    return record(cudaSuccess);
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                         cudaMemcpyKind kind)
{
    const cudaError_t error = cml_emu::copy_2d(dst, dpitch, src, spitch, width, height, kind);
    if (error == cudaSuccess) cml_emu::note_host_copy_2d(dst, dpitch, src, spitch, width, height, kind, nullptr, false);
    return error;
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind, cudaStream_t stream)
{
    const cudaError_t error = cml_emu::copy_2d(dst, dpitch, src, spitch, width, height, kind);
    if (error == cudaSuccess) cml_emu::note_host_copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, true);
    return error;
}

cudaError_t cudaMemset2D(void* pointer, size_t pitch, int value, size_t width, size_t height)
{
    return cml_emu::fill_2d(pointer, pitch, value, width, height);
}

cudaError_t cudaMemset2DAsync(void* pointer, size_t pitch, int value, size_t width, size_t height, cudaStream_t)
{
    return cml_emu::fill_2d(pointer, pitch, value, width, height);
}

// Stream-ordered allocation: every call is synchronous here, so the memory is there at once, and gone at once.
cudaError_t cudaMallocAsync(void** pointer, size_t size, cudaStream_t) { return cudaMalloc(pointer, size); }
cudaError_t cudaFreeAsync(void* pointer, cudaStream_t) { return cudaFree(pointer); }

// Rows padded to a multiple of 512 bytes, as cudaMallocPitch pads them on an H100.
cudaError_t cudaMallocPitch(void** pointer, size_t* pitch, size_t width, size_t height)
{
    if (!pointer || !pitch) return record(cudaErrorInvalidValue);
    *pitch = (width + 511) / 512 * 512;
    return cudaMalloc(pointer, *pitch * height);
}

cudaError_t cudaMemGetInfo(size_t* free, size_t* total)
{
    if (!free || !total) return record(cudaErrorInvalidValue);
    const std::size_t page = std::size_t(sysconf(_SC_PAGE_SIZE));
    *total = std::size_t(sysconf(_SC_PHYS_PAGES)) * page;
    *free = std::min(*total, std::size_t(sysconf(_SC_AVPHYS_PAGES)) * page);
    return record(cudaSuccess);
}

// The emulator is both the runtime and the driver, of the CUDA version whose headers it was built with.
cudaError_t cudaRuntimeGetVersion(int* version)
{
    if (!version) return record(cudaErrorInvalidValue);
    *version = CUDART_VERSION;
    return record(cudaSuccess);
}

cudaError_t cudaDriverGetVersion(int* version)
{
    if (!version) return record(cudaErrorInvalidValue);
    *version = CUDART_VERSION;
    return record(cudaSuccess);
}

cudaError_t cudaDeviceSynchronize(void)
{
    cml_emu::schedule::synchronised_device();
    return record(cudaSuccess);
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    cml_emu::schedule::synchronised_stream(stream);
    return record(cudaSuccess);
}
cudaError_t cudaDeviceReset(void) { return cudaSuccess; }

cudaError_t cudaGetLastError(void)
{
    std::lock_guard<std::mutex> lock(cml_emu::g_mutex);
    const cudaError_t error = cml_emu::g_last;
    cml_emu::g_last = cml_emu::g_sticky;
    return error;
}

cudaError_t cudaPeekAtLastError(void)
{
    std::lock_guard<std::mutex> lock(cml_emu::g_mutex);
    return cml_emu::g_last;
}

const char* cudaGetErrorName(cudaError_t error)
{
    switch (error) {
    case cudaSuccess: return "cudaSuccess";
    case cudaErrorInvalidValue: return "cudaErrorInvalidValue";
    case cudaErrorMemoryAllocation: return "cudaErrorMemoryAllocation";
    case cudaErrorInvalidConfiguration: return "cudaErrorInvalidConfiguration";
    case cudaErrorInvalidSymbol: return "cudaErrorInvalidSymbol";
    case cudaErrorInvalidMemcpyDirection: return "cudaErrorInvalidMemcpyDirection";
    case cudaErrorInvalidDevice: return "cudaErrorInvalidDevice";
    case cudaErrorLaunchFailure: return "cudaErrorLaunchFailure";
    case cudaErrorIllegalAddress: return "cudaErrorIllegalAddress";
    case cudaErrorNoDevice: return "cudaErrorNoDevice";
    case cudaErrorInvalidResourceHandle: return "cudaErrorInvalidResourceHandle";
    case cudaErrorUnsupportedLimit: return "cudaErrorUnsupportedLimit";
    case cudaErrorNotSupported: return "cudaErrorNotSupported";
    case cudaErrorInvalidPitchValue: return "cudaErrorInvalidPitchValue";
    case cudaErrorInvalidDeviceFunction: return "cudaErrorInvalidDeviceFunction";
    case cudaErrorCooperativeLaunchTooLarge: return "cudaErrorCooperativeLaunchTooLarge";
    default: return "cudaErrorUnknown";
    }
}

const char* cudaGetErrorString(cudaError_t error)
{
    switch (error) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorLaunchFailure: return "unspecified launch failure (cml_emu: a block could not finish, see above)";
    case cudaErrorIllegalAddress:
        return "an illegal memory access was encountered (cml_emu: an access outside every allocation; "
               "CML_EMU_CHECK=memcheck says where)";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorUnsupportedLimit: return "limit is not supported on this architecture";
    case cudaErrorNotSupported: return "operation not supported (cml_emu)";
    case cudaErrorInvalidPitchValue: return "invalid pitch argument";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorCooperativeLaunchTooLarge: return "too many blocks in cooperative launch";
    default: return "unknown error";
    }
}

cudaError_t cudaGetDeviceCount(int* count)
{
    *count = 1;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device)
{
    *device = 0;
    return record(cudaSuccess);
}

cudaError_t cudaSetDevice(int device) { return record(device == 0 ? cudaSuccess : cudaErrorInvalidDevice); }

// CUDA 12's headers name this call cudaGetDeviceProperties_v2 (a macro), CUDA 13's do not: both names are
// defined, so that a kernel.cu compiled against either links.
#undef cudaGetDeviceProperties
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* properties, int device);
cudaError_t cudaGetDeviceProperties_v2(cudaDeviceProp* properties, int device);

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* properties, int device)
{
    namespace d = cml_emu::device;
    if (!properties) return record(cudaErrorInvalidValue);
    if (device != 0) return record(cudaErrorInvalidDevice);
    std::memset(properties, 0, sizeof *properties);
    std::strncpy(properties->name, "cml_emu: CPU emulation of an H100", sizeof properties->name - 1);
    properties->major = 9;
    properties->minor = 0;
    properties->multiProcessorCount = d::kMultiprocessors;
    properties->warpSize = 32;
    properties->maxThreadsPerBlock = d::kMaxThreadsPerBlock;
    properties->maxThreadsPerMultiProcessor = d::kMaxThreadsPerMultiprocessor;
    properties->maxBlocksPerMultiProcessor = d::kMaxBlocksPerMultiprocessor;
    properties->maxThreadsDim[0] = properties->maxThreadsDim[1] = 1024;
    properties->maxThreadsDim[2] = 64;
    properties->maxGridSize[0] = 0x7fffffff;
    properties->maxGridSize[1] = properties->maxGridSize[2] = 65535;
    properties->sharedMemPerBlock = d::kSharedPerBlock;
    properties->sharedMemPerBlockOptin = d::kSharedPerBlockOptin;
    properties->sharedMemPerMultiprocessor = d::kSharedPerMultiprocessor;
    properties->reservedSharedMemPerBlock = d::kReservedSharedPerBlock;
    properties->regsPerBlock = properties->regsPerMultiprocessor = d::kRegistersPerMultiprocessor;
    properties->cooperativeLaunch = 1;
    properties->concurrentKernels = 1;
    properties->memPitch = 0x7fffffff;
    properties->textureAlignment = 512;
    properties->texturePitchAlignment = 32;
    properties->l2CacheSize = 4 * 1024 * 1024;  // small: the benchmark's L2 flush writes 4 times this
    properties->totalGlobalMem = std::size_t(sysconf(_SC_PHYS_PAGES)) * std::size_t(sysconf(_SC_PAGE_SIZE));
    properties->totalConstMem = 64 * 1024;
    return record(cudaSuccess);
}

cudaError_t cudaGetDeviceProperties_v2(cudaDeviceProp* properties, int device)
{
    return cudaGetDeviceProperties(properties, device);
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int device)
{
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, device) != cudaSuccess) return record(cudaErrorInvalidDevice);
    switch (attribute) {
    case cudaDevAttrMultiProcessorCount: *value = p.multiProcessorCount; break;
    case cudaDevAttrL2CacheSize: *value = p.l2CacheSize; break;
    case cudaDevAttrWarpSize: *value = p.warpSize; break;
    case cudaDevAttrMaxThreadsPerBlock: *value = p.maxThreadsPerBlock; break;
    case cudaDevAttrComputeCapabilityMajor: *value = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: *value = p.minor; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = int(p.sharedMemPerBlock); break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = int(p.sharedMemPerBlockOptin); break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = int(p.sharedMemPerMultiprocessor); break;
    case cudaDevAttrReservedSharedMemoryPerBlock: *value = int(p.reservedSharedMemPerBlock); break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrMaxRegistersPerBlock: *value = p.regsPerBlock; break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = p.regsPerMultiprocessor; break;
    case cudaDevAttrMaxBlockDimX: *value = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: *value = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: *value = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: *value = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: *value = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: *value = p.maxGridSize[2]; break;
    case cudaDevAttrTotalConstantMemory: *value = int(p.totalConstMem); break;
    case cudaDevAttrCooperativeLaunch: *value = p.cooperativeLaunch; break;
    default: return record(cudaErrorInvalidValue);
    }
    return record(cudaSuccess);
}

// A kernel's attributes: the dynamic shared memory it may ask for (launches beyond it fail, as on a GPU) and
// its preferred carveout, which changes nothing here.
cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attribute, int value)
{
    if (!func) return record(cudaErrorInvalidDeviceFunction);
    std::lock_guard<std::mutex> lock(cml_emu::g_kernels_mutex);
    cml_emu::KernelAttributes& kernel = cml_emu::g_kernels[func];
    switch (attribute) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
        if (value < 0 || std::size_t(value) + kernel.static_shared > cml_emu::device::kSharedPerBlockOptin)
            return record(cudaErrorInvalidValue);
        kernel.max_dynamic_shared = std::size_t(value);
        return record(cudaSuccess);
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        if (value < -1 || value > 100) return record(cudaErrorInvalidValue);
        kernel.carveout = value;
        return record(cudaSuccess);
    default: return record(cudaErrorInvalidValue);
    }
}

// What the emulator knows of a kernel. Registers and local memory belong to a GPU binary, which there is
// none of: 0. Its static shared memory is what its blocks used in the launches so far (0 before the first).
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, const void* func)
{
    if (!attributes) return record(cudaErrorInvalidValue);
    if (!func) return record(cudaErrorInvalidDeviceFunction);
    const cml_emu::KernelAttributes kernel = cml_emu::kernel_attributes(func);
    std::memset(attributes, 0, sizeof *attributes);
    attributes->sharedSizeBytes = kernel.static_shared;
    attributes->maxThreadsPerBlock = cml_emu::device::kMaxThreadsPerBlock;
    attributes->ptxVersion = attributes->binaryVersion = 90;
    attributes->maxDynamicSharedSizeBytes = int(kernel.max_dynamic_shared);
    attributes->preferredShmemCarveout = kernel.carveout;
    return record(cudaSuccess);
}

// No cache is emulated: the preference is checked, and changes nothing.
cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache config)
{
    if (!func) return record(cudaErrorInvalidDeviceFunction);
    if (config < cudaFuncCachePreferNone || config > cudaFuncCachePreferEqual) return record(cudaErrorInvalidValue);
    return record(cudaSuccess);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* numBlocks, const void* func, int blockSize,
                                                                   size_t dynamicSMemSize, unsigned int flags)
{
    if (!numBlocks || blockSize <= 0 || (flags & ~unsigned(cudaOccupancyDisableCachingOverride)) != 0)
        return record(cudaErrorInvalidValue);
    if (!func) return record(cudaErrorInvalidDeviceFunction);
    *numBlocks = cml_emu::active_blocks(cml_emu::kernel_attributes(func), blockSize, dynamicSMemSize);
    return record(cudaSuccess);
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* numBlocks, const void* func, int blockSize,
                                                          size_t dynamicSMemSize)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynamicSMemSize,
                                                                  cudaOccupancyDefault);
}

// The most dynamic shared memory a block may have for `numBlocks` blocks of `blockSize` threads to fit on one
// multiprocessor at once: 0 when they do not fit even without.
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* dynamicSmemSize, const void* func, int numBlocks,
                                                      int blockSize)
{
    namespace d = cml_emu::device;
    if (!dynamicSmemSize || numBlocks <= 0 || blockSize <= 0) return record(cudaErrorInvalidValue);
    if (!func) return record(cudaErrorInvalidDeviceFunction);
    const cml_emu::KernelAttributes kernel = cml_emu::kernel_attributes(func);
    *dynamicSmemSize = 0;
    if (cml_emu::active_blocks(kernel, blockSize, 0) < numBlocks) return record(cudaSuccess);
    const std::size_t unit = d::kSharedAllocationUnit;
    const std::size_t share = d::kSharedPerMultiprocessor / std::size_t(numBlocks) / unit * unit;
    const std::size_t used = (kernel.static_shared + unit - 1) / unit * unit + d::kReservedSharedPerBlock;
    if (share > used) *dynamicSmemSize = std::min(share - used, kernel.max_dynamic_shared);
    return record(cudaSuccess);
}

// A kernel given as a pointer of no type: its parameters cannot be read from `args` without their types,
// which the emulator learns only from the kernel itself (cml_emu/runtime.hpp's overloads, chosen when the
// kernel is passed as it is). Said on stderr, and refused.
static cudaError_t untyped_launch(const char* call)
{
    std::fprintf(stderr,
                 "cml_emu: %s was given the kernel as a pointer of no type (a cast to void*, say): the CPU emulator "
                 "launches it only when given the kernel itself, %s(kernel, grid, block, args, ...)\n",
                 call, call);
    return cml_emu::refuse_launch(cudaErrorNotSupported);
}

cudaError_t cudaLaunchKernel(const void*, dim3, dim3, void**, size_t, cudaStream_t)
{
    return untyped_launch("cudaLaunchKernel");
}

cudaError_t cudaLaunchCooperativeKernel(const void*, dim3, dim3, void**, size_t, cudaStream_t)
{
    return untyped_launch("cudaLaunchCooperativeKernel");
}

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value)
{
    if (limit != cudaLimitPersistingL2CacheSize) return record(cudaErrorUnsupportedLimit);
    cml_emu::g_persisting_l2_bytes = value;
    return record(cudaSuccess);
}

// The limits the emulator has: the persisting-L2 size set above, and each GPU thread's stack (CML_EMU_STACK_KB).
// Device-side malloc and a printf FIFO are not emulated, so their sizes are no limit of its.
cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit)
{
    if (!value) return record(cudaErrorInvalidValue);
    switch (limit) {
    case cudaLimitPersistingL2CacheSize: *value = cml_emu::g_persisting_l2_bytes; break;
    case cudaLimitStackSize: *value = cml_emu::options().stack_bytes; break;
    default: return record(cudaErrorUnsupportedLimit);
    }
    return record(cudaSuccess);
}

// Only the default stream exists here, and of its attributes only the access-policy window.
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attribute, const cudaStreamAttrValue* value)
{
    if (stream != nullptr || attribute != cudaStreamAttributeAccessPolicyWindow) return record(cudaErrorNotSupported);
    cml_emu::g_default_stream_window = value->accessPolicyWindow;
    return record(cudaSuccess);
}

cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attribute, cudaStreamAttrValue* value)
{
    if (stream != nullptr || attribute != cudaStreamAttributeAccessPolicyWindow) return record(cudaErrorNotSupported);
    value->accessPolicyWindow = cml_emu::g_default_stream_window;
    return record(cudaSuccess);
}

cudaError_t cudaEventCreate(cudaEvent_t* event)
{
    if (!event) return record(cudaErrorInvalidValue);
    *event = reinterpret_cast<cudaEvent_t>(new cml_emu::Event);
    cml_emu::schedule::event_created(*event);
    return record(cudaSuccess);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) { return cudaEventCreate(event); }

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    cml_emu::schedule::event_destroyed(event);
    delete reinterpret_cast<cml_emu::Event*>(event);
    return record(cudaSuccess);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    auto* e = reinterpret_cast<cml_emu::Event*>(event);
    if (!e) return record(cudaErrorInvalidResourceHandle);
    cml_emu::schedule::event_recorded(event, stream);
    e->at = std::chrono::steady_clock::now();
    e->recorded = true;
    return record(cudaSuccess);
}

// Every call has finished when it returns here: an event is always reached.
cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    cml_emu::schedule::synchronised_event(event);
    return record(cudaSuccess);
}

// Not ready once where the host does not yet know the event's work is done, as a GPU would answer while it runs
// (schedule.hpp); not ready is no error, and cudaGetLastError does not keep it.
cudaError_t cudaEventQuery(cudaEvent_t event)
{
    const cudaError_t state = record(cudaSuccess);
    if (state != cudaSuccess) return state;
    return cml_emu::schedule::event_query(event) ? cudaSuccess : cudaErrorNotReady;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end)
{
    auto* a = reinterpret_cast<cml_emu::Event*>(start);
    auto* b = reinterpret_cast<cml_emu::Event*>(end);
    if (!a || !b || !a->recorded || !b->recorded) return record(cudaErrorInvalidResourceHandle);
    *ms = std::chrono::duration<float, std::milli>(b->at - a->at).count();
    return record(cudaSuccess);
}

}  // extern "C"
