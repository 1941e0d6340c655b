// The counter checks on a GPU, from the benchmark's own timed run: a library CUDA loads into the benchmark
// (CUDA_INJECTION64_PATH names it, and CUDA calls its InitializeInjection as the program first uses the GPU).
// It counts, with CUPTI's Range Profiling and Profiler Host APIs, the metrics the grader asks for over the
// checked launches it names, and prints each launch's sums on stderr (counted.hpp: count_line) as the launch
// ends. The checked launches are never timed, and each is alone in its NVTX ranges (cml/launches.cpp): the
// profiler is on from the role's range opening to its closing, and off for every timed launch. So one run of
// the benchmark both times the kernels and counts them, where Nsight Compute needed a second run of its own
// (grader/steps/profile.py keeps it for what CUPTI does not count: a launch's shape, and a machine without this
// library).
//
// Asked for by three variables, read as CUDA loads the library and then removed, before any code under test
// runs: CML_COUNTED_LAUNCHES ("group<TAB>role" a line), CML_COUNTER_METRICS ("m1,m2"), and CML_COUNTERS_MARK,
// the word the grader made for this run, which every line of the recorder's carries. Each kernel of a counted
// launch is its own range (CUPTI_AutoRange) and is replayed by CUPTI as often as the metrics need passes
// (CUPTI_KernelReplay, which saves and restores the memory it writes), as Nsight Compute replays it.
#include <cuda.h>
#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>
#include <dlfcn.h>
#include <generated_nvtx_meta.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "counters/counted.hpp"

namespace {

using cml::counters::Count;
using cml::counters::CountedLaunch;

constexpr std::size_t kMostKernels = 64;  // kernels one checked launch may make; more are reported as dropped

struct Recorder {
    std::mutex mutex;
    std::string mark;  // empty: not asked (the variables were missing), so nothing is counted or printed
    std::vector<CountedLaunch> launches;
    std::vector<std::string> metrics;
    std::vector<const char*> metric_names;  // pointers into `metrics`, as CUPTI takes them
    std::vector<std::string> stack;         // the open NVTX ranges, outermost first (one thread's: the
                                            // benchmark's, as a kernel.cu may start no thread of its own)
    bool failed = false;                    // a failure was printed: nothing more is counted
    // Made at the first counted launch, for the whole run.
    CUpti_Profiler_Host_Object* host = nullptr;
    std::vector<std::uint8_t> config;
    // The launch being counted: from its role's range opening to its closing.
    CUpti_RangeProfiler_Object* profiler = nullptr;
    std::vector<std::uint8_t> counter_data;
    std::vector<std::string> launched;  // the kernels launched in its ranges, by the names CUDA gives them
    int counting = -1;      // index in `launches`
    std::size_t depth = 0;  // the stack's size with the role's range open
};

Recorder& recorder()
{
    static Recorder* r = new Recorder;  // never destroyed: a callback may come after static destructors
    return *r;
}

std::string take_variable(const char* name)
{
    const char* value = std::getenv(name);
    std::string taken = value ? value : "";
    unsetenv(name);
    return taken;
}

void print(const std::string& line)
{
    std::fprintf(stderr, "%s\n", line.c_str());
    std::fflush(stderr);
}

// A CUPTI call's failure: printed once, and the recorder stops counting (the grader then asks Nsight Compute).
bool fail(Recorder& r, const std::string& why)
{
    if (!r.failed) print(cml::counters::failure_line(r.mark, why));
    r.failed = true;
    return false;
}

bool ok(Recorder& r, CUptiResult result, const char* what)
{
    if (result == CUPTI_SUCCESS) return true;
    const char* said = nullptr;
    cuptiGetResultString(result, &said);
    return fail(r, std::string(what) + ": " + (said ? said : "unknown error"));
}

// CUPTI's parameters: every field zero but the size CUPTI reads to know which fields the caller has.
template <class Params>
Params params(std::size_t size)
{
    Params p{};
    p.structSize = size;
    return p;
}
#define CML_CUPTI_PARAMS(Type) params<Type>(Type##_STRUCT_SIZE)

// The driver's own functions, from the libcuda that loaded this library (no link to a stub of it); the CUDA
// runtime loads libcuda privately, so its functions are not in the program's global scope.
template <class Function>
Function driver(const char* name)
{
    static void* libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    return reinterpret_cast<Function>(libcuda ? dlsym(libcuda, name) : nullptr);
}

// Once a run, at the first counted launch: CUPTI's profiler, and the configuration of the metrics asked for
// on this GPU's chip.
bool set_up(Recorder& r, CUcontext context)
{
    if (r.host) return true;
    auto initialize = CML_CUPTI_PARAMS(CUpti_Profiler_Initialize_Params);
    if (!ok(r, cuptiProfilerInitialize(&initialize), "cuptiProfilerInitialize")) return false;

    auto get_device = driver<CUresult (*)(CUdevice*)>("cuCtxGetDevice");
    CUdevice device = 0;
    if (!get_device || get_device(&device) != CUDA_SUCCESS) return fail(r, "cuCtxGetDevice failed");
    auto chip = CML_CUPTI_PARAMS(CUpti_Device_GetChipName_Params);
    chip.deviceIndex = static_cast<std::size_t>(device);
    if (!ok(r, cuptiDeviceGetChipName(&chip), "cuptiDeviceGetChipName")) return false;

    auto available = CML_CUPTI_PARAMS(CUpti_Profiler_GetCounterAvailability_Params);
    available.ctx = context;
    if (!ok(r, cuptiProfilerGetCounterAvailability(&available), "cuptiProfilerGetCounterAvailability")) return false;
    std::vector<std::uint8_t> availability(available.counterAvailabilityImageSize);
    available.pCounterAvailabilityImage = availability.data();
    if (!ok(r, cuptiProfilerGetCounterAvailability(&available), "cuptiProfilerGetCounterAvailability")) return false;

    auto host = CML_CUPTI_PARAMS(CUpti_Profiler_Host_Initialize_Params);
    host.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    host.pChipName = chip.pChipName;
    host.pCounterAvailabilityImage = availability.data();
    if (!ok(r, cuptiProfilerHostInitialize(&host), "cuptiProfilerHostInitialize")) return false;

    auto add = CML_CUPTI_PARAMS(CUpti_Profiler_Host_ConfigAddMetrics_Params);
    add.pHostObject = host.pHostObject;
    add.ppMetricNames = r.metric_names.data();
    add.numMetrics = r.metric_names.size();
    if (!ok(r, cuptiProfilerHostConfigAddMetrics(&add), "cuptiProfilerHostConfigAddMetrics")) return false;
    auto size = CML_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImageSize_Params);
    size.pHostObject = host.pHostObject;
    if (!ok(r, cuptiProfilerHostGetConfigImageSize(&size), "cuptiProfilerHostGetConfigImageSize")) return false;
    r.config.resize(size.configImageSize);
    auto image = CML_CUPTI_PARAMS(CUpti_Profiler_Host_GetConfigImage_Params);
    image.pHostObject = host.pHostObject;
    image.configImageSize = r.config.size();
    image.pConfigImage = r.config.data();
    if (!ok(r, cuptiProfilerHostGetConfigImage(&image), "cuptiProfilerHostGetConfigImage")) return false;
    r.host = host.pHostObject;
    return true;
}

// The role's range of a counted launch opened: the profiler on, every kernel from here its own range.
void begin(Recorder& r, int launch)
{
    auto get_current = driver<CUresult (*)(CUcontext*)>("cuCtxGetCurrent");
    CUcontext context = nullptr;
    if (!get_current || get_current(&context) != CUDA_SUCCESS || !context) {
        fail(r, "no CUDA context where a counted launch began");
        return;
    }
    if (!set_up(r, context)) return;
    auto enable = CML_CUPTI_PARAMS(CUpti_RangeProfiler_Enable_Params);
    enable.ctx = context;
    if (!ok(r, cuptiRangeProfilerEnable(&enable), "cuptiRangeProfilerEnable")) return;
    r.profiler = enable.pRangeProfilerObject;

    auto size = CML_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataSize_Params);
    size.pRangeProfilerObject = r.profiler;
    size.pMetricNames = r.metric_names.data();
    size.numMetrics = r.metric_names.size();
    size.maxNumOfRanges = kMostKernels;
    size.maxNumRangeTreeNodes = kMostKernels;
    if (!ok(r, cuptiRangeProfilerGetCounterDataSize(&size), "cuptiRangeProfilerGetCounterDataSize")) return;
    r.counter_data.assign(size.counterDataSize, 0);
    auto init = CML_CUPTI_PARAMS(CUpti_RangeProfiler_CounterDataImage_Initialize_Params);
    init.pRangeProfilerObject = r.profiler;
    init.counterDataSize = r.counter_data.size();
    init.pCounterData = r.counter_data.data();
    if (!ok(r, cuptiRangeProfilerCounterDataImageInitialize(&init), "cuptiRangeProfilerCounterDataImageInitialize"))
        return;

    auto config = CML_CUPTI_PARAMS(CUpti_RangeProfiler_SetConfig_Params);
    config.pRangeProfilerObject = r.profiler;
    config.configSize = r.config.size();
    config.pConfig = r.config.data();
    config.counterDataImageSize = r.counter_data.size();
    config.pCounterDataImage = r.counter_data.data();
    config.range = CUPTI_AutoRange;
    config.replayMode = CUPTI_KernelReplay;
    config.maxRangesPerPass = kMostKernels;
    config.numNestingLevels = 1;
    config.minNestingLevel = 1;
    config.passIndex = 0;
    config.targetNestingLevel = 1;
    if (!ok(r, cuptiRangeProfilerSetConfig(&config), "cuptiRangeProfilerSetConfig")) return;
    auto start = CML_CUPTI_PARAMS(CUpti_RangeProfiler_Start_Params);
    start.pRangeProfilerObject = r.profiler;
    if (!ok(r, cuptiRangeProfilerStart(&start), "cuptiRangeProfilerStart")) return;
    r.counting = launch;
    r.depth = r.stack.size();
}

// The profiler off again, whatever happened: no timed launch runs under it.
void disable(Recorder& r)
{
    if (!r.profiler) return;
    auto disable = CML_CUPTI_PARAMS(CUpti_RangeProfiler_Disable_Params);
    disable.pRangeProfilerObject = r.profiler;
    ok(r, cuptiRangeProfilerDisable(&disable), "cuptiRangeProfilerDisable");
    r.profiler = nullptr;
}

// The role's range closed: each kernel's values, summed, in one line.
void end(Recorder& r)
{
    Count count;
    count.launch = r.counting;
    count.names.swap(r.launched);
    r.counting = -1;
    auto stop = CML_CUPTI_PARAMS(CUpti_RangeProfiler_Stop_Params);
    stop.pRangeProfilerObject = r.profiler;
    auto decode = CML_CUPTI_PARAMS(CUpti_RangeProfiler_DecodeData_Params);
    decode.pRangeProfilerObject = r.profiler;
    auto info = CML_CUPTI_PARAMS(CUpti_RangeProfiler_GetCounterDataInfo_Params);
    info.pCounterDataImage = r.counter_data.data();
    info.counterDataImageSize = r.counter_data.size();
    const bool read = ok(r, cuptiRangeProfilerStop(&stop), "cuptiRangeProfilerStop") &&
                      ok(r, cuptiRangeProfilerDecodeData(&decode), "cuptiRangeProfilerDecodeData") &&
                      ok(r, cuptiRangeProfilerGetCounterDataInfo(&info), "cuptiRangeProfilerGetCounterDataInfo");
    if (read) {
        count.kernels = info.numTotalRanges;
        count.dropped = decode.numOfRangeDropped;
        count.values.assign(r.metrics.size(), 0.0);
        std::vector<double> values(r.metrics.size());
        for (std::size_t range = 0; range < info.numTotalRanges; ++range) {
            auto evaluate = CML_CUPTI_PARAMS(CUpti_Profiler_Host_EvaluateToGpuValues_Params);
            evaluate.pHostObject = r.host;
            evaluate.pCounterDataImage = r.counter_data.data();
            evaluate.counterDataImageSize = r.counter_data.size();
            evaluate.rangeIndex = range;
            evaluate.ppMetricNames = r.metric_names.data();
            evaluate.numMetrics = r.metric_names.size();
            evaluate.pMetricValues = values.data();
            if (!ok(r, cuptiProfilerHostEvaluateToGpuValues(&evaluate), "cuptiProfilerHostEvaluateToGpuValues")) break;
            for (std::size_t m = 0; m < values.size(); ++m) count.values[m] += values[m];
        }
    }
    disable(r);
    if (!r.failed) print(cml::counters::count_line(r.mark, count));
}

// A kernel launched while a counted launch's ranges are open: its name, for the checks that read the machine code
// of the kernels a checked launch made (grader/grading/checks.py: sass_check).
void launched(Recorder& r, const CUpti_CallbackData* call)
{
    if (r.counting < 0 || call->callbackSite != CUPTI_API_ENTER || !call->symbolName) return;
    const std::string name = call->symbolName;
    if (r.launched.size() < kMostKernels && std::find(r.launched.begin(), r.launched.end(), name) == r.launched.end())
        r.launched.push_back(name);
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId id, const void* data)
{
    Recorder& r = recorder();
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        std::lock_guard<std::mutex> lock(r.mutex);
        launched(r, static_cast<const CUpti_CallbackData*>(data));
        return;
    }
    if (domain != CUPTI_CB_DOMAIN_NVTX) return;
    std::lock_guard<std::mutex> lock(r.mutex);
    const auto* nvtx = static_cast<const CUpti_NvtxData*>(data);
    if (id == CUPTI_CBID_NVTX_nvtxRangePushA) {
        const char* message = static_cast<const nvtxRangePushA_params*>(nvtx->functionParams)->message;
        r.stack.emplace_back(message ? message : "");
        if (r.counting < 0 && !r.failed) {
            const int launch = cml::counters::launch_at(r.launches, r.stack);
            if (launch >= 0) {
                begin(r, launch);
                if (r.counting < 0) disable(r);  // a failure half-way: the profiler stays off
            }
        }
    } else if (id == CUPTI_CBID_NVTX_nvtxRangePop && !r.stack.empty()) {
        if (r.counting >= 0 && r.stack.size() == r.depth) end(r);
        r.stack.pop_back();
    }
}

}  // namespace

// CUDA's injection entry point: called once, as the program first initialises the driver.
extern "C" __attribute__((visibility("default"))) int InitializeInjection(void)
{
    Recorder& r = recorder();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.launches = cml::counters::parse_launches(take_variable("CML_COUNTED_LAUNCHES"));
    r.metrics = cml::counters::parse_metrics(take_variable("CML_COUNTER_METRICS"));
    r.mark = take_variable("CML_COUNTERS_MARK");
    if (r.mark.empty()) return 1;
    for (const std::string& metric : r.metrics) r.metric_names.push_back(metric.c_str());
    if (r.launches.empty() || r.metrics.empty()) return fail(r, "asked to count no launch or no metric"), 1;
    CUpti_SubscriberHandle subscriber = nullptr;
    if (!ok(r, cuptiSubscribe(&subscriber, on_callback, nullptr), "cuptiSubscribe")) return 1;
    ok(r, cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_NVTX, CUPTI_CBID_NVTX_nvtxRangePushA), "NVTX push");
    ok(r, cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_NVTX, CUPTI_CBID_NVTX_nvtxRangePop), "NVTX pop");
    // Every way a kernel.cu launches a kernel (<<<>>> is cudaLaunchKernel): the kernels a counted launch makes.
    for (CUpti_CallbackId launch : {CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
                                    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
                                    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060})
        ok(r, cuptiEnableCallback(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API, launch), "a kernel's launch");
    return 1;
}
