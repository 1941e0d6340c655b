// The stacks of the GPU threads: one per thread rank of a block, kept by each worker from block to block,
// each with a guard page below it so that an overflow faults instead of running into the next stack.
#pragma once

#include <boost/context/stack_context.hpp>

#include <cstddef>
#include <vector>

namespace cml_emu {

class StackPool {
public:
    explicit StackPool(std::size_t bytes) : bytes_(bytes) {}
    ~StackPool();
    char* stack(std::size_t index);  // the top of stack `index`, made on first use
    std::size_t bytes() const { return bytes_; }

private:
    std::size_t bytes_;
    std::vector<char*> stacks_;
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
