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
