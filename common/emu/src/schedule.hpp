// The schedule check (CML_EMU_CHECK=schedule): a log of what the runtime API was asked to do with host memory
// and streams, as a GPU would run it. The emulator runs every call at once, but the log keeps each copy and
// kernel pending on its stream until the host waits for that stream (a synchronise, an event, a query that
// says it is done), so it knows what a GPU would still be doing at each point of the program.
//
// What it judges is the calls the test program marks with an NVTX range "cml call: NAME; expects: ..."
// (cml/watched_call.hpp), at their end: work still pending (and a copy to the host still pending is a race with
// the caller's read of it), streams, events, pinned, managed and device memory the call made and left alive; and
// during them,
// with the expectations the range names, copies from pageable memory or fewer bytes copied each way than the
// range states ("pinned copies of IN bytes in and OUT bytes out"), never two streams with work in flight
// together ("2 streams") and kernels that would take page faults on managed memory ("prefetched").
// CML_EMU_SCHEDULE picks the aspects reported: pinned, overlap, returned, prefetched (a comma list; all of them
// when unset).
//
// Where managed pages are is known from the prefetches alone: an allocation is the GPU's once one prefetch to the
// device covered all of it (or a kernel faulted it in), and no longer once any of it was prefetched to the host.
// A kernel is taken to touch every managed allocation it is given a pointer into (its arguments are read, not
// its accesses), and the host's own reads and writes of managed memory are not seen.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace cml_emu::schedule {

bool on();  // CML_EMU_CHECK names schedule

void pinned(const void* start, std::size_t bytes);  // cudaMallocHost, cudaHostAlloc, cudaHostRegister
void unpinned(const void* start);                    // cudaFreeHost, cudaHostUnregister

void stream_created(cudaStream_t stream, bool blocking);
void stream_destroyed(cudaStream_t stream);
void event_created(cudaEvent_t event);
void event_destroyed(cudaEvent_t event);
void event_recorded(cudaEvent_t event, cudaStream_t stream);

// A copy of `moved` bytes between [host, host + span) and the device (to_host: device to host), on `stream`;
// `async`: a cudaMemcpy*Async, else one the host waits for, which also waits for the legacy default stream's work.
void host_copy(const void* host, std::size_t span, std::size_t moved, bool to_host, cudaStream_t stream, bool async);
// A launch on `stream`, given the bytes of its arguments (read for pointers into managed memory).
void kernel(cudaStream_t stream, const void* arguments, std::size_t argument_bytes);

void managed_allocated(const void* start, std::size_t bytes);  // cudaMallocManaged
void managed_freed(const void* start);                          // cudaFree of it
void device_allocated(const void* start);  // cudaMalloc, cudaMallocAsync, cudaMallocPitch
void device_freed(const void* start);      // cudaFree, cudaFreeAsync
// cudaMemPrefetchAsync of [start, start + bytes), inside one managed allocation, to the device or to the host.
void prefetched(const void* start, std::size_t bytes, bool to_device, cudaStream_t stream);

void synchronised_device();
void synchronised_stream(cudaStream_t stream);  // cudaStreamSynchronize, or a cudaStreamQuery that said done
void synchronised_event(cudaEvent_t event);     // cudaEventSynchronize, or a cudaEventQuery that said done

// NVTX ranges, as the emulator's NVTX injection sees them: a "cml call: " range starts and ends a watched call.
void range_pushed(const char* message);
void range_popped();

// At exit: the summary line; true when the check found anything.
bool print_summary();

}  // namespace cml_emu::schedule
