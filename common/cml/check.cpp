#include "cml/check.hpp"

namespace cml {

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line)
{
    throw CudaError(std::string(file) + ":" + std::to_string(line) + ": " + call + " failed: " +
                    cudaGetErrorName(status) + " (" + cudaGetErrorString(status) + ")");
}

}  // namespace cml
