// The CUDA runtime API, as far as the labs and their harness use it, for memory that is the host's own:
// device pointers are host pointers with red zones around them (memory.hpp), copies are memcpy, every call
// is synchronous, and the one device is an H100 as its properties describe it.
#include <cuda_runtime_api.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "memory.hpp"
#include "runtime_state.hpp"

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

cudaError_t copy(void* dst, const void* src, size_t count, cudaMemcpyKind kind)
{
    if (count == 0) return record(cudaSuccess);
    if (!dst || !src) return record(cudaErrorInvalidValue);
    if ((device_side(kind, true) && !is_device_range(dst, count)) ||
        (device_side(kind, false) && !is_device_range(src, count)))
        return record(cudaErrorInvalidValue);
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

}  // namespace

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
    return record(*pointer ? cudaSuccess : cudaErrorMemoryAllocation);
}

cudaError_t cudaFree(void* pointer)
{
    if (!pointer) return record(cudaSuccess);
    return record(cml_emu::free_global(pointer) ? cudaSuccess : cudaErrorInvalidValue);
}

// Pinned host memory is ordinary host memory here (the benchmark reads results back through it).
cudaError_t cudaMallocHost(void** pointer, size_t size)
{
    if (!pointer) return record(cudaErrorInvalidValue);
    *pointer = std::malloc(size == 0 ? 1 : size);
    return record(*pointer ? cudaSuccess : cudaErrorMemoryAllocation);
}

cudaError_t cudaFreeHost(void* pointer)
{
    std::free(pointer);
    return record(cudaSuccess);
}

cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind)
{
    return cml_emu::copy(dst, src, count, kind);
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t)
{
    return cml_emu::copy(dst, src, count, kind);
}

cudaError_t cudaMemset(void* pointer, int value, size_t count) { return cml_emu::fill(pointer, value, count); }

cudaError_t cudaMemsetAsync(void* pointer, int value, size_t count, cudaStream_t)
{
    return cml_emu::fill(pointer, value, count);
}

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset, cudaMemcpyKind kind)
{
    if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return record(cudaErrorInvalidMemcpyDirection);
    if (!cml_emu::is_device_range(static_cast<const char*>(symbol) + offset, count))
        return record(cudaErrorInvalidSymbol);
    std::memmove(const_cast<char*>(static_cast<const char*>(symbol)) + offset, src, count);
    return record(cudaSuccess);
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset, cudaMemcpyKind kind)
{
    if (kind != cudaMemcpyDeviceToHost && kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault)
        return record(cudaErrorInvalidMemcpyDirection);
    if (!cml_emu::is_device_range(static_cast<const char*>(symbol) + offset, count))
        return record(cudaErrorInvalidSymbol);
    std::memmove(dst, static_cast<const char*>(symbol) + offset, count);
    return record(cudaSuccess);
}

cudaError_t cudaDeviceSynchronize(void) { return record(cudaSuccess); }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return record(cudaSuccess); }
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

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* properties, int device)
{
    if (device != 0) return record(cudaErrorInvalidDevice);
    std::memset(properties, 0, sizeof *properties);
    std::strncpy(properties->name, "cml_emu: CPU emulation of an H100", sizeof properties->name - 1);
    properties->major = 9;
    properties->minor = 0;
    properties->multiProcessorCount = 132;
    properties->warpSize = 32;
    properties->maxThreadsPerBlock = 1024;
    properties->maxThreadsDim[0] = properties->maxThreadsDim[1] = 1024;
    properties->maxThreadsDim[2] = 64;
    properties->maxGridSize[0] = 0x7fffffff;
    properties->maxGridSize[1] = properties->maxGridSize[2] = 65535;
    properties->sharedMemPerBlock = 48 * 1024;
    properties->sharedMemPerBlockOptin = 227 * 1024;
    properties->l2CacheSize = 4 * 1024 * 1024;  // small: the benchmark's L2 flush writes 4 times this
    properties->totalGlobalMem = std::size_t(sysconf(_SC_PHYS_PAGES)) * std::size_t(sysconf(_SC_PAGE_SIZE));
    properties->totalConstMem = 64 * 1024;
    return record(cudaSuccess);
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
    default: return record(cudaErrorInvalidValue);
    }
    return record(cudaSuccess);
}

cudaError_t cudaFuncSetAttribute(const void*, cudaFuncAttribute, int) { return record(cudaSuccess); }

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value)
{
    if (limit != cudaLimitPersistingL2CacheSize) return record(cudaErrorUnsupportedLimit);
    cml_emu::g_persisting_l2_bytes = value;
    return record(cudaSuccess);
}

cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit)
{
    if (limit != cudaLimitPersistingL2CacheSize) return record(cudaErrorUnsupportedLimit);
    *value = cml_emu::g_persisting_l2_bytes;
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
    *event = reinterpret_cast<cudaEvent_t>(new cml_emu::Event);
    return record(cudaSuccess);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int) { return cudaEventCreate(event); }

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    delete reinterpret_cast<cml_emu::Event*>(event);
    return record(cudaSuccess);
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t)
{
    auto* e = reinterpret_cast<cml_emu::Event*>(event);
    if (!e) return record(cudaErrorInvalidResourceHandle);
    e->at = std::chrono::steady_clock::now();
    e->recorded = true;
    return record(cudaSuccess);
}

cudaError_t cudaEventSynchronize(cudaEvent_t) { return record(cudaSuccess); }
cudaError_t cudaEventQuery(cudaEvent_t) { return record(cudaSuccess); }

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end)
{
    auto* a = reinterpret_cast<cml_emu::Event*>(start);
    auto* b = reinterpret_cast<cml_emu::Event*>(end);
    if (!a || !b || !a->recorded || !b->recorded) return record(cudaErrorInvalidResourceHandle);
    *ms = std::chrono::duration<float, std::milli>(b->at - a->at).count();
    return record(cudaSuccess);
}

}  // extern "C"
