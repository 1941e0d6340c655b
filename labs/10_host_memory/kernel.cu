// Lab 10: host memory. The only file you edit; the handout is README.md beside it.
// The same pipeline each time: host to GPU, a polynomial of each element, back to host. Part A pins the host
// memory and copies it with cudaMemcpyAsync; Part B cuts the array into chunks over several streams, so that
// the copies of some chunks overlap the arithmetic of others; Part C moves managed memory with prefetches instead
// of the GPU's page faults.
#include <algorithm>

#include "host_memory.hpp"

namespace {

constexpr int kBlock = 256;

__global__ void polynomial_kernel(const float* __restrict__ in, float* __restrict__ out, int n)
{
    const int i = int(blockIdx.x) * blockDim.x + int(threadIdx.x);
    if (i < n) out[i] = polynomial(in[i]);
}

void launch_polynomial(const float* in, float* out, int n, cudaStream_t stream)
{
    polynomial_kernel<<<cml::ceil_div(n, kBlock), kBlock, 0, stream>>>(in, out, n);
    CML_CHECK_LAUNCH();
}

// Every pass after the first adds the polynomial to what the passes before it wrote.
__global__ void polynomial_added_kernel(const float* __restrict__ in, float* __restrict__ out, int n)
{
    const int i = int(blockIdx.x) * blockDim.x + int(threadIdx.x);
    if (i < n) out[i] += polynomial(in[i]);
}

// `passes` kernels over the same input, in order on `stream`: each one reads all of in again.
void launch_passes(const float* in, float* out, int n, int passes, cudaStream_t stream)
{
    launch_polynomial(in, out, n, stream);
    for (int pass = 1; pass < passes; ++pass) {
        polynomial_added_kernel<<<cml::ceil_div(n, kBlock), kBlock, 0, stream>>>(in, out, n);
        CML_CHECK_LAUNCH();
    }
}

}  // namespace

// ---- Part A: pinned memory ----

void pipeline_pinned(const float* in, float* out, int n)
{
    if (n == 0) return;
    const std::size_t bytes = std::size_t(n) * sizeof(float);
    float* in_dev = nullptr;
    float* out_dev = nullptr;
    CML_CHECK(cudaMalloc(&in_dev, bytes));
    CML_CHECK(cudaMalloc(&out_dev, bytes));
    cudaStream_t stream = nullptr;  // the default stream, until TODO 1 creates one
    // TODO 1: page-lock the caller's buffers and create a stream. Then delete the CML_TODO line.
    //   Hint: cudaHostRegister(pointer, bytes, cudaHostRegisterDefault) on in (cast away its const: registering
    //   reads nothing) and on out; cudaStreamCreate(&stream). Check each call with CML_CHECK.
    CML_TODO("TODO 1: pin in and out, and create a stream (labs/10_host_memory/kernel.cu)");

    // TODO 2: copy in to in_dev with cudaMemcpyAsync on the stream, launch the polynomial on the same stream,
    //   copy out_dev back to out, and wait for the stream. Then delete the CML_TODO line.
    //   Hint: launch_polynomial already takes a stream. Until the stream is synchronised, out is not yours to
    //   read, and neither is it the caller's.
    CML_TODO("TODO 2: copy in, compute, copy back, on one stream (labs/10_host_memory/kernel.cu)");
    launch_polynomial(in_dev, out_dev, n, stream);

    // TODO 3: undo TODO 1: cudaStreamDestroy, and cudaHostUnregister of in and out. Then delete the CML_TODO
    //   line. A pinned page or a stream left behind outlives the call, and fails the lab.
    CML_TODO("TODO 3: destroy the stream and unpin the buffers (labs/10_host_memory/kernel.cu)");
    CML_CHECK(cudaFree(in_dev));
    CML_CHECK(cudaFree(out_dev));
    (void)in;
    (void)out;
}

// ---- Part B: copies that overlap the GPU's work ----

void pipeline_overlapped(const float* in, float* out, int n)
{
    // TODO 4: pin in and out as in Part A, allocate in_dev and out_dev, and create kStreams streams. Then delete
    //   the CML_TODO line.
    //   Hint: cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), so that no stream waits for the default one.
    CML_TODO("TODO 4: pin, allocate, and create kStreams streams (labs/10_host_memory/kernel.cu)");

    // TODO 5: cut [0, n) into kChunks chunks of cml::ceil_div(n, kChunks) floats (the last one shorter, and none
    //   at all where n < kChunks leaves them empty). Give chunk c to stream c % kStreams: its copy in, its
    //   polynomial and its copy back, all three on that stream, at the chunk's offset. Then delete the CML_TODO line.
    //   Hint: the handout draws the timeline this makes ("Three engines, one timeline").
    CML_TODO("TODO 5: each chunk's copy in, polynomial and copy back on its stream (labs/10_host_memory/kernel.cu)");

    // TODO 6: wait for every stream, then destroy them, free the device memory and unpin in and out. Then delete
    //   the CML_TODO line.
    CML_TODO("TODO 6: synchronise, then release everything (labs/10_host_memory/kernel.cu)");
    (void)in;
    (void)out;
    (void)n;
}

// ---- Part C: managed memory ----

void pipeline_managed(const float* in, float* out, int n)
{
    if (n == 0) return;
    const std::size_t bytes = std::size_t(n) * sizeof(float);
    float* in_managed = nullptr;
    float* out_managed = nullptr;
    CML_CHECK(cudaMallocManaged(&in_managed, bytes));
    CML_CHECK(cudaMallocManaged(&out_managed, bytes));
    std::copy(in, in + n, in_managed);  // the host writes the inputs where the GPU will read them
    cudaStream_t stream = nullptr;
    CML_CHECK(cudaStreamCreate(&stream));

    // TODO 7: prefetch in_managed and out_managed to the GPU on the stream, before the kernel. Then delete the
    //   CML_TODO line.
    //   Hint: cudaMemPrefetchAsync(pointer, bytes, location, 0, stream), with location
    //   cudaMemLocation{cudaMemLocationTypeDevice, device} and the device from cudaGetDevice.
    CML_TODO("TODO 7: prefetch both managed buffers to the GPU (labs/10_host_memory/kernel.cu)");
    launch_polynomial(in_managed, out_managed, n, stream);

    // TODO 8: prefetch out_managed back to the host on the stream, and wait for the stream before the copy below
    //   reads it. Then delete the CML_TODO line.
    //   Hint: cudaMemLocation{cudaMemLocationTypeHost, 0}.
    CML_TODO("TODO 8: prefetch the results to the host, then synchronise (labs/10_host_memory/kernel.cu)");
    std::copy(out_managed, out_managed + n, out);

    CML_CHECK(cudaStreamDestroy(stream));
    CML_CHECK(cudaFree(in_managed));
    CML_CHECK(cudaFree(out_managed));
}

// ---- Stretch (optional): zero-copy ----

// TODO 9 (stretch, optional): the passes with no copy at all. Allocate two mapped pinned buffers of n floats
//   (cudaHostAlloc(&pointer, bytes, cudaHostAllocMapped)), copy in into one with std::copy, and ask
//   cudaHostGetDevicePointer(&device_pointer, pointer, 0) for the address each has on the GPU. Then set the flag
//   below to true, so that the stretch is tested and timed.
// TODO 10 (stretch): launch_passes(the GPU's address of the input's buffer, of the output's, n, passes, 0) reads
//   and writes the host's memory directly; wait for it (cudaDeviceSynchronize) before the host reads the results,
//   std::copy them to out, and cudaFreeHost both buffers.
//   Hint: the benchmark times this beside the same passes with copies ("zero-copy, 1 pass" and "zero-copy, 2
//   passes"); the handout's stretch section says what to look for in the two.
const bool pipeline_zero_copy_attempted = false;

void pipeline_zero_copy(const float* in, float* out, int n, int passes)
{
    (void)in, (void)out, (void)n, (void)passes;
}
