// The few CUDA runtime calls a lab's test code makes, on host memory: what a checker links instead of the
// CUDA runtime. A checker launches no kernel (its launchers are stubs) and reads every result back from the
// record (cml/record.hpp), so it needs no GPU; "device" memory here is ordinary memory that holds the inputs
// the tests upload and the poison they write, nothing more.
#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>

namespace {

cudaError_t last_error = cudaSuccess;

cudaError_t fail(cudaError_t error)
{
    last_error = error;
    return error;
}

}  // namespace

extern "C" {

cudaError_t cudaMalloc(void** pointer, size_t bytes)
{
    *pointer = std::calloc(bytes == 0 ? 1 : bytes, 1);
    return *pointer == nullptr ? fail(cudaErrorMemoryAllocation) : cudaSuccess;
}

cudaError_t cudaFree(void* pointer)
{
    std::free(pointer);
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void* target, const void* source, size_t bytes, cudaMemcpyKind)
{
    std::memmove(target, source, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemcpyAsync(void* target, const void* source, size_t bytes, cudaMemcpyKind, cudaStream_t)
{
    std::memmove(target, source, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemset(void* target, int value, size_t bytes)
{
    std::memset(target, value, bytes);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void* target, int value, size_t bytes, cudaStream_t)
{
    std::memset(target, value, bytes);
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }

cudaError_t cudaGetLastError()
{
    const cudaError_t error = last_error;
    last_error = cudaSuccess;
    return error;
}

cudaError_t cudaPeekAtLastError() { return last_error; }

const char* cudaGetErrorName(cudaError_t error) { return error == cudaSuccess ? "cudaSuccess" : "cudaError"; }
const char* cudaGetErrorString(cudaError_t error) { return error == cudaSuccess ? "no error" : "error (checker)"; }

cudaError_t cudaGetDeviceCount(int* count)
{
    *count = 1;  // the checker's stand-in device: test cases that need a GPU run, on the record
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device)
{
    *device = 0;
    return cudaSuccess;
}

// Nothing here is pinned: what a pointer was in the test program reaches the checker through the record.
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void*)
{
    *attributes = cudaPointerAttributes{};
    attributes->type = cudaMemoryTypeUnregistered;
    return cudaSuccess;
}

// Device facts and timing are a benchmark's: a checker never asks.
cudaError_t cudaGetDeviceProperties(cudaDeviceProp*, int) { return fail(cudaErrorNotSupported); }
cudaError_t cudaDeviceGetAttribute(int*, cudaDeviceAttr, int) { return fail(cudaErrorNotSupported); }
cudaError_t cudaEventCreate(cudaEvent_t*) { return fail(cudaErrorNotSupported); }
cudaError_t cudaEventDestroy(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t, cudaStream_t) { return fail(cudaErrorNotSupported); }
cudaError_t cudaEventSynchronize(cudaEvent_t) { return fail(cudaErrorNotSupported); }
cudaError_t cudaEventElapsedTime(float*, cudaEvent_t, cudaEvent_t) { return fail(cudaErrorNotSupported); }

}  // extern "C"
