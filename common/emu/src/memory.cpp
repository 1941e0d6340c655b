#include "memory.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>

// Bounds of the sections of the __constant__ and __device__ variables (device.hpp, rewrite.py), made by the
// linker; weak, so a program without such variables links too.
extern "C" {
extern char __start_cml_emu_constant[] __attribute__((weak));
extern char __stop_cml_emu_constant[] __attribute__((weak));
extern char __start_cml_emu_device[] __attribute__((weak));
extern char __stop_cml_emu_device[] __attribute__((weak));
}

namespace cml_emu {
namespace {

struct Registry {
    std::mutex mutex;
    std::map<std::uintptr_t, Allocation> allocations;  // by start
};

Registry& registry()
{
    static Registry* r = new Registry;  // never destroyed: frees may come from static destructors
    return *r;
}

bool inside(const char* lo, const char* hi, std::uintptr_t address, std::size_t size)
{
    return lo && address >= std::uintptr_t(lo) && address + size <= std::uintptr_t(hi);
}

}  // namespace

void* allocate_global(std::size_t bytes)
{
    // 256-byte aligned like cudaMalloc, with a red zone on each side.
    const std::size_t rounded = (bytes + 255) / 256 * 256;
    auto* raw = static_cast<char*>(std::aligned_alloc(256, rounded + 2 * kRedZone));
    if (!raw) return nullptr;
    const auto start = std::uintptr_t(raw + kRedZone);
    std::lock_guard<std::mutex> lock(registry().mutex);
    registry().allocations[start] = Allocation{start, bytes};
    return raw + kRedZone;
}

bool free_global(void* pointer)
{
    {
        std::lock_guard<std::mutex> lock(registry().mutex);
        if (registry().allocations.erase(std::uintptr_t(pointer)) == 0) return false;
    }
    std::free(static_cast<char*>(pointer) - kRedZone);
    return true;
}

bool is_device_range(const void* pointer, std::size_t bytes)
{
    const auto address = std::uintptr_t(pointer);
    if (inside(__start_cml_emu_constant, __stop_cml_emu_constant, address, bytes) ||
        inside(__start_cml_emu_device, __stop_cml_emu_device, address, bytes))
        return true;
    std::lock_guard<std::mutex> lock(registry().mutex);
    auto& allocations = registry().allocations;
    auto it = allocations.upper_bound(address);
    if (it == allocations.begin()) return false;
    --it;
    return address + bytes <= it->second.start + it->second.size;
}

GlobalMemory GlobalMemory::now()
{
    GlobalMemory memory;
    {
        std::lock_guard<std::mutex> lock(registry().mutex);
        for (const auto& [start, allocation] : registry().allocations) {
            memory.allocations_.push_back(allocation);
            memory.regions_.push_back(Region{start, start + allocation.size, Space::global});
        }
    }
    if (__start_cml_emu_constant)
        memory.regions_.push_back(Region{std::uintptr_t(__start_cml_emu_constant),
                                         std::uintptr_t(__stop_cml_emu_constant), Space::constant});
    if (__start_cml_emu_device)
        memory.regions_.push_back(Region{std::uintptr_t(__start_cml_emu_device), std::uintptr_t(__stop_cml_emu_device),
                                         Space::global});
    std::sort(memory.regions_.begin(), memory.regions_.end(),
              [](const Region& a, const Region& b) { return a.start < b.start; });
    return memory;
}

const Region* GlobalMemory::find(std::uintptr_t address, std::size_t size) const
{
    // The last region starting at or before the access: none of them overlap.
    auto after = std::upper_bound(regions_.begin(), regions_.end(), address,
                                  [](std::uintptr_t a, const Region& r) { return a < r.start; });
    if (after == regions_.begin()) return nullptr;
    const Region& region = *(after - 1);
    return region.holds(address, size) ? &region : nullptr;
}

const Allocation* GlobalMemory::nearest(std::uintptr_t address) const
{
    auto after = std::upper_bound(allocations_.begin(), allocations_.end(), address,
                                  [](std::uintptr_t a, const Allocation& b) { return a < b.start; });
    const Allocation* best = nullptr;
    std::uintptr_t distance = UINTPTR_MAX;
    if (after != allocations_.begin()) {
        best = &*(after - 1);
        const std::uintptr_t end = best->start + best->size;
        distance = address >= end ? address - end : 0;
    }
    if (after != allocations_.end() && after->start - address < distance) best = &*after;
    return best;
}

}  // namespace cml_emu
