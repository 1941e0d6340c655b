// NVTX's injection entry point, for a recorder that NVTX_INJECTION64_PATH names as well as
// CUDA_INJECTION64_PATH: NVTX is handed on to the entry point of the libcupti the recorder is linked against,
// which delivers the ranges to the recorder's CUPTI callbacks (NVTX reaches CUPTI only through this variable).
#include <cupti.h>
#include <dlfcn.h>

extern "C" __attribute__((visibility("default"))) int InitializeInjectionNvtx2(void* get_export_table)
{
    Dl_info found{};
    if (!dladdr(reinterpret_cast<void*>(&cuptiSubscribe), &found) || !found.dli_fname) return 0;
    void* cupti = dlopen(found.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    using Entry = int (*)(void*);
    auto entry = reinterpret_cast<Entry>(cupti ? dlsym(cupti, "InitializeInjectionNvtx2") : nullptr);
    return entry && entry != &InitializeInjectionNvtx2 ? entry(get_export_table) : 0;
}
