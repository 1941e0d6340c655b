// Global memory: cudaMalloc'd allocations with red zones around them, and the sections that hold the
// __device__ and __constant__ variables; what an address a kernel touches is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cml_emu {

// Bytes of red zone before and after each allocation: an access there is reported as out of bounds.
constexpr std::size_t kRedZone = 4096;

enum class Space : std::uint8_t { other, global, shared, constant };

struct Allocation {
    std::uintptr_t start = 0;
    std::size_t size = 0;
};

void* allocate_global(std::size_t bytes);
bool free_global(void* pointer);  // false: not an allocation of allocate_global
// True when [pointer, pointer + bytes) lies inside one allocation, a __device__ or a __constant__ variable.
bool is_device_range(const void* pointer, std::size_t bytes);

// The allocations as they are at a launch (none is made or freed while a kernel runs), sorted by start.
std::vector<Allocation> allocations_snapshot();

struct GlobalAccess {
    Space space = Space::other;      // global, constant, or other (a stack, the host's memory)
    bool out_of_bounds = false;      // inside a red zone
    const Allocation* nearest = nullptr;  // the allocation whose red zone it is
};

GlobalAccess classify_global(const std::vector<Allocation>& allocations, std::uintptr_t address, std::size_t size);

}  // namespace cml_emu
