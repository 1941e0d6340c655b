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

std::vector<Allocation> allocations_snapshot()
{
    std::lock_guard<std::mutex> lock(registry().mutex);
    std::vector<Allocation> out;
    out.reserve(registry().allocations.size());
    for (const auto& [start, allocation] : registry().allocations) out.push_back(allocation);
    return out;
}

GlobalAccess classify_global(const std::vector<Allocation>& allocations, std::uintptr_t address, std::size_t size)
{
    if (inside(__start_cml_emu_constant, __stop_cml_emu_constant, address, size)) return {Space::constant};
    if (inside(__start_cml_emu_device, __stop_cml_emu_device, address, size)) return {Space::global};
    // The last allocation starting at or before the access, and the first after it.
    auto after = std::upper_bound(allocations.begin(), allocations.end(), address,
                                  [](std::uintptr_t a, const Allocation& b) { return a < b.start; });
    if (after != allocations.begin()) {
        const Allocation& before = *(after - 1);
        if (address + size <= before.start + before.size) return {Space::global};
        if (address < before.start + before.size + kRedZone) return {Space::global, true, &before};
    }
    if (after != allocations.end() && address + size > after->start - kRedZone) return {Space::global, true, &*after};
    return {};
}

}  // namespace cml_emu
