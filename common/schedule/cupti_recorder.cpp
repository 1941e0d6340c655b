// The schedule check on a GPU: a library CUDA loads into the test program (CUDA_INJECTION64_PATH names it, and
// CUDA calls its InitializeInjection as the program first uses the GPU), which records through CUPTI what the
// watched calls did (cml/watched_call.hpp), and at exit judges them (timeline.hpp) and prints the findings and
// the summary as the CPU emulator does (common/emu/src/schedule.hpp), exiting with CML_SCHEDULE_ERROR_EXITCODE
// when it found anything. Beside the overlap aspect's summary it prints what no emulator can: how much of the
// copies' and of the kernels' time on the GPU ran beside the other, a measurement the grader shows and never
// grades. CML_SCHEDULE names the aspects reported (pinned, overlap, returned, prefetched; all when unset).
//
// What it records: from CUPTI's callbacks, every runtime and driver API call's entry (which watched call issued
// each piece of work, and when), the streams and events made, recorded, waited for and destroyed, the device,
// managed and pinned host memory allocated and freed, each copy's addresses and each launch's arguments (read
// as the call returns, in the program's own process: the data's path, common/schedule/data_path.hpp), and the
// NVTX ranges; from its activity record, each copy between host and GPU (its bytes, and which side is pageable)
// and each kernel, with their start and end on the GPU, and the GPU's page faults on managed memory (CUPTI's
// unified memory counters: where they cannot be enabled, as in some virtual machines, prefetching is reported as
// not measured, never as passed). NVTX reaches CUPTI only through NVTX_INJECTION64_PATH; it may name this library
// too, which hands NVTX on to CUPTI's own injection entry (cupti/nvtx_to_cupti.cpp).
#include <cupti.h>
#include <dlfcn.h>
#include <generated_nvtx_meta.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "schedule/findings.hpp"
#include "schedule/timeline.hpp"

namespace {

// The activity records this CUPTI writes: their layouts change with its major version.
#if CUPTI_API_VERSION >= 130000
using CopyRecord = CUpti_ActivityMemcpy6;
using KernelRecord = CUpti_ActivityKernel10;
using FaultRecord = CUpti_ActivityUnifiedMemoryCounter3;
#else
using FaultRecord = CUpti_ActivityUnifiedMemoryCounter2;
using CopyRecord = CUpti_ActivityMemcpy5;
using KernelRecord = CUpti_ActivityKernel9;
#endif

using cml::schedule::Activity;
using cml::schedule::Work;

constexpr std::size_t kBufferBytes = 8 << 20;  // CUPTI fills one, hands it back, and asks for the next
constexpr std::size_t kRecordAlignment = 8;     // what CUPTI requires of an activity buffer

struct Recorder {
    std::recursive_mutex mutex;  // recursive: a CUPTI call made under it may call back
    cml::schedule::Timeline timeline;
    std::size_t dropped = 0;  // activity records CUPTI could not keep
    std::string failure;      // a CUPTI call that failed while setting up: no verdict
    bool counting_faults = false;  // the GPU's page faults are being counted (count_page_faults)
};

Recorder& recorder()
{
    static Recorder* r = new Recorder;  // never destroyed: the exit handler reads it
    return *r;
}

std::uint64_t now()
{
    std::uint64_t at = 0;
    cuptiGetTimestamp(&at);  // the clock of the activity record's start and end
    return at;
}

int env_int(const char* name, int fallback)
{
    const char* value = std::getenv(name);
    return value && *value ? std::atoi(value) : fallback;
}

template <class Params>
const Params& params_of(const CUpti_CallbackData* api)
{
    return *static_cast<const Params*>(api->functionParams);
}

std::uint32_t stream_id(CUcontext context, cudaStream_t stream)
{
    std::uint32_t id = 0;
    cuptiGetStreamIdEx(context, reinterpret_cast<CUstream>(stream), 0, &id);
    return id;
}

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

// CUDA 13's launch of a kernel by its handle, which nvcc's <<<...>>> makes: its parameters, as the runtime's
// header declares the call (crt/device_functions.h) and CUPTI passes them, with no struct in CUPTI's headers.
struct LaunchByHandleParams {
    cudaKernel_t kernel;
    dim3 gridDim;
    dim3 blockDim;
    void** args;
    size_t sharedMem;
    cudaStream_t stream;
};

// A function of the driver, as the runtime finds it for the version whose signature we declare (12.4, where the
// parameter tables came): the runtime loads the driver for itself, so dlsym's global scope need not hold it. The
// program's last error is left as it was: a failure here is the recorder's, never the program's.
void* driver_function(const char* name)
{
    constexpr unsigned kSignatureVersion = 12040;
    const bool clean_before = cudaPeekAtLastError() == cudaSuccess;
    void* found = nullptr;
    cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion(name, &found, kSignatureVersion, cudaEnableDefault, &status) != cudaSuccess ||
        status != cudaDriverEntryPointSuccess)
        found = nullptr;
    if (clean_before) (void)cudaGetLastError();
    return found ? found : dlsym(RTLD_DEFAULT, name);
}

// The words of a launch's arguments, each parameter's bytes at a word's alignment, as the kernel's own parameter
// table gives their offsets and sizes: by its host function through the runtime (cudaFuncGetParamInfo), or by
// its handle through the driver (cuKernelGetParamInfo). An index past the last parameter fails with "invalid
// value" in both; any other failure, the reason it could not be read (empty where it was).
std::string argument_words(const void* function, cudaKernel_t handle, void** args, std::vector<std::uintptr_t>& words)
{
    constexpr int kInvalidValue = 1;  // CUDA_ERROR_INVALID_VALUE, and cudaErrorInvalidValue
    using KernelParamInfo = int (*)(cudaKernel_t, std::size_t, std::size_t*, std::size_t*);
    static const auto of_kernel = reinterpret_cast<KernelParamInfo>(driver_function("cuKernelGetParamInfo"));
    if (!function && !handle) return "the launch named no kernel";
    if (!function && !of_kernel) return "the driver offers no cuKernelGetParamInfo";
    const bool clean_before = cudaPeekAtLastError() == cudaSuccess;
    for (std::size_t index = 0;; ++index) {
        std::size_t offset = 0, size = 0;
        const int result = function ? int(cudaFuncGetParamInfo(function, index, &offset, &size))
                                    : of_kernel(handle, index, &offset, &size);
        if (function && result != 0 && clean_before) (void)cudaGetLastError();
        if (result == kInvalidValue) return "";  // past the last parameter
        if (result != 0)
            return std::string(function ? "cudaFuncGetParamInfo" : "cuKernelGetParamInfo") + " failed with error " +
                   std::to_string(result) + " at parameter " + std::to_string(index);
        const auto* bytes = args ? static_cast<const unsigned char*>(args[index]) : nullptr;
        if (!bytes) return "the launch gave no value for parameter " + std::to_string(index);
        for (std::size_t at = 0; at + sizeof(std::uintptr_t) <= size; at += alignof(void*)) {
            std::uintptr_t word = 0;
            std::memcpy(&word, bytes + at, sizeof word);
            words.push_back(word);
        }
    }
}

void launched(cml::schedule::Timeline& t, const CUpti_CallbackData* api, const void* function, cudaKernel_t handle,
              void** args, cudaStream_t stream)
{
    std::vector<std::uintptr_t> words;
    const std::string unread = argument_words(function, handle, args, words);
    if (!unread.empty()) t.arguments_not_read(unread);
    t.kernel_issued(stream_id(api->context, stream), words);
}

// A copy the program asked for, to or from the host, by its kind and its sides: which side is the device's, where
// the kind leaves it to the addresses (cudaMemcpyDefault), is the one the device allocations hold.
void copied(cml::schedule::Timeline& t, const CUpti_CallbackData* api, void* dst, const void* src,
            std::size_t bytes, cudaMemcpyKind kind, cudaStream_t stream, bool async)
{
    bool to_host = kind == cudaMemcpyDeviceToHost;
    if (kind == cudaMemcpyDefault) {
        cudaPointerAttributes from{}, to{};
        const bool src_device = cudaPointerGetAttributes(&from, src) == cudaSuccess &&
                                (from.type == cudaMemoryTypeDevice || from.type == cudaMemoryTypeManaged);
        const bool dst_device = cudaPointerGetAttributes(&to, dst) == cudaSuccess &&
                                (to.type == cudaMemoryTypeDevice || to.type == cudaMemoryTypeManaged);
        if (src_device == dst_device) return;  // device to device, or host to host
        to_host = src_device;
    } else if (kind != cudaMemcpyHostToDevice && kind != cudaMemcpyDeviceToHost) {
        return;
    }
    t.copy_issued(to_host, to_host ? dst : src, address(to_host ? src : dst), bytes, stream_id(api->context, stream),
                  async);
}

// A runtime call as it is entered: what it is about to let go of is judged while it is there.
void runtime_entered(cml::schedule::Timeline& t, CUpti_CallbackId id, const CUpti_CallbackData* api)
{
    switch (id) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020:
        t.releasing(address(params_of<cudaFreeHost_v3020_params>(api).ptr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000:
        t.releasing(address(params_of<cudaHostUnregister_v4000_params>(api).ptr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:
        t.managed_freeing(address(params_of<cudaFree_v3020_params>(api).devPtr));
        break;
    default: break;
    }
}

// A runtime call that returned success: what it made, destroyed, pinned, unpinned, issued or waited for.
void runtime_returned(cml::schedule::Timeline& t, CUpti_CallbackId id, const CUpti_CallbackData* api)
{
    switch (id) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020: {
        cudaStream_t s = *params_of<cudaStreamCreate_v3020_params>(api).pStream;
        t.stream_created(address(s), stream_id(api->context, s));
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000: {
        const auto& p = params_of<cudaStreamCreateWithFlags_v5000_params>(api);
        const bool blocking = !(p.flags & cudaStreamNonBlocking);
        t.stream_created(address(*p.pStream), stream_id(api->context, *p.pStream), blocking);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050: {
        const auto& p = params_of<cudaStreamCreateWithPriority_v5050_params>(api);
        const bool blocking = !(p.flags & cudaStreamNonBlocking);
        t.stream_created(address(*p.pStream), stream_id(api->context, *p.pStream), blocking);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050:
        t.stream_destroyed(address(params_of<cudaStreamDestroy_v5050_params>(api).stream));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventCreate_v3020:
        t.event_created(address(*params_of<cudaEventCreate_v3020_params>(api).event));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventCreateWithFlags_v3020:
        t.event_created(address(*params_of<cudaEventCreateWithFlags_v3020_params>(api).event));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020:
        t.event_destroyed(address(params_of<cudaEventDestroy_v3020_params>(api).event));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020: {
        const auto& p = params_of<cudaMallocHost_v3020_params>(api);
        t.pinned(address(*p.ptr), p.size);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020: {
        const auto& p = params_of<cudaHostAlloc_v3020_params>(api);
        t.pinned(address(*p.pHost), p.size, (p.flags & cudaHostAllocMapped) != 0);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000: {
        const auto& p = params_of<cudaHostRegister_v4000_params>(api);
        t.pinned(address(p.ptr), p.size, (p.flags & cudaHostRegisterMapped) != 0);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostGetDevicePointer_v3020: {
        const auto& p = params_of<cudaHostGetDevicePointer_v3020_params>(api);
        t.mapped_for_gpu(address(*p.pDevice), address(p.pHost));
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020: {
        const auto& p = params_of<cudaMalloc_v3020_params>(api);
        t.device_allocated(address(*p.devPtr), p.size);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020: {
        const auto& p = params_of<cudaMallocPitch_v3020_params>(api);
        t.device_allocated(address(*p.devPtr), *p.pitch * p.height);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020: {
        const auto& p = params_of<cudaMallocAsync_v11020_params>(api);
        t.device_allocated(address(*p.devPtr), p.size);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020:
        t.device_freed(address(params_of<cudaFreeAsync_v11020_params>(api).devPtr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000: {
        const auto& p = params_of<cudaMemcpy_v3020_params>(api);
        copied(t, api, p.dst, p.src, p.count, p.kind, nullptr, false);
        t.copied_synchronously(api->correlationId, now());
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000: {
        const auto& p = params_of<cudaMemcpyAsync_v3020_params>(api);
        copied(t, api, p.dst, p.src, p.count, p.kind, p.stream, true);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000: {
        const auto& p = params_of<cudaMemcpy2D_v3020_params>(api);
        copied(t, api, p.dst, p.src, p.width * p.height, p.kind, nullptr, false);
        t.copied_synchronously(api->correlationId, now());
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000: {
        const auto& p = params_of<cudaMemcpy2DAsync_v3020_params>(api);
        copied(t, api, p.dst, p.src, p.width * p.height, p.kind, p.stream, true);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbol_ptds_v7000: {
        const auto& p = params_of<cudaMemcpyToSymbol_v3020_params>(api);
        if (p.kind != cudaMemcpyDeviceToDevice)
            t.copy_issued(false, p.src, address(p.symbol) + p.offset, p.count, 0, false, true);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyToSymbolAsync_ptsz_v7000: {
        const auto& p = params_of<cudaMemcpyToSymbolAsync_v3020_params>(api);
        if (p.kind != cudaMemcpyDeviceToDevice)
            t.copy_issued(false, p.src, address(p.symbol) + p.offset, p.count, stream_id(api->context, p.stream),
                          true, true);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbol_ptds_v7000: {
        const auto& p = params_of<cudaMemcpyFromSymbol_v3020_params>(api);
        if (p.kind != cudaMemcpyDeviceToDevice)
            t.copy_issued(true, p.dst, address(p.symbol) + p.offset, p.count, 0, false, true);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyFromSymbolAsync_ptsz_v7000: {
        const auto& p = params_of<cudaMemcpyFromSymbolAsync_v3020_params>(api);
        if (p.kind != cudaMemcpyDeviceToDevice)
            t.copy_issued(true, p.dst, address(p.symbol) + p.offset, p.count, stream_id(api->context, p.stream),
                          true, true);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000: {
        const auto& p = params_of<cudaLaunchKernel_v7000_params>(api);
        launched(t, api, p.func, nullptr, p.args, p.stream);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060: {
        const auto& p = params_of<cudaLaunchKernelExC_v11060_params>(api);
        launched(t, api, p.func, nullptr, p.args, p.config ? p.config->stream : nullptr);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000:
    case CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000: {
        const auto& p = params_of<LaunchByHandleParams>(api);
        launched(t, api, nullptr, p.kernel, p.args, p.stream);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_v12020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemPrefetchAsync_ptsz_v12020: {
        const auto& p = params_of<cudaMemPrefetchAsync_v12020_params>(api);
        t.prefetch_issued(address(p.devPtr), p.count, p.location.type == cudaMemLocationTypeDevice,
                          stream_id(api->context, p.stream));
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_ptsz_v7000: {
        const auto& p = params_of<cudaStreamWaitEvent_v3020_params>(api);
        t.stream_waited(stream_id(api->context, p.stream), address(p.event));
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020:
        t.unpinned(address(params_of<cudaFreeHost_v3020_params>(api).ptr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000:
        t.unpinned(address(params_of<cudaHostUnregister_v4000_params>(api).ptr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000: {
        const auto& p = params_of<cudaMallocManaged_v6000_params>(api);
        t.managed_allocated(address(*p.devPtr), p.size);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020: {
        const std::uintptr_t start = address(params_of<cudaFree_v3020_params>(api).devPtr);
        t.managed_freed(start);
        t.device_freed(start);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000: {
        cudaStream_t s = params_of<cudaStreamSynchronize_v3020_params>(api).stream;
        t.synchronised(api->correlationId, false, stream_id(api->context, s), now());
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020:  // returned cudaSuccess: the stream is done
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_ptsz_v7000: {
        cudaStream_t s = params_of<cudaStreamQuery_v3020_params>(api).stream;
        t.synchronised(api->correlationId, false, stream_id(api->context, s), now());
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
        t.synchronised(api->correlationId, true, 0, now());
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_ptsz_v7000: {
        const auto& p = params_of<cudaEventRecord_v3020_params>(api);
        t.event_recorded(address(p.event), stream_id(api->context, p.stream), api->correlationId);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010:
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_ptsz_v11010: {
        const auto& p = params_of<cudaEventRecordWithFlags_v11010_params>(api);
        t.event_recorded(address(p.event), stream_id(api->context, p.stream), api->correlationId);
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020:
        t.event_synchronised(address(params_of<cudaEventSynchronize_v3020_params>(api).event), now());
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020:  // returned cudaSuccess: the event has happened
        t.event_synchronised(address(params_of<cudaEventQuery_v3020_params>(api).event), now());
        break;
    default: break;
    }
}

void count_page_faults();

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data)
{
    Recorder& r = recorder();
    std::lock_guard<std::recursive_mutex> lock(r.mutex);
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        if (id == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) count_page_faults();
        return;
    }
    if (domain == CUPTI_CB_DOMAIN_NVTX) {
        const auto* nvtx = static_cast<const CUpti_NvtxData*>(data);
        if (id == CUPTI_CBID_NVTX_nvtxRangePushA) {
            count_page_faults();  // before the call's mark, so that a call counted from its start is judged
            const char* message = static_cast<const nvtxRangePushA_params*>(nvtx->functionParams)->message;
            r.timeline.range_pushed(message ? message : "", now());
        } else if (id == CUPTI_CBID_NVTX_nvtxRangePop) {
            r.timeline.range_popped(now());
        }
        return;
    }
    const auto* api = static_cast<const CUpti_CallbackData*>(data);
    if (api->callbackSite == CUPTI_API_ENTER) {
        r.timeline.api_entered(api->correlationId, now());
        if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) runtime_entered(r.timeline, id, api);
        return;
    }
    r.timeline.api_returned(api->correlationId, now());
    const auto* returned = static_cast<const cudaError_t*>(api->functionReturnValue);
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && returned && *returned == cudaSuccess)
        runtime_returned(r.timeline, id, api);
}

void CUPTIAPI buffer_requested(std::uint8_t** buffer, std::size_t* size, std::size_t* max_records)
{
    *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(kRecordAlignment, kBufferBytes));
    *size = *buffer ? kBufferBytes : 0;
    *max_records = 0;  // as many as fit
}

// One record as the judge reads it; false for a record it has no use for (a copy within the GPU, say).
bool read_record(const CUpti_Activity* record, Activity& a)
{
    if (record->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
        const auto* copy = reinterpret_cast<const CopyRecord*>(record);
        if (copy->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD)
            a = Activity{Work::copy_in, copy->streamId, copy->srcKind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE};
        else if (copy->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH)
            a = Activity{Work::copy_out, copy->streamId, copy->dstKind == CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE};
        else
            return false;
        a.async = (copy->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0;
        a.start = copy->start;
        a.end = copy->end;
        a.correlation = copy->correlationId;
        a.bytes = copy->bytes;
        return true;
    }
    if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
        const auto* kernel = reinterpret_cast<const KernelRecord*>(record);
        a = Activity{Work::kernel, kernel->streamId, false, true, kernel->start, kernel->end, kernel->correlationId};
        return true;
    }
    return false;
}

void CUPTIAPI buffer_completed(CUcontext context, std::uint32_t stream, std::uint8_t* buffer, std::size_t,
                               std::size_t valid)
{
    Recorder& r = recorder();
    std::lock_guard<std::recursive_mutex> lock(r.mutex);
    CUpti_Activity* record = nullptr;
    Activity activity;
    while (cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        if (record->kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) {
            const auto* counter = reinterpret_cast<const FaultRecord*>(record);
            if (counter->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT)
                r.timeline.page_fault(counter->start);
        } else if (read_record(record, activity)) {
            r.timeline.add(activity);
        }
    }
    std::size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(context, stream, &dropped) == CUPTI_SUCCESS) r.dropped += dropped;
    std::free(buffer);
}

void at_exit()
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    Recorder& r = recorder();
    std::lock_guard<std::recursive_mutex> lock(r.mutex);
    cml::schedule::Findings findings(std::getenv("CML_SCHEDULE") ? std::getenv("CML_SCHEDULE") : "");
    r.timeline.judge(findings);
    // A record with holes, or none at all, proves nothing: a finding under whichever aspect is asked for, and no
    // figure measured from it.
    std::string lost = r.failure.empty() ? "" : "CUPTI could not record this run (" + r.failure + ")";
    if (lost.empty() && r.dropped > 0)
        lost = "CUPTI dropped " + std::to_string(r.dropped) + " of this run's activity records";
    if (lost.empty() && r.timeline.calls() == 0)
        lost = "no watched call reached the recorder (NVTX_INJECTION64_PATH must name it or CUPTI)";
    if (!lost.empty()) {  // each aspect asked for fails
        for (const char* aspect :
             {cml::schedule::kPinned, cml::schedule::kOverlap, cml::schedule::kReturned, cml::schedule::kPrefetched})
            findings.add(aspect, "Schedule error: " + lost);
        findings.measured(cml::schedule::kOverlap, cml::schedule::no_overlap_figure(lost));
    }
    const bool found = findings.print(stderr, env_int("CML_SCHEDULE_PRINT_LIMIT", 10)) > 0;
    std::fflush(nullptr);
    if (found) _exit(env_int("CML_SCHEDULE_ERROR_EXITCODE", 86));
}

bool ok(CUptiResult result, const char* what)
{
    if (result == CUPTI_SUCCESS) return true;
    const char* said = nullptr;
    cuptiGetResultString(result, &said);
    Recorder& r = recorder();
    std::lock_guard<std::recursive_mutex> lock(r.mutex);
    if (r.failure.empty()) r.failure = std::string(what) + ": " + (said ? said : "unknown error");
    return false;
}

// The GPU's page faults on managed memory, where CUPTI can count them: a driver, a virtual machine or a sandbox
// may refuse (CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED, say), and then the calls that expect prefetching are
// judged not measured, while the rest of the record still counts. Asked for as CUDA loads this library, again
// when a context is made, and again as each watched call begins: inside the driver's first initialisation,
// CUPTI answers CUPTI_ERROR_NOT_READY on an H200. A call is judged only if counting began before it did.
void count_page_faults()
{
    Recorder& r = recorder();
    std::lock_guard<std::recursive_mutex> lock(r.mutex);
    if (r.counting_faults) return;
    CUpti_ActivityUnifiedMemoryCounterConfig faults{};
    faults.scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
    faults.kind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT;
    faults.deviceId = 0;
    faults.enable = 1;
    const char* what = "cuptiActivityConfigureUnifiedMemoryCounter";
    CUptiResult result = cuptiActivityConfigureUnifiedMemoryCounter(&faults, 1);
    if (result == CUPTI_SUCCESS) {
        what = "cuptiActivityEnable(UNIFIED_MEMORY_COUNTER)";
        result = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
    }
    if (result == CUPTI_SUCCESS) {
        r.counting_faults = true;
        r.timeline.faults_counted_from(now());
        return;
    }
    const char* said = nullptr;
    cuptiGetResultString(result, &said);
    r.timeline.faults_not_counted(std::string(what) + ": " + (said ? said : "unknown error"));
}

}  // namespace

// CUDA's injection entry point: called once, as the program first initialises the driver.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void)
{
    std::atexit(at_exit);
    CUpti_SubscriberHandle subscriber = nullptr;
    if (!ok(cuptiSubscribe(&subscriber, on_callback, nullptr), "cuptiSubscribe")) return 1;
    ok(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API), "cuptiEnableDomain(runtime)");
    ok(cuptiEnableDomain(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API), "cuptiEnableDomain(driver)");
    ok(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_NVTX, CUPTI_CBID_NVTX_nvtxRangePushA), "NVTX push");
    ok(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_NVTX, CUPTI_CBID_NVTX_nvtxRangePop), "NVTX pop");
    ok(cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_CONTEXT_CREATED),
       "context created");
    ok(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed), "cuptiActivityRegisterCallbacks");
    ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY), "cuptiActivityEnable(MEMCPY)");
    ok(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), "cuptiActivityEnable(CONCURRENT_KERNEL)");
    count_page_faults();
    return 1;
}
