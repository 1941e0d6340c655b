// The schedule check (CML_EMU_CHECK=schedule): a log of what the runtime API was asked to do with host memory,
// streams and events, as a GPU would run it. The emulator runs every call at once, but the log keeps the order
// CUDA defines (common/schedule/order.hpp: each stream's order, events, the legacy default stream) and what the
// host has learned is done (a synchronise, a cudaMemcpy, a query that said done), so it knows, at each point of
// the program, which copies and kernels a GPU might still be running and which could run at the same time.
//
// What it judges is the calls the test program marks with an NVTX range "cml call: NAME; expects: ...; buffers:
// ..." (cml/watched_call.hpp), which also says where the caller's input and output are. At a call's end: work
// the host never waited for (a copy to the host so is a race with the caller's read), streams, events, pinned,
// managed and device memory the call made and left alive. During it: a copy to the host and a kernel over the same device
// bytes with nothing ordering them (a race); the host reading a copy's bytes before it waited for the copy (a copy
// to pinned memory delivers its bytes when the host learns it is done, and until then the memory holds a marked
// pattern that, found in the caller's output, shows the early read); and, as the mark asks, the data followed
// through pinned copies (common/schedule/data_path.hpp), a copy and a kernel of two streams that could run at
// once ("2 streams"), and managed memory prefetched ("prefetched": to the GPU before the kernel on its order, and
// back to the host after it where the host reads the results). CML_EMU_SCHEDULE picks the aspects reported:
// pinned, overlap, returned, prefetched (a comma list; all of them when unset).
//
// Where managed pages are is known from the prefetches alone: an allocation is the GPU's for a kernel once one
// prefetch to the device covered all of it, ordered before the kernel (or a kernel faulted it in), and no longer
// once any of it was prefetched to the host. A kernel is taken to touch every managed allocation it is given a
// pointer into (its arguments are read, not its accesses), and to write the device bytes that differ after it
// ran (under this check only, the allocations it is given are compared before and after). The host's own reads
// of managed memory are not seen: the results it read are the managed allocation whose bytes the caller's output
// holds when it is freed.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace cml_emu::schedule {

bool on();  // CML_EMU_CHECK names schedule

// cudaMallocHost, cudaHostAlloc, cudaHostRegister; `mapped`: reachable by kernels.
void pinned(const void* start, std::size_t bytes, bool mapped);
void unpinned(const void* start);  // cudaFreeHost, cudaHostUnregister: before the memory is let go
void mapped_for_gpu();             // cudaHostGetDevicePointer

void stream_created(cudaStream_t stream, bool blocking);
void stream_destroyed(cudaStream_t stream);
void stream_waits(cudaStream_t stream, cudaEvent_t event);  // cudaStreamWaitEvent
void event_created(cudaEvent_t event);
void event_destroyed(cudaEvent_t event);
void event_recorded(cudaEvent_t event, cudaStream_t stream);

// cudaStreamQuery and cudaEventQuery: true (done) where the host already knows all of it is done; otherwise the
// first query answers not ready, as a GPU would while the work runs, and the next one done, which the host then
// knows. A loop of queries is a wait; a single query is not.
bool stream_query(cudaStream_t stream);
bool event_query(cudaEvent_t event);

// Host memory a copy made now will read or write: a copy into it still owed is delivered first.
void host_touched(const void* start, std::size_t bytes);
// A copy of `moved` bytes between [host, host + span) and the device at `device` (to_host: device to host), made
// already, on `stream`; `async`: a cudaMemcpy*Async, else one the host waits for, on the legacy default stream.
void host_copy(const void* host, std::size_t span, const void* device, std::size_t moved, bool to_host,
               cudaStream_t stream, bool async);
// A launch on `stream`, given the bytes of its arguments (read for pointers), before it runs; then after it ran.
void kernel(cudaStream_t stream, const void* arguments, std::size_t argument_bytes);
void kernel_ran();

void managed_allocated(const void* start, std::size_t bytes);  // cudaMallocManaged
void managed_freed(const void* start);                          // cudaFree of it, before it is freed
void device_allocated(const void* start);  // cudaMalloc, cudaMallocAsync, cudaMallocPitch
void device_freed(const void* start);      // cudaFree, cudaFreeAsync
// cudaMemPrefetchAsync of [start, start + bytes), inside one managed allocation, to the device or to the host.
void prefetched(const void* start, std::size_t bytes, bool to_device, cudaStream_t stream);

void synchronised_device();
void synchronised_stream(cudaStream_t stream);  // cudaStreamSynchronize
void synchronised_event(cudaEvent_t event);     // cudaEventSynchronize

// NVTX ranges, as the emulator's NVTX injection sees them: a "cml call: " range starts and ends a watched call.
void range_pushed(const char* message);
void range_popped();

// At exit: the summary line; true when the check found anything.
bool print_summary();

}  // namespace cml_emu::schedule
