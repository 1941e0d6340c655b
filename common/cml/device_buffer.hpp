// Device memory owned like a std::vector: allocated in the constructor, freed in the destructor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cml/check.hpp"
#include "cml/record.hpp"

namespace cml {

// Every byte 0xFF: a float NaN (and -1 as an int), so an element the kernel never wrote is easy to spot.
constexpr unsigned char kPoisonByte = 0xFF;

template <class T>
class DeviceBuffer {
public:
    explicit DeviceBuffer(std::size_t count) : count_(count)
    {
        if (count_ > 0) CML_CHECK(cudaMalloc(&data_, bytes()));
    }
    explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
    ~DeviceBuffer() { cudaFree(data_); }

    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& other) noexcept : data_(other.data_), count_(other.count_)
    {
        other.data_ = nullptr;
        other.count_ = 0;
    }

    T* data() { return data_; }
    const T* data() const { return data_; }
    std::size_t size() const { return count_; }
    std::size_t bytes() const { return count_ * sizeof(T); }

    void upload(const std::vector<T>& host)
    {
        if (host.size() != count_) throw std::invalid_argument("DeviceBuffer::upload: size mismatch");
        if (count_ > 0) CML_CHECK(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice));
    }
    // What a test checks: in the lab's checker this comes from the record, not the device (cml/record.hpp).
    std::vector<T> download() const
    {
        std::vector<T> host(count_);
        if (count_ > 0) record::copy_to_host(host.data(), data_, bytes());
        return host;
    }
    // Fill with kPoisonByte before every run under test, so stale results from an earlier run cannot pass.
    void poison()
    {
        if (count_ > 0) CML_CHECK(cudaMemset(data_, kPoisonByte, bytes()));
    }

private:
    T* data_ = nullptr;
    std::size_t count_ = 0;
};

}  // namespace cml
