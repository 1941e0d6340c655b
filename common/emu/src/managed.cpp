// The runtime API of managed memory. Device memory is the host's own here (memory.hpp), so a managed buffer is an
// allocation the host and the kernels both reach, and a prefetch moves nothing; the schedule check
// (schedule.hpp) keeps where each prefetch would have put the pages on a GPU, and which kernels would have
// faulted on them.
#include <cuda_runtime_api.h>

#include <cstdint>
#include <map>
#include <mutex>

#include "memory.hpp"
#include "runtime_state.hpp"
#include "schedule.hpp"

namespace {

struct Managed {
    std::mutex mutex;
    std::map<std::uintptr_t, std::size_t> allocations;  // start -> bytes
};

Managed& managed()
{
    static Managed* m = new Managed;  // never destroyed: frees may come from static destructors
    return *m;
}

// The one device, or the host: the locations a prefetch may name.
bool valid_location(const cudaMemLocation& location)
{
    return (location.type == cudaMemLocationTypeDevice && location.id == 0) ||
           location.type == cudaMemLocationTypeHost;
}

}  // namespace

using cml_emu::api_result;

namespace cml_emu {

// True when [pointer, pointer + bytes) lies inside one managed allocation: what a prefetch or an advice is given.
bool is_managed_range(const void* pointer, std::size_t bytes)
{
    const auto address = std::uintptr_t(pointer);
    std::lock_guard<std::mutex> lock(managed().mutex);
    auto it = managed().allocations.upper_bound(address);
    if (it == managed().allocations.begin()) return false;
    --it;
    return address + bytes <= it->first + it->second;
}

bool free_managed(void* pointer)
{
    {
        std::lock_guard<std::mutex> lock(managed().mutex);
        if (managed().allocations.erase(std::uintptr_t(pointer)) == 0) return false;
    }
    schedule::managed_freed(pointer);
    return true;
}

}  // namespace cml_emu

extern "C" {

cudaError_t cudaMallocManaged(void** pointer, size_t size, unsigned int flags)
{
    if (!pointer || size == 0 || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
        return api_result(cudaErrorInvalidValue);
    *pointer = cml_emu::allocate_global(size);
    if (!*pointer) return api_result(cudaErrorMemoryAllocation);
    {
        std::lock_guard<std::mutex> lock(managed().mutex);
        managed().allocations[std::uintptr_t(*pointer)] = size;
    }
    cml_emu::schedule::managed_allocated(*pointer, size);
    return api_result(cudaSuccess);
}

cudaError_t cudaMemPrefetchAsync(const void* pointer, size_t count, cudaMemLocation location, unsigned int flags,
                                 cudaStream_t stream)
{
    if (!pointer || count == 0 || flags != 0 || !valid_location(location) || !cml_emu::is_managed_range(pointer, count))
        return api_result(cudaErrorInvalidValue);
    cml_emu::schedule::prefetched(pointer, count, location.type == cudaMemLocationTypeDevice, stream);
    return api_result(cudaSuccess);
}

// Advice changes where a GPU's driver keeps pages and who maps them, never what a program computes: checked, and
// kept by no one.
cudaError_t cudaMemAdvise(const void* pointer, size_t count, cudaMemoryAdvise advice, cudaMemLocation location)
{
    if (!pointer || count == 0 || advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy ||
        !cml_emu::is_managed_range(pointer, count))
        return api_result(cudaErrorInvalidValue);
    const bool needs_location = advice != cudaMemAdviseSetReadMostly && advice != cudaMemAdviseUnsetReadMostly;
    if (needs_location && !valid_location(location)) return api_result(cudaErrorInvalidValue);
    return api_result(cudaSuccess);
}

}  // extern "C"
