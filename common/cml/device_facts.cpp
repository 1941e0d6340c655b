#include "cml/device_facts.hpp"

#include "cml/check.hpp"
#include "cml/device_buffer.hpp"
#include "cml/timing.hpp"

namespace cml {
namespace {

cudaError_t device_count_status()
{
    static const cudaError_t status = [] {
        int count = 0;
        cudaError_t result = cudaGetDeviceCount(&count);
        if (result == cudaSuccess && count == 0) result = cudaErrorNoDevice;
        return result;
    }();
    return status;
}

}  // namespace

bool gpu_available() { return device_count_status() == cudaSuccess; }

std::string gpu_absence_reason()
{
    const cudaError_t status = device_count_status();
    if (status == cudaSuccess) return "";
    return std::string("no usable CUDA device (") + cudaGetErrorName(status) + ": " + cudaGetErrorString(status) +
           ")";
}

int fp32_lanes_per_sm(int cc_major, int cc_minor)
{
    switch (cc_major) {
    case 5: return 128;
    case 6: return cc_minor == 0 ? 64 : 128;
    case 7: return 64;
    case 8: return cc_minor == 0 ? 64 : 128;
    case 9:   // Hopper
    case 10:  // Blackwell, data centre
    case 12:  // Blackwell, desktop
        return 128;
    default: return 0;
    }
}

DeviceFacts query_device()
{
    int device = 0;
    CML_CHECK(cudaGetDevice(&device));
    cudaDeviceProp props{};
    CML_CHECK(cudaGetDeviceProperties(&props, device));
    DeviceFacts facts;
    facts.name = props.name;
    facts.sm_count = props.multiProcessorCount;
    facts.cc_major = props.major;
    facts.cc_minor = props.minor;
    facts.l2_bytes = std::size_t(props.l2CacheSize);
    facts.global_bytes = props.totalGlobalMem;
    facts.fp32_lanes_per_sm = fp32_lanes_per_sm(props.major, props.minor);
    // Asked as an attribute: CUDA 13's cudaDeviceProp no longer has the clock. A device that does not report
    // it (the CPU emulator) has no peak, and its kernels no ceiling.
    if (cudaDeviceGetAttribute(&facts.clock_khz, cudaDevAttrClockRate, device) != cudaSuccess) {
        facts.clock_khz = 0;
        (void)cudaGetLastError();  // an answer, not a fault of the kernel under test
    }
    return facts;
}

double measure_copy_gbps(std::size_t bytes)
{
    DeviceBuffer<unsigned char> source(bytes), target(bytes);
    CML_CHECK(cudaMemset(source.data(), 1, bytes));
    const Timing timing = time_launches(
        [&] { CML_CHECK(cudaMemcpyAsync(target.data(), source.data(), bytes, cudaMemcpyDeviceToDevice)); });
    return 2.0 * double(bytes) / (timing.median_ms * 1e6);
}

}  // namespace cml
