// The C++ overloads of the runtime API that CUDA's cuda_runtime.h declares for nvcc alone (within
// __CUDACC__): the symbol calls given the variable itself (a scalar __constant__ int has no address to
// decay to), and the kernel attribute calls given the kernel. And cudaLaunchKernel and
// cudaLaunchCooperativeKernel given the kernel itself, whose parameter types the emulator needs to call it;
// CUDA's own overload for T* (a kernel cast to void*, say) reaches the C function, which cannot call a kernel
// whose type it does not know and says so (src/runtime_api.cpp).
#pragma once

#include <cuda_runtime_api.h>

#include "cml_emu/launch.hpp"

template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T& symbol, const void* src, size_t count, size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    return ::cudaMemcpyToSymbol(static_cast<const void*>(&symbol), src, count, offset, kind);
}

template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(const T& symbol, const void* src, size_t count, size_t offset = 0,
                                           cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t stream = 0)
{
    return ::cudaMemcpyToSymbolAsync(static_cast<const void*>(&symbol), src, count, offset, kind, stream);
}

template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    return ::cudaMemcpyFromSymbol(dst, static_cast<const void*>(&symbol), count, offset, kind);
}

template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const T& symbol, size_t count, size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t stream = 0)
{
    return ::cudaMemcpyFromSymbolAsync(dst, static_cast<const void*>(&symbol), count, offset, kind, stream);
}

template <class T>
inline cudaError_t cudaGetSymbolAddress(void** devPtr, const T& symbol)
{
    return ::cudaGetSymbolAddress(devPtr, static_cast<const void*>(&symbol));
}

template <class T>
inline cudaError_t cudaGetSymbolSize(size_t* size, const T& symbol)
{
    return ::cudaGetSymbolSize(size, static_cast<const void*>(&symbol));
}

template <class T>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, T* entry)
{
    return ::cudaFuncGetAttributes(attr, (const void*)entry);
}

template <class T>
inline cudaError_t cudaFuncSetAttribute(T* entry, cudaFuncAttribute attr, int value)
{
    return ::cudaFuncSetAttribute((const void*)entry, attr, value);
}

template <class T>
inline cudaError_t cudaFuncSetCacheConfig(T* func, cudaFuncCache cacheConfig)
{
    return ::cudaFuncSetCacheConfig((const void*)func, cacheConfig);
}

// More specialised than CUDA's template for T*, so chosen whenever the argument is the kernel itself.
template <class... Params>
inline cudaError_t cudaLaunchKernel(void (*kernel)(Params...), dim3 gridDim, dim3 blockDim, void** args,
                                    size_t sharedMem = 0, cudaStream_t stream = 0)
{
    return ::cml_emu::launch_from_pointers(::cml_emu::config(gridDim, blockDim, sharedMem, stream), kernel, args,
                                           false);
}

template <class... Params>
inline cudaError_t cudaLaunchCooperativeKernel(void (*kernel)(Params...), dim3 gridDim, dim3 blockDim, void** args,
                                               size_t sharedMem = 0, cudaStream_t stream = 0)
{
    return ::cml_emu::launch_from_pointers(::cml_emu::config(gridDim, blockDim, sharedMem, stream), kernel, args, true);
}
