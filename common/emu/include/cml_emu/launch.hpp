// Kernel launches: what rewrite.py turns kernel<<<grid, block, shared, stream>>>(args) into, and what
// cudaLaunchKernel and cudaLaunchCooperativeKernel do when they are given the kernel itself.
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
    bool cooperative;  // cudaLaunchCooperativeKernel: every block on the device at once, grid.sync() allowed
};

inline LaunchConfig config(dim3 grid, dim3 block, std::size_t shared_bytes = 0, cudaStream_t stream = nullptr)
{
    return {grid, block, shared_bytes, stream, false};
}

// Runs `thread_body(closure)` once for every thread of the grid. `kernel` names the kernel in reports; the
// threads read their arguments from the closure's `closure_bytes`. What the launch itself says: cudaSuccess,
// or why it was refused (also kept for cudaGetLastError); a fault of the kernel comes later, as on a GPU.
using ThreadBody = void (*)(const void* closure);
cudaError_t run_kernel(const void* kernel, const LaunchConfig& config, ThreadBody thread_body, const void* closure,
                       std::size_t closure_bytes);
// A launch refused before it ran: `error`, kept for cudaGetLastError, and returned.
cudaError_t refuse_launch(cudaError_t error);
// A cooperative launch: cudaSuccess when all of its blocks fit on the device at once, as a GPU demands.
cudaError_t check_cooperative_launch(const void* kernel, const LaunchConfig& config);

// Launches `kernel` with its arguments, already converted to the kernel's parameter types.
template <class... Params>
cudaError_t launch_with(const LaunchConfig& config, void (*kernel)(Params...),
                        std::tuple<std::decay_t<Params>...> arguments)
{
    struct Closure {
        void (*kernel)(Params...);
        std::tuple<std::decay_t<Params>...> arguments;
    };
    const Closure closure{kernel, std::move(arguments)};
    return run_kernel(
        reinterpret_cast<const void*>(kernel), config,
        [](const void* p) {
            const Closure& c = *static_cast<const Closure*>(p);
            std::apply(c.kernel, c.arguments);
        },
        &closure, sizeof closure);
}

template <class... Params, class... Args>
void launch(const LaunchConfig& config, void (*kernel)(Params...), Args&&... args)
{
    static_assert(sizeof...(Params) == sizeof...(Args), "a kernel launched with the wrong number of arguments");
    // The arguments, converted to the kernel's parameter types once, as the launch would copy them.
    launch_with(config, kernel, std::tuple<std::decay_t<Params>...>(std::forward<Args>(args)...));
}

template <class... Params, std::size_t... I>
std::tuple<std::decay_t<Params>...> arguments_at(void** args, std::index_sequence<I...>)
{
    return std::tuple<std::decay_t<Params>...>(*static_cast<std::decay_t<Params>*>(args[I])...);
}

// cudaLaunchKernel's form: args[i] points to the value of the kernel's i-th parameter.
template <class... Params>
cudaError_t launch_from_pointers(const LaunchConfig& config, void (*kernel)(Params...), void** args, bool cooperative)
{
    if (!kernel || (sizeof...(Params) > 0 && !args)) return refuse_launch(cudaErrorInvalidValue);
    LaunchConfig how = config;
    if (cooperative) {
        const cudaError_t error = check_cooperative_launch(reinterpret_cast<const void*>(kernel), config);
        if (error != cudaSuccess) return refuse_launch(error);
        how.cooperative = true;
    }
    return launch_with(how, kernel, arguments_at<Params...>(args, std::index_sequence_for<Params...>{}));
}

}  // namespace cml_emu
