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

// Its work has always finished here: the host learns as much as from a synchronise.
cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    cml_emu::schedule::synchronised_stream(stream);
    return api_result(cudaSuccess);
}

// Work runs in the order it was asked for: a later call on `stream` already comes after the event.
cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t event, unsigned int)
{
    return api_result(event ? cudaSuccess : cudaErrorInvalidResourceHandle);
}

}  // extern "C"
