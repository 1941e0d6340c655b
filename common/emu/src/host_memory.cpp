// The runtime API of page-locked (pinned) host memory. Pinned memory is ordinary host memory here (the benchmark
// reads results back through it), which the schedule check (schedule.hpp) knows as pinned; memory pinned with
// the mapped flag is also reachable by kernels at its host address (memory.hpp), as on a GPU with unified
// addressing, where cudaHostGetDevicePointer gives that same address.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>

#include "memory.hpp"
#include "runtime_state.hpp"
#include "schedule.hpp"

namespace {

struct PinnedRange {
    std::size_t bytes = 0;
    bool allocated = false;  // by cudaMallocHost or cudaHostAlloc, freed by cudaFreeHost; else registered
    bool mapped = false;     // reachable by kernels
};

struct Pinned {
    std::mutex mutex;
    std::map<std::uintptr_t, PinnedRange> ranges;  // by start
};

Pinned& pinned()
{
    static Pinned* p = new Pinned;  // never destroyed: frees may come from static destructors
    return *p;
}

// The pinned range that holds `address`, or null; with the lock held.
const PinnedRange* range_at(std::uintptr_t address, std::uintptr_t* start = nullptr)
{
    auto it = pinned().ranges.upper_bound(address);
    if (it == pinned().ranges.begin()) return nullptr;
    --it;
    if (address >= it->first + std::max<std::size_t>(it->second.bytes, 1)) return nullptr;
    if (start) *start = it->first;
    return &it->second;
}

void keep(void* pointer, std::size_t bytes, bool allocated, bool mapped)
{
    {
        std::lock_guard<std::mutex> lock(pinned().mutex);
        pinned().ranges[std::uintptr_t(pointer)] = PinnedRange{bytes, allocated, mapped};
    }
    cml_emu::schedule::pinned(pointer, bytes, mapped);
}

cudaError_t allocate(void** pointer, std::size_t size, bool mapped)
{
    if (!pointer) return cml_emu::api_result(cudaErrorInvalidValue);
    *pointer = mapped ? cml_emu::allocate_mapped_host(size) : std::malloc(size == 0 ? 1 : size);
    if (!*pointer) return cml_emu::api_result(cudaErrorMemoryAllocation);
    keep(*pointer, size, true, mapped);
    return cml_emu::api_result(cudaSuccess);
}

}  // namespace

using cml_emu::api_result;

extern "C" {

cudaError_t cudaMallocHost(void** pointer, size_t size) { return allocate(pointer, size, false); }

cudaError_t cudaHostAlloc(void** pointer, size_t size, unsigned int flags)
{
    const unsigned known = cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined;
    if ((flags & ~known) != 0) return api_result(cudaErrorInvalidValue);
    return allocate(pointer, size, (flags & cudaHostAllocMapped) != 0);
}

cudaError_t cudaFreeHost(void* pointer)
{
    if (!pointer) return api_result(cudaSuccess);
    PinnedRange range;
    {
        std::lock_guard<std::mutex> lock(pinned().mutex);
        auto it = pinned().ranges.find(std::uintptr_t(pointer));
        if (it == pinned().ranges.end() || !it->second.allocated) return api_result(cudaErrorInvalidValue);
        range = it->second;
        pinned().ranges.erase(it);
    }
    cml_emu::schedule::unpinned(pointer);
    if (range.mapped) cml_emu::free_mapped_host(pointer);
    else std::free(pointer);
    return api_result(cudaSuccess);
}

cudaError_t cudaHostRegister(void* pointer, size_t size, unsigned int flags)
{
    const unsigned known = cudaHostRegisterPortable | cudaHostRegisterMapped | cudaHostRegisterReadOnly;
    if (!pointer || size == 0 || (flags & ~known) != 0) return api_result(cudaErrorInvalidValue);
    {
        std::lock_guard<std::mutex> lock(pinned().mutex);
        const auto start = std::uintptr_t(pointer);
        auto after = pinned().ranges.lower_bound(start);
        if (range_at(start) || range_at(start + size - 1) || (after != pinned().ranges.end() && after->first < start + size))
            return api_result(cudaErrorHostMemoryAlreadyRegistered);
    }
    const bool mapped = (flags & cudaHostRegisterMapped) != 0;
    if (mapped) cml_emu::map_host(pointer, size);
    keep(pointer, size, false, mapped);
    return api_result(cudaSuccess);
}

cudaError_t cudaHostUnregister(void* pointer)
{
    if (!pointer) return api_result(cudaErrorInvalidValue);
    {
        std::lock_guard<std::mutex> lock(pinned().mutex);
        auto it = pinned().ranges.find(std::uintptr_t(pointer));
        if (it == pinned().ranges.end() || it->second.allocated) return api_result(cudaErrorHostMemoryNotRegistered);
        pinned().ranges.erase(it);
    }
    cml_emu::unmap_host(pointer);
    cml_emu::schedule::unpinned(pointer);
    return api_result(cudaSuccess);
}

// The device's address of mapped host memory: its host address, as with unified addressing. Memory that is not
// pinned, or pinned without the mapped flag, has none (a GPU with unified addressing maps all pinned memory,
// but the mapped flag is what CUDA promises a device pointer for, and what the emulator asks for).
cudaError_t cudaHostGetDevicePointer(void** device, void* host, unsigned int flags)
{
    if (!device || !host || flags != 0) return api_result(cudaErrorInvalidValue);
    {
        std::lock_guard<std::mutex> lock(pinned().mutex);
        const PinnedRange* range = range_at(std::uintptr_t(host));
        *device = range && range->mapped ? host : nullptr;
    }
    if (!*device) return api_result(cudaErrorInvalidValue);
    cml_emu::schedule::mapped_for_gpu();
    return api_result(cudaSuccess);
}

// What a pointer is: pinned host memory (and its device address where mapped), device or managed memory, or none
// of these (pageable host memory, cudaMemoryTypeUnregistered).
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* attributes, const void* pointer)
{
    if (!attributes) return api_result(cudaErrorInvalidValue);
    *attributes = cudaPointerAttributes{};
    attributes->type = cudaMemoryTypeUnregistered;
    attributes->device = cudaInvalidDeviceId;
    const auto address = std::uintptr_t(pointer);
    if (cml_emu::is_managed_range(pointer, 1)) {
        attributes->type = cudaMemoryTypeManaged;
    } else if (cml_emu::is_device_range(pointer, 1)) {
        attributes->type = cudaMemoryTypeDevice;
    } else {
        std::lock_guard<std::mutex> lock(pinned().mutex);
        const PinnedRange* range = range_at(address);
        if (!range) return api_result(cudaSuccess);
        attributes->type = cudaMemoryTypeHost;
        attributes->hostPointer = const_cast<void*>(pointer);
        if (range->mapped) attributes->devicePointer = const_cast<void*>(pointer);
        attributes->device = 0;
        return api_result(cudaSuccess);
    }
    attributes->device = 0;
    attributes->devicePointer = const_cast<void*>(pointer);
    if (attributes->type == cudaMemoryTypeManaged) attributes->hostPointer = const_cast<void*>(pointer);
    return api_result(cudaSuccess);
}

}  // extern "C"
