// The stacks of the GPU threads: one per thread rank of a block, kept by each worker from block to block,
// each with a guard page below it so that an overflow faults instead of running into the next stack. A
// cooperative launch keeps every block of its grid at once, up to 270,000 threads on an H100: its blocks'
// stacks come one mapping per block, without guard pages, as the kernel may not map that many areas.
#pragma once

#include <boost/context/stack_context.hpp>

#include <cstddef>
#include <utility>
#include <vector>

namespace cml_emu {

class StackPool {
public:
    StackPool(std::size_t bytes, bool guarded) : bytes_(bytes), guarded_(guarded) {}
    ~StackPool();
    StackPool(const StackPool&) = delete;
    StackPool& operator=(const StackPool&) = delete;
    // Makes sure stacks 0 to count - 1 exist (unguarded ones are mapped together, on the first call).
    void reserve(std::size_t count);
    char* stack(std::size_t index);  // the top of stack `index`
    std::size_t bytes() const { return bytes_; }

private:
    std::size_t bytes_;
    bool guarded_;
    std::vector<char*> stacks_;
    std::vector<std::pair<void*, std::size_t>> mappings_;
};

// One stack of a StackPool, as a Boost.Context fiber takes it: the pool keeps it when the fiber ends.
struct PooledStack {
    char* top;
    std::size_t bytes;
    boost::context::stack_context allocate()
    {
        boost::context::stack_context context;
        context.size = bytes;
        context.sp = top;
        return context;
    }
    void deallocate(boost::context::stack_context&) noexcept {}
};

}  // namespace cml_emu
