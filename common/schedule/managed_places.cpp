#include "managed_places.hpp"

#include <cstring>

namespace cml::schedule {

ManagedPlaces::Pages* ManagedPlaces::find(std::uintptr_t address, std::uintptr_t* start)
{
    auto it = pages_.upper_bound(address);
    if (it == pages_.begin()) return nullptr;
    --it;
    if (address >= it->first + it->second.bytes) return nullptr;
    if (start) *start = it->first;
    return &it->second;
}

bool ManagedPlaces::kernel(const std::vector<std::uintptr_t>& words, const Step& step, const Order& order)
{
    bool faulted = false;
    for (std::uintptr_t word : words) {
        Pages* pages = find(word);
        if (!pages) continue;
        const bool there = pages->on_device && (pages->by_kernel || order.before(*pages->placed, step));
        if (!there) {  // faulted in, page by page: the GPU's now
            faulted = true;
            pages->placed = step;
            pages->on_device = true;
            pages->by_kernel = true;
        }
        pages->last_kernel = step;
    }
    return faulted;
}

void ManagedPlaces::prefetched(std::uintptr_t start, std::size_t bytes, bool to_device, const Step& step)
{
    std::uintptr_t first = 0;
    Pages* pages = find(start, &first);
    if (!pages || (to_device && !(first == start && bytes >= pages->bytes))) return;  // part of it: the rest faults
    pages->placed = step;
    pages->on_device = to_device;
    pages->by_kernel = false;
}

bool ManagedPlaces::unprefetched(std::uintptr_t start, const Pages& pages, const void* out, std::size_t out_bytes,
                                 const Order& order)
{
    // Never given to a kernel (prefetched to the host, say, at size 0): the host's own bytes, with no last kernel
    // to be ordered after.
    const bool results = pages.last_kernel && out && out_bytes > 0 && out_bytes <= pages.bytes &&
                         std::memcmp(reinterpret_cast<const void*>(start), out, out_bytes) == 0;
    if (!results) return false;
    const bool brought_back = pages.placed && !pages.on_device && order.before(*pages.last_kernel, *pages.placed);
    return !brought_back;
}

bool ManagedPlaces::freed_unprefetched(std::uintptr_t start, const void* out, std::size_t out_bytes,
                                       const Order& order)
{
    auto it = pages_.find(start);
    if (it == pages_.end()) return false;
    const bool found = unprefetched(start, it->second, out, out_bytes, order);
    pages_.erase(it);
    return found;
}

bool ManagedPlaces::alive_unprefetched(const void* out, std::size_t out_bytes, const Order& order) const
{
    for (const auto& [start, pages] : pages_)
        if (unprefetched(start, pages, out, out_bytes, order)) return true;
    return false;
}

}  // namespace cml::schedule
