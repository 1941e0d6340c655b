#include "fiber_stacks.hpp"

#include <sys/mman.h>

#include "runtime_state.hpp"

namespace cml_emu {
namespace {

constexpr std::size_t kGuardBytes = 4096;

}  // namespace

StackPool::~StackPool()
{
    for (const auto& [memory, bytes] : mappings_) munmap(memory, bytes);
}

void StackPool::reserve(std::size_t count)
{
    if (stacks_.size() >= count) return;
    const std::size_t guard = guarded_ ? kGuardBytes : 0;
    const std::size_t stacks = guarded_ ? 1 : count - stacks_.size();
    while (stacks_.size() < count) {
        const std::size_t bytes = stacks * (bytes_ + guard);
        void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (memory == MAP_FAILED) fatal("out of memory for thread stacks");
        if (guarded_) mprotect(memory, kGuardBytes, PROT_NONE);  // an overflow faults instead of corrupting another
        mappings_.emplace_back(memory, bytes);
        for (std::size_t i = 0; i < stacks; ++i)
            stacks_.push_back(static_cast<char*>(memory) + (i + 1) * (bytes_ + guard));
    }
}

char* StackPool::stack(std::size_t index)
{
    reserve(index + 1);
    return stacks_[index];
}

}  // namespace cml_emu
