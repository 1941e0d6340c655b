// Global memory: cudaMalloc'd allocations, the sections that hold the __device__ and __constant__ variables, and
// host memory mapped for the GPU (zero-copy); which of them an address a kernel touches lies in.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cml_emu {

// Bytes kept free before and after each allocation (and after a block's shared memory), so that an access a
// little past one never lands in the next.
constexpr std::size_t kRedZone = 4096;

enum class Space : std::uint8_t { other, global, shared, constant };

struct Allocation {
    std::uintptr_t start = 0;
    std::size_t size = 0;
};

// A stretch of memory a kernel may touch, and what it is.
struct Region {
    std::uintptr_t start = 0;
    std::uintptr_t end = 0;  // one past the last byte; start == end: none
    Space space = Space::other;
    bool holds(std::uintptr_t address, std::size_t size) const { return address >= start && address + size <= end; }
};

void* allocate_global(std::size_t bytes);
bool free_global(void* pointer);  // false: not an allocation of allocate_global
// Forgets a cudaMallocManaged allocation (managed.cpp), which cudaFree then frees as any other; false: not one.
bool free_managed(void* pointer);
// True when [pointer, pointer + bytes) lies inside one cudaMallocManaged allocation.
bool is_managed_range(const void* pointer, std::size_t bytes);
// Host memory mapped for the GPU, which kernels reach at its host address, as a GPU with unified addressing
// does: cudaHostAlloc with cudaHostAllocMapped (allocated here, with red zones, and freed by free_mapped_host)
// or cudaHostRegister with cudaHostRegisterMapped of the caller's own memory (map_host, unmap_host). No other
// host memory is reachable: a kernel given a pointer to it makes an access outside every allocation.
void* allocate_mapped_host(std::size_t bytes);
bool free_mapped_host(void* pointer);  // false: not an allocation of allocate_mapped_host
void map_host(void* pointer, std::size_t bytes);
void unmap_host(void* pointer);
// True when [pointer, pointer + bytes) lies inside one mapped range of host memory.
bool is_mapped_host(const void* pointer, std::size_t bytes);
// True when [pointer, pointer + bytes) lies inside one allocation, a __device__ or a __constant__ variable.
bool is_device_range(const void* pointer, std::size_t bytes);
// The cudaMalloc'd or managed allocation that holds `address`, if one does.
bool device_allocation(std::uintptr_t address, Allocation* holding);
// The __device__ or __constant__ variable that starts at `symbol`, as the program's symbol table gives its
// size; null when none does (what cudaMemcpyToSymbol and cudaGetSymbolSize are given must be one).
const Allocation* device_variable(const void* symbol);

// The global memory of a launch, as it is when the launch starts (no allocation is made or freed while a
// kernel runs): each allocation, the __device__ variables and the __constant__ ones.
class GlobalMemory {
public:
    static GlobalMemory now();
    // The region that holds all of [address, address + size), or null: an access outside every allocation.
    const Region* find(std::uintptr_t address, std::size_t size) const;
    // The allocation nearest to `address`, for a report; null when there is none.
    const Allocation* nearest(std::uintptr_t address) const;

private:
    std::vector<Region> regions_;          // sorted by start
    std::vector<Allocation> allocations_;  // sorted by start
};

}  // namespace cml_emu
