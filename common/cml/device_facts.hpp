// What the tests and benchmarks need to know about the GPU, including a measured device-to-device copy
// bandwidth: the roofline that memory-bound labs are compared with, measured on this very card.
#pragma once

#include <cstddef>
#include <string>

namespace cml {

struct DeviceFacts {
    std::string name;
    int sm_count = 0;
    int cc_major = 0;
    int cc_minor = 0;
    std::size_t l2_bytes = 0;
    std::size_t global_bytes = 0;
};

// True when a CUDA device can be used; otherwise absence_reason() says why (driver missing, no device).
bool gpu_available();
std::string gpu_absence_reason();

DeviceFacts query_device();

// cudaMemcpy device to device of `bytes`, timed like a kernel; counts the bytes read plus those written.
double measure_copy_gbps(std::size_t bytes = std::size_t(256) << 20);

}  // namespace cml
