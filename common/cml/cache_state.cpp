#include "cml/cache_state.hpp"

#include <cuda_runtime.h>

namespace cml {
namespace {

// Which of the two this device and runtime let us pin and read back; the other is not checked.
bool limit_known = false;
bool window_known = false;

// A refusal (no persisting L2 on this device, no attribute on the legacy stream) is an answer, not a fault:
// it is cleared here so that no later check of cudaGetLastError() mistakes it for a failed launch.
bool accepted(cudaError_t status)
{
    if (status == cudaSuccess) return true;
    cudaGetLastError();
    return false;
}

constexpr cudaStream_t kDefaultStream = nullptr;  // the legacy default stream, which the launchers use

bool read_window(cudaAccessPolicyWindow& window)
{
    cudaStreamAttrValue value{};
    if (!accepted(cudaStreamGetAttribute(kDefaultStream, cudaStreamAttributeAccessPolicyWindow, &value))) return false;
    window = value.accessPolicyWindow;
    return true;
}

}  // namespace

void pin_cache_state()
{
    limit_known = accepted(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0));
    cudaStreamAttrValue empty{};  // no base, no bytes: no window
    accepted(cudaStreamSetAttribute(kDefaultStream, cudaStreamAttributeAccessPolicyWindow, &empty));
    cudaAccessPolicyWindow window{};
    window_known = read_window(window);
}

std::string cache_state_changed()
{
    std::string changed;
    std::size_t limit = 0;
    if (limit_known && accepted(cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize)) && limit != 0)
        changed = "set aside " + std::to_string(limit) + " bytes of L2 for persisting accesses (the benchmark holds it at 0)";
    cudaAccessPolicyWindow window{};
    if (window_known && read_window(window) && window.num_bytes != 0) {
        changed += changed.empty() ? "" : " and ";
        changed += "set an access-policy window of " + std::to_string(window.num_bytes) + " bytes on the default stream";
    }
    if (!changed.empty()) pin_cache_state();
    return changed;
}

}  // namespace cml
