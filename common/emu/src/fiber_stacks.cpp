#include "fiber_stacks.hpp"

#include <sys/mman.h>

#include "runtime_state.hpp"

namespace cml_emu {
namespace {

constexpr std::size_t kGuardBytes = 4096;

}  // namespace

StackPool::~StackPool()
{
    for (char* top : stacks_) munmap(top - bytes_ - kGuardBytes, bytes_ + kGuardBytes);
}

char* StackPool::stack(std::size_t index)
{
    while (stacks_.size() <= index) {
        void* memory = mmap(nullptr, bytes_ + kGuardBytes, PROT_READ | PROT_WRITE,
                            MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (memory == MAP_FAILED) fatal("out of memory for thread stacks");
        mprotect(memory, kGuardBytes, PROT_NONE);  // a stack overflow faults instead of corrupting another
        stacks_.push_back(static_cast<char*>(memory) + kGuardBytes + bytes_);
    }
    return stacks_[index];
}

}  // namespace cml_emu
