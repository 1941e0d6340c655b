// Device memory read back for the benchmark's checks through one pinned buffer, a chunk at a time: a pageable
// copy of a 256 MB output into a fresh vector took ~0.2 s on the H100, several times per kernel.
// The test programs read back with DeviceBuffer::download, which their record needs (cml/record.hpp).
#pragma once

#include <cstddef>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "cml/compare.hpp"
#include "cml/device_buffer.hpp"

namespace cml {

// use(offset, host, bytes) for consecutive chunks of the `bytes` at `device`, each a multiple of `unit`
// bytes (but the last): `host` holds the chunk's copy until use returns.
void for_each_chunk_read_back(const void* device, std::size_t bytes, std::size_t unit,
                              const std::function<void(std::size_t, const void*, std::size_t)>& use);

// cml::compare of an output still on the device with its expected values.
Comparison compare(const DeviceBuffer<float>& got, const std::vector<double>& want, Tolerance tolerance);

// Whether `device` differs from `host` (of the same length); if so, where it first does and what it holds there.
template <class T>
bool first_difference(const DeviceBuffer<T>& device, const std::vector<T>& host, std::size_t& index, T& found)
{
    bool differs = false;
    for_each_chunk_read_back(device.data(), device.bytes(), sizeof(T), [&](std::size_t offset, const void* chunk,
                                                                           std::size_t bytes) {
        const T* values = static_cast<const T*>(chunk);
        const std::size_t first = offset / sizeof(T), count = bytes / sizeof(T);
        if (differs || std::memcmp(values, host.data() + first, bytes) == 0) return;
        for (std::size_t i = 0; i < count && !differs; ++i) {
            if (std::memcmp(&values[i], &host[first + i], sizeof(T)) == 0) continue;
            differs = true;
            index = first + i;
            found = values[i];
        }
    });
    return differs;
}

}  // namespace cml
