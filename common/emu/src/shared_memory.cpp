#include "shared_memory.hpp"

#include <sys/mman.h>

#include <cstring>

#include "runtime_state.hpp"
#include "worker.hpp"

namespace cml_emu {

SharedMemory::SharedMemory()
{
    void* memory =
        mmap(nullptr, kRedZone + kCapacity + kRedZone, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) fatal("out of memory for shared memory");
    base_ = static_cast<char*>(memory) + kRedZone;
}

void SharedMemory::begin_block(std::size_t dynamic_bytes)
{
    slots_.clear();
    static_used_ = 0;
    dynamic_bytes_ = dynamic_bytes;
    dynamic_ = base_ + (kCapacity - (dynamic_bytes + 15) / 16 * 16);
    // What a block finds in shared memory is whatever was there: here, NaN (all bits set), never zeros.
    std::memset(dynamic_, 0xFF, dynamic_bytes);
}

void* SharedMemory::variable(SharedSlot& slot, std::size_t bytes, std::size_t alignment)
{
    for (const auto& [s, offset] : slots_)
        if (s == &slot) return base_ + offset;
    const std::size_t offset = (static_used_ + alignment - 1) / alignment * alignment;
    if (base_ + offset + bytes > dynamic_) fatal("a block asks for more shared memory than 256 KB");
    static_used_ = offset + bytes;
    slots_.emplace_back(&slot, offset);
    std::memset(base_ + offset, 0xFF, bytes);
    return base_ + offset;
}

void* shared_memory(SharedSlot& slot, std::size_t bytes, std::size_t alignment)
{
    if (!t_worker) fatal("a __shared__ variable used outside a kernel");
    return t_worker->shared().variable(slot, bytes, alignment);
}

void* dynamic_shared_memory()
{
    if (!t_worker) fatal("extern __shared__ memory used outside a kernel");
    return t_worker->shared().dynamic();
}

}  // namespace cml_emu
