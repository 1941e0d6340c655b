// The schedule check on a GPU: a library CUDA loads into the test program (CUDA_INJECTION64_PATH names it, and
// CUDA calls its InitializeInjection as the program first uses the GPU), which records through CUPTI what the
// watched calls did (cml/watched_call.hpp), and at exit judges them (timeline.hpp) and prints the findings and
// the summary as the CPU emulator does (common/emu/src/schedule.hpp), exiting with CML_SCHEDULE_ERROR_EXITCODE
// when it found anything. Beside the overlap aspect's summary it prints what no emulator can: how much of the
// copies' and of the kernels' time on the GPU ran beside the other, a measurement the grader shows and never
// grades. CML_SCHEDULE names the aspects reported (pinned, overlap, returned, prefetched; all when unset).
//
// What it records: from CUPTI's callbacks, every runtime and driver API call's entry (which watched call issued
// each piece of work, and when), the streams and events made and destroyed, the host memory pinned and unpinned,
// and the NVTX ranges; from its activity record, each copy between host and GPU (its bytes, and which side is
// pageable) and each kernel, with their start and end on the GPU, and the GPU's page faults on managed memory
// (CUPTI's unified memory counters: where they cannot be enabled, as in some virtual machines, prefetching is
// reported as not measured, never as passed). NVTX reaches CUPTI only through NVTX_INJECTION64_PATH; it
// may name this library too, which hands NVTX on to CUPTI's own injection entry (cupti/nvtx_to_cupti.cpp).
#include <cupti.h>
#include <generated_nvtx_meta.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

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

// A runtime call that returned success: what it made, destroyed, pinned, unpinned or waited for.
void runtime_returned(cml::schedule::Timeline& t, CUpti_CallbackId id, const CUpti_CallbackData* api)
{
    const auto address = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p); };
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
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020:
        t.pinned(address(*params_of<cudaMallocHost_v3020_params>(api).ptr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020:
        t.pinned(address(*params_of<cudaHostAlloc_v3020_params>(api).pHost));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000:
        t.pinned(address(params_of<cudaHostRegister_v4000_params>(api).ptr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020:
        t.unpinned(address(params_of<cudaFreeHost_v3020_params>(api).ptr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000:
        t.unpinned(address(params_of<cudaHostUnregister_v4000_params>(api).ptr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000:
        t.managed_allocated(address(*params_of<cudaMallocManaged_v6000_params>(api).devPtr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020:
        t.device_allocated(address(*params_of<cudaMalloc_v3020_params>(api).devPtr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocPitch_v3020:
        t.device_allocated(address(*params_of<cudaMallocPitch_v3020_params>(api).devPtr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaMallocAsync_ptsz_v11020:
        t.device_allocated(address(*params_of<cudaMallocAsync_v11020_params>(api).devPtr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020:  // device or managed memory, whichever it was
        t.managed_freed(address(params_of<cudaFree_v3020_params>(api).devPtr));
        t.device_freed(address(params_of<cudaFree_v3020_params>(api).devPtr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_v11020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaFreeAsync_ptsz_v11020:
        t.device_freed(address(params_of<cudaFreeAsync_v11020_params>(api).devPtr));
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020: {
        cudaStream_t s = params_of<cudaStreamSynchronize_v3020_params>(api).stream;
        t.synchronised(api->correlationId, false, stream_id(api->context, s), now());
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020: {  // returned cudaSuccess: the stream is done
        cudaStream_t s = params_of<cudaStreamQuery_v3020_params>(api).stream;
        t.synchronised(api->correlationId, false, stream_id(api->context, s), now());
        break;
    }
    case CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020:
        t.synchronised(api->correlationId, true, 0, now());
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020:
        t.copied_synchronously(api->correlationId, now());
        break;
    case CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020: {
        const auto& p = params_of<cudaEventRecord_v3020_params>(api);
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
