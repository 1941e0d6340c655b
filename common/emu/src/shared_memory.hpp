// A block's shared memory: static __shared__ variables from the start, the dynamic part at the end, so an
// access past either falls in a gap or the red zone after the arena, and one before the first (a negative
// index) in the red zone before it: memcheck reports each as a shared access out of bounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "memory.hpp"

namespace cml_emu {

struct SharedSlot;  // cml_emu/device.hpp: one __shared__ declaration of a kernel

class SharedMemory {
public:
    static constexpr std::size_t kCapacity = 256 * 1024;  // above the 227 KB an H100 block may have
    SharedMemory();
    void begin_block(std::size_t dynamic_bytes);
    void* variable(SharedSlot& slot, std::size_t bytes, std::size_t alignment);
    void* dynamic() const { return dynamic_; }
    bool contains(std::uintptr_t address) const { return address - (base() - kRedZone) < kCapacity + 2 * kRedZone; }
    // True when [address, address + size) lies in the block's shared variables, static or dynamic.
    bool holds(std::uintptr_t address, std::size_t size) const
    {
        const auto dynamic = std::uintptr_t(dynamic_);
        return (address >= base() && address + size <= base() + static_used_) ||
               (address >= dynamic && address + size <= dynamic + dynamic_bytes_);
    }
    std::uintptr_t base() const { return std::uintptr_t(base_); }
    std::size_t dynamic_bytes() const { return dynamic_bytes_; }
    std::size_t static_bytes() const { return static_used_; }

private:
    char* base_ = nullptr;
    std::size_t static_used_ = 0;
    char* dynamic_ = nullptr;
    std::size_t dynamic_bytes_ = 0;
    std::vector<std::pair<SharedSlot*, std::size_t>> slots_;  // offset of each variable in this block
};

}  // namespace cml_emu
