// The runtime API of streams. Every call runs to its end before it returns here, so a stream is only a name; the
// schedule check (schedule.hpp) keeps what each would mean on a GPU. Pinned memory is host_memory.cpp's.
#include <cuda_runtime_api.h>

#include "runtime_state.hpp"
#include "schedule.hpp"

namespace {

struct Stream {
    unsigned flags = cudaStreamDefault;
};

}  // namespace

using cml_emu::api_result;

extern "C" {

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags)
{
    if (!stream || (flags & ~unsigned(cudaStreamNonBlocking)) != 0) return api_result(cudaErrorInvalidValue);
    *stream = reinterpret_cast<cudaStream_t>(new Stream{flags});
    cml_emu::schedule::stream_created(*stream, (flags & cudaStreamNonBlocking) == 0);
    return api_result(cudaSuccess);
}

cudaError_t cudaStreamCreate(cudaStream_t* stream) { return cudaStreamCreateWithFlags(stream, cudaStreamDefault); }

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int)
{
    return cudaStreamCreateWithFlags(stream, flags);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    if (!stream) return api_result(cudaErrorInvalidResourceHandle);
    cml_emu::schedule::stream_destroyed(stream);
    delete reinterpret_cast<Stream*>(stream);
    return api_result(cudaSuccess);
}

// Its work has always finished here, but the schedule check answers as a GPU would while work runs: not ready
// once, then done (schedule.hpp). Not ready is no error: cudaGetLastError does not keep it.
cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    const cudaError_t state = api_result(cudaSuccess);
    if (state != cudaSuccess) return state;
    return cml_emu::schedule::stream_query(stream) ? cudaSuccess : cudaErrorNotReady;
}

// Work runs in the order it was asked for here; the schedule check keeps what the wait orders on a GPU.
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int)
{
    if (!event) return api_result(cudaErrorInvalidResourceHandle);
    cml_emu::schedule::stream_waits(stream, event);
    return api_result(cudaSuccess);
}

}  // extern "C"
