// Kernel launches: rewrite.py turns `kernel<<<grid, block, shared, stream>>>(args)` into
// `cml_emu::launch(cml_emu::config(grid, block, shared, stream), kernel, args)`. The launch runs the whole
// grid before it returns (a GPU may too: the caller synchronises before it looks at the results).
#pragma once

#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include <cuda_runtime_api.h>

namespace cml_emu {

struct LaunchConfig {
    dim3 grid;
    dim3 block;
    std::size_t shared_bytes;
    cudaStream_t stream;
};

inline LaunchConfig config(dim3 grid, dim3 block, std::size_t shared_bytes = 0, cudaStream_t stream = nullptr)
{
    return {grid, block, shared_bytes, stream};
}

// Runs `thread_body(closure)` once for every thread of the grid. `kernel` names the kernel in reports; the
// threads read their arguments from the closure's `closure_bytes`.
using ThreadBody = void (*)(const void* closure);
void run_kernel(const void* kernel, const LaunchConfig& config, ThreadBody thread_body, const void* closure,
                std::size_t closure_bytes);

template <class... Params, class... Args>
void launch(const LaunchConfig& config, void (*kernel)(Params...), Args&&... args)
{
    static_assert(sizeof...(Params) == sizeof...(Args), "a kernel launched with the wrong number of arguments");
    // The arguments, converted to the kernel's parameter types once, as the launch would copy them.
    struct Closure {
        void (*kernel)(Params...);
        std::tuple<std::decay_t<Params>...> arguments;
    };
    const Closure closure{kernel, std::tuple<std::decay_t<Params>...>(std::forward<Args>(args)...)};
    run_kernel(reinterpret_cast<const void*>(kernel), config,
               [](const void* p) {
                   const Closure& c = *static_cast<const Closure*>(p);
                   std::apply(c.kernel, c.arguments);
               },
               &closure, sizeof closure);
}

}  // namespace cml_emu
