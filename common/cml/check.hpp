// One way to check CUDA calls: a failure throws cml::CudaError naming the call, the file and the line,
// so a test reports it as a failed case instead of the process dying.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace cml {

struct CudaError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);

inline void check_cuda(cudaError_t status, const char* call, const char* file, int line)
{
    if (status != cudaSuccess) throw_cuda_error(status, call, file, line);
}

}  // namespace cml

#define CML_CHECK(call) ::cml::check_cuda((call), #call, __FILE__, __LINE__)

// After a launch: reports a bad launch configuration here, at the launch, rather than at a later call.
#define CML_CHECK_LAUNCH() CML_CHECK(cudaGetLastError())
