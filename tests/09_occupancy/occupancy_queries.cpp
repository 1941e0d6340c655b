// The test program's side of the occupancy queries (occupancy_queries.hpp): the linker sends kernel.cu's calls
// here (--wrap=NAME turns each reference to NAME into __wrap_NAME, and __real_NAME into the runtime's own), and
// each goes on to the runtime unchanged. Never linked into the checker.
#include "occupancy_queries.hpp"

#include <cuda_runtime_api.h>

#include <mutex>

extern "C" {
cudaError_t __real_cudaOccupancyMaxActiveBlocksPerMultiprocessor(int*, const void*, int, size_t);
cudaError_t __real_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int*, const void*, int, size_t, unsigned);
}

namespace {

std::mutex queries_lock;
std::vector<OccupancyQuery> queries;
// A runtime whose plain form calls its form with flags through the same symbol would count one query twice.
thread_local int depth = 0;

cudaError_t noted(cudaError_t error, const int* blocks, int threads, size_t bytes)
{
    if (depth == 0) {
        const std::lock_guard<std::mutex> held(queries_lock);
        queries.push_back({threads, bytes, error == cudaSuccess && blocks ? *blocks : -1});
    }
    return error;
}

}  // namespace

std::vector<OccupancyQuery> take_occupancy_queries()
{
    const std::lock_guard<std::mutex> held(queries_lock);
    std::vector<OccupancyQuery> taken;
    taken.swap(queries);
    return taken;
}

extern "C" {

cudaError_t __wrap_cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* kernel, int threads,
                                                                 size_t bytes)
{
    ++depth;
    const cudaError_t error = __real_cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel, threads, bytes);
    --depth;
    return noted(error, blocks, threads, bytes);
}

cudaError_t __wrap_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void* kernel, int threads,
                                                                          size_t bytes, unsigned flags)
{
    ++depth;
    const cudaError_t error =
        __real_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, kernel, threads, bytes, flags);
    --depth;
    return noted(error, blocks, threads, bytes);
}

}  // extern "C"
