#include "cml/read_back.hpp"

#include <algorithm>
#include <cstdlib>
#include <new>
#include <mutex>
#include <stdexcept>

#include "cml/check.hpp"

namespace cml {
namespace {

constexpr std::size_t kStagingBytes = std::size_t(64) << 20;

std::mutex staging_lock;  // one chunk in the buffer at a time

// Pinned host memory, allocated once and kept for the run: copies into it run at the bus's speed. Where the
// system will not pin it, ordinary memory: slower, never wrong.
char* staging()
{
    static char* const buffer = [] {
        void* pinned = nullptr;
        if (cudaMallocHost(&pinned, kStagingBytes) == cudaSuccess) return static_cast<char*>(pinned);
        (void)cudaGetLastError();  // not an error of the kernel under test
        void* pageable = std::malloc(kStagingBytes);
        if (pageable == nullptr) throw std::bad_alloc();
        return static_cast<char*>(pageable);
    }();
    return buffer;
}

}  // namespace

void for_each_chunk_read_back(const void* device, std::size_t bytes, std::size_t unit,
                              const std::function<void(std::size_t, const void*, std::size_t)>& use)
{
    const std::lock_guard<std::mutex> held(staging_lock);
    char* const host = staging();
    const std::size_t chunk = kStagingBytes / unit * unit;
    for (std::size_t offset = 0; offset < bytes; offset += chunk) {
        const std::size_t count = std::min(chunk, bytes - offset);
        CML_CHECK(cudaMemcpy(host, static_cast<const char*>(device) + offset, count, cudaMemcpyDeviceToHost));
        use(offset, host, count);
    }
}

Comparison compare(const DeviceBuffer<float>& got, const std::vector<double>& want, Tolerance tolerance)
{
    if (got.size() != want.size()) throw std::invalid_argument("compare: got and want differ in length");
    Comparison whole;
    for_each_chunk_read_back(got.data(), got.bytes(), sizeof(float), [&](std::size_t offset, const void* chunk,
                                                                         std::size_t bytes) {
        const std::size_t first = offset / sizeof(float);
        Comparison part = compare(static_cast<const float*>(chunk), want.data() + first, bytes / sizeof(float), tolerance);
        part.first_bad += first;
        append(whole, part);
    });
    return whole;
}

}  // namespace cml
