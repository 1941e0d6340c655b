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
    int clock_khz = 0;          // the SMs' peak clock, as the device reports it (0: not reported)
    int fp32_lanes_per_sm = 0;  // fp32 multiply-adds per clock per SM, by compute capability (0: not known)
    // SMs x clock x fp32 lanes x 2 (a multiply-add is two flops): no kernel computes faster. 0 when not known.
    double fp32_peak_gflops() const { return 2.0 * sm_count * fp32_lanes_per_sm * (clock_khz * 1e-6); }
};

// The fp32 results per clock of one SM (the CUDA Programming Guide's throughput table), 0 where not known.
int fp32_lanes_per_sm(int cc_major, int cc_minor);

// True when a CUDA device can be used; otherwise absence_reason() says why (driver missing, no device).
bool gpu_available();
std::string gpu_absence_reason();

DeviceFacts query_device();

// cudaMemcpy device to device of `bytes`, timed like a kernel; counts the bytes read plus those written.
double measure_copy_gbps(std::size_t bytes = std::size_t(256) << 20);

}  // namespace cml
