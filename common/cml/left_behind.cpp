// The test program's side of cml/left_behind.hpp: --wrap=NAME turns each reference to NAME in the program's other
// objects into __wrap_NAME, and __real_NAME into the runtime's own. A call that makes another through the same
// symbol (a runtime's cudaMallocPitch calling its cudaMalloc) is counted once.
#include "cml/left_behind.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>
#include <set>

extern "C" {
cudaError_t __real_cudaMalloc(void**, size_t);
cudaError_t __real_cudaMallocAsync(void**, size_t, cudaStream_t);
cudaError_t __real_cudaMallocPitch(void**, size_t*, size_t, size_t);
cudaError_t __real_cudaFree(void*);
cudaError_t __real_cudaFreeAsync(void*, cudaStream_t);
cudaError_t __real_cudaMallocArray(cudaArray_t*, const cudaChannelFormatDesc*, size_t, size_t, unsigned int);
cudaError_t __real_cudaFreeArray(cudaArray_t);
cudaError_t __real_cudaCreateTextureObject(cudaTextureObject_t*, const cudaResourceDesc*, const cudaTextureDesc*,
                                           const cudaResourceViewDesc*);
cudaError_t __real_cudaDestroyTextureObject(cudaTextureObject_t);
}

namespace {

struct Alive {
    std::mutex lock;
    std::set<std::uintptr_t> device_buffers, arrays, textures;
};

Alive& alive()
{
    static Alive* a = new Alive;  // never destroyed: a static's destructor may free memory after it
    return *a;
}

thread_local int depth = 0;

// Runs `call` (a runtime call that makes or releases `handle`'s kind), counting it where it succeeded and is no
// part of another wrapped call.
template <class Call>
cudaError_t counted(std::set<std::uintptr_t> Alive::*kind, bool made, const std::uintptr_t* handle, Call call)
{
    ++depth;
    const cudaError_t error = call();
    --depth;
    if (error == cudaSuccess && depth == 0 && handle && *handle != 0) {
        Alive& a = alive();
        const std::lock_guard<std::mutex> held(a.lock);
        if (made)
            (a.*kind).insert(*handle);
        else
            (a.*kind).erase(*handle);
    }
    return error;
}

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

}  // namespace

namespace cml {

Held held()
{
    Alive& a = alive();
    const std::lock_guard<std::mutex> locked(a.lock);
    return {static_cast<long long>(a.device_buffers.size()), static_cast<long long>(a.arrays.size()),
            static_cast<long long>(a.textures.size())};
}

}  // namespace cml

extern "C" {

cudaError_t __wrap_cudaMalloc(void** pointer, size_t bytes)
{
    std::uintptr_t made = 0;
    return counted(&Alive::device_buffers, true, &made, [&] {
        const cudaError_t error = __real_cudaMalloc(pointer, bytes);
        made = pointer ? address(*pointer) : 0;
        return error;
    });
}

cudaError_t __wrap_cudaMallocAsync(void** pointer, size_t bytes, cudaStream_t stream)
{
    std::uintptr_t made = 0;
    return counted(&Alive::device_buffers, true, &made, [&] {
        const cudaError_t error = __real_cudaMallocAsync(pointer, bytes, stream);
        made = pointer ? address(*pointer) : 0;
        return error;
    });
}

cudaError_t __wrap_cudaMallocPitch(void** pointer, size_t* pitch, size_t width, size_t height)
{
    std::uintptr_t made = 0;
    return counted(&Alive::device_buffers, true, &made, [&] {
        const cudaError_t error = __real_cudaMallocPitch(pointer, pitch, width, height);
        made = pointer ? address(*pointer) : 0;
        return error;
    });
}

cudaError_t __wrap_cudaFree(void* pointer)
{
    const std::uintptr_t freed = address(pointer);
    return counted(&Alive::device_buffers, false, &freed, [&] { return __real_cudaFree(pointer); });
}

cudaError_t __wrap_cudaFreeAsync(void* pointer, cudaStream_t stream)
{
    const std::uintptr_t freed = address(pointer);
    return counted(&Alive::device_buffers, false, &freed, [&] { return __real_cudaFreeAsync(pointer, stream); });
}

cudaError_t __wrap_cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* format, size_t width,
                                   size_t height, unsigned int flags)
{
    std::uintptr_t made = 0;
    return counted(&Alive::arrays, true, &made, [&] {
        const cudaError_t error = __real_cudaMallocArray(array, format, width, height, flags);
        made = array ? address(*array) : 0;
        return error;
    });
}

cudaError_t __wrap_cudaFreeArray(cudaArray_t array)
{
    const std::uintptr_t freed = address(array);
    return counted(&Alive::arrays, false, &freed, [&] { return __real_cudaFreeArray(array); });
}

cudaError_t __wrap_cudaCreateTextureObject(cudaTextureObject_t* texture, const cudaResourceDesc* resource,
                                           const cudaTextureDesc* sampling, const cudaResourceViewDesc* view)
{
    std::uintptr_t made = 0;
    return counted(&Alive::textures, true, &made, [&] {
        const cudaError_t error = __real_cudaCreateTextureObject(texture, resource, sampling, view);
        made = texture ? std::uintptr_t(*texture) : 0;
        return error;
    });
}

cudaError_t __wrap_cudaDestroyTextureObject(cudaTextureObject_t texture)
{
    const std::uintptr_t destroyed = std::uintptr_t(texture);
    return counted(&Alive::textures, false, &destroyed, [&] { return __real_cudaDestroyTextureObject(texture); });
}

}  // extern "C"
