// Lab 10 variant: Parts A and B without the copies they teach. Part A maps the caller's buffers (cudaHostRegister
// with cudaHostRegisterMapped) and its kernel reads and writes them over the bus, with no copy at all; Part B
// copies each chunk's input to the GPU on its stream but writes its output straight into the caller's mapped
// buffer. Part C and the stretch as the solution. The results are right, and the pinned memory is pinned: only the
// copies' bytes show that the data never went through the copy engines.
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

// Page-locks one of the caller's buffers for the length of one pipeline: the copy engines read and write it
// directly, instead of through the driver's small pinned buffer a piece at a time. Registration is not free
// (every page is locked, and mapped for the GPU), and the pipeline's time includes it. It neither reads nor
// writes the data, so the const input may be registered.
void pin(const float* host, std::size_t bytes)
{
    CML_CHECK(cudaHostRegister(const_cast<float*>(host), bytes, cudaHostRegisterDefault));
}

void unpin(const float* host) { CML_CHECK(cudaHostUnregister(const_cast<float*>(host))); }

// Pins one of the caller's buffers and maps it for the GPU: its address there, which a kernel reads and writes
// across the bus.
float* map(const float* host, std::size_t bytes)
{
    CML_CHECK(cudaHostRegister(const_cast<float*>(host), bytes, cudaHostRegisterMapped));
    float* on_gpu = nullptr;
    CML_CHECK(cudaHostGetDevicePointer(&on_gpu, const_cast<float*>(host), 0));
    return on_gpu;
}

// Where a prefetch moves managed pages: the GPU the pipeline runs on, or the host.
cudaMemLocation on_device()
{
    int device = 0;
    CML_CHECK(cudaGetDevice(&device));
    return cudaMemLocation{cudaMemLocationTypeDevice, device};
}

cudaMemLocation on_host() { return cudaMemLocation{cudaMemLocationTypeHost, 0}; }

}  // namespace

// ---- Part A: pinned memory ----

void pipeline_pinned(const float* in, float* out, int n)
{
    if (n == 0) return;
    const std::size_t bytes = std::size_t(n) * sizeof(float);
    const float* in_on_gpu = map(in, bytes);
    float* out_on_gpu = map(out, bytes);

    launch_polynomial(in_on_gpu, out_on_gpu, n, nullptr);
    CML_CHECK(cudaDeviceSynchronize());  // out is the caller's once the kernel's writes over the bus have ended

    unpin(in);
    unpin(out);
}

// ---- Part B: copies that overlap the GPU's work ----

void pipeline_overlapped(const float* in, float* out, int n)
{
    if (n == 0) return;
    const std::size_t bytes = std::size_t(n) * sizeof(float);
    float* in_dev = nullptr;
    CML_CHECK(cudaMalloc(&in_dev, bytes));
    pin(in, bytes);
    float* out_on_gpu = map(out, bytes);
    cudaStream_t streams[kStreams] = {};
    for (cudaStream_t& stream : streams) CML_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    // Chunk c goes to stream c % kStreams: within a stream its copy in, polynomial and copy back run in order,
    // and the copy engines and the SMs take work from whichever stream has some ready.
    const int chunk = cml::ceil_div(n, kChunks);
    for (int c = 0; c < kChunks && c * chunk < n; ++c) {
        const int first = c * chunk;
        const int count = std::min(chunk, n - first);
        const std::size_t chunk_bytes = std::size_t(count) * sizeof(float);
        cudaStream_t stream = streams[c % kStreams];
        CML_CHECK(cudaMemcpyAsync(in_dev + first, in + first, chunk_bytes, cudaMemcpyHostToDevice, stream));
        launch_polynomial(in_dev + first, out_on_gpu + first, count, stream);  // no copy back: written in place
    }

    for (cudaStream_t stream : streams) {
        CML_CHECK(cudaStreamSynchronize(stream));
        CML_CHECK(cudaStreamDestroy(stream));
    }
    unpin(in);
    unpin(out);
    CML_CHECK(cudaFree(in_dev));
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
    std::copy(in, in + n, in_managed);  // the host's first touch: the pages are the host's now
    cudaStream_t stream = nullptr;
    CML_CHECK(cudaStreamCreate(&stream));

    // Moved in bulk before the kernel, the pages cross the bus at a copy's speed; left where they are, each page
    // the kernel touches first stops its warps for a fault, and the driver moves it alone. The output too: a
    // page the GPU writes first is a fault as well.
    CML_CHECK(cudaMemPrefetchAsync(in_managed, bytes, on_device(), 0, stream));
    CML_CHECK(cudaMemPrefetchAsync(out_managed, bytes, on_device(), 0, stream));
    launch_polynomial(in_managed, out_managed, n, stream);
    // The results back in one move, rather than a fault per page of the host's reads below.
    CML_CHECK(cudaMemPrefetchAsync(out_managed, bytes, on_host(), 0, stream));
    CML_CHECK(cudaStreamSynchronize(stream));  // the host may touch the managed pages once the stream is done
    std::copy(out_managed, out_managed + n, out);

    CML_CHECK(cudaStreamDestroy(stream));
    CML_CHECK(cudaFree(in_managed));
    CML_CHECK(cudaFree(out_managed));
}

// ---- Stretch: zero-copy ----

const bool pipeline_zero_copy_attempted = true;

void pipeline_zero_copy(const float* in, float* out, int n, int passes)
{
    if (n == 0) return;
    const std::size_t bytes = std::size_t(n) * sizeof(float);
    // Pinned and mapped: the GPU reads and writes these pages where they are, over the bus, and no copy engine
    // moves them. Every pass reads in_mapped over the bus again.
    float* in_mapped = nullptr;
    float* out_mapped = nullptr;
    CML_CHECK(cudaHostAlloc(&in_mapped, bytes, cudaHostAllocMapped));
    CML_CHECK(cudaHostAlloc(&out_mapped, bytes, cudaHostAllocMapped));
    std::copy(in, in + n, in_mapped);
    float* in_on_gpu = nullptr;
    float* out_on_gpu = nullptr;
    CML_CHECK(cudaHostGetDevicePointer(&in_on_gpu, in_mapped, 0));
    CML_CHECK(cudaHostGetDevicePointer(&out_on_gpu, out_mapped, 0));

    launch_passes(in_on_gpu, out_on_gpu, n, passes, nullptr);
    CML_CHECK(cudaDeviceSynchronize());  // the kernels' writes to out_mapped are the host's to read once they end
    std::copy(out_mapped, out_mapped + n, out);

    CML_CHECK(cudaFreeHost(in_mapped));
    CML_CHECK(cudaFreeHost(out_mapped));
}
