// Lab 10 variant (wrong): Part C prefetches both managed buffers on the legacy default stream, then launches the
// kernel on a non-blocking stream of its own, which nothing orders after them; Parts A and B as the solution.
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

// Page-locks one of the caller's buffers for the length of one pipeline: the copy engines read and write it
// directly, instead of through the driver's small pinned buffer a piece at a time. Registration is not free
// (every page is locked, and mapped for the GPU), and the pipeline's time includes it. It neither reads nor
// writes the data, so the const input may be registered.
void pin(const float* host, std::size_t bytes)
{
    CML_CHECK(cudaHostRegister(const_cast<float*>(host), bytes, cudaHostRegisterDefault));
}

void unpin(const float* host) { CML_CHECK(cudaHostUnregister(const_cast<float*>(host))); }

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
    float* in_dev = nullptr;
    float* out_dev = nullptr;
    CML_CHECK(cudaMalloc(&in_dev, bytes));
    CML_CHECK(cudaMalloc(&out_dev, bytes));
    pin(in, bytes);
    pin(out, bytes);
    cudaStream_t stream = nullptr;
    CML_CHECK(cudaStreamCreate(&stream));

    CML_CHECK(cudaMemcpyAsync(in_dev, in, bytes, cudaMemcpyHostToDevice, stream));
    launch_polynomial(in_dev, out_dev, n, stream);
    CML_CHECK(cudaMemcpyAsync(out, out_dev, bytes, cudaMemcpyDeviceToHost, stream));
    CML_CHECK(cudaStreamSynchronize(stream));  // out is the caller's once the copy back has finished

    CML_CHECK(cudaStreamDestroy(stream));
    unpin(in);
    unpin(out);
    CML_CHECK(cudaFree(in_dev));
    CML_CHECK(cudaFree(out_dev));
}

// ---- Part B: copies that overlap the GPU's work ----

void pipeline_overlapped(const float* in, float* out, int n)
{
    if (n == 0) return;
    const std::size_t bytes = std::size_t(n) * sizeof(float);
    float* in_dev = nullptr;
    float* out_dev = nullptr;
    CML_CHECK(cudaMalloc(&in_dev, bytes));
    CML_CHECK(cudaMalloc(&out_dev, bytes));
    pin(in, bytes);
    pin(out, bytes);
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
        launch_polynomial(in_dev + first, out_dev + first, count, stream);
        CML_CHECK(cudaMemcpyAsync(out + first, out_dev + first, chunk_bytes, cudaMemcpyDeviceToHost, stream));
    }

    for (cudaStream_t stream : streams) {
        CML_CHECK(cudaStreamSynchronize(stream));
        CML_CHECK(cudaStreamDestroy(stream));
    }
    unpin(in);
    unpin(out);
    CML_CHECK(cudaFree(in_dev));
    CML_CHECK(cudaFree(out_dev));
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
    std::copy(in, in + n, in_managed);
    cudaStream_t stream = nullptr;
    CML_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    // The prefetches go to the default stream, the kernel to its own: a non-blocking stream waits for nothing of
    // the default stream's, so the kernel may start before the pages arrive.
    CML_CHECK(cudaMemPrefetchAsync(in_managed, bytes, on_device(), 0, nullptr));
    CML_CHECK(cudaMemPrefetchAsync(out_managed, bytes, on_device(), 0, nullptr));
    launch_polynomial(in_managed, out_managed, n, stream);
    CML_CHECK(cudaMemPrefetchAsync(out_managed, bytes, on_host(), 0, stream));
    CML_CHECK(cudaDeviceSynchronize());
    std::copy(out_managed, out_managed + n, out);

    CML_CHECK(cudaStreamDestroy(stream));
    CML_CHECK(cudaFree(in_managed));
    CML_CHECK(cudaFree(out_managed));
}

const bool pipeline_zero_copy_attempted = false;

void pipeline_zero_copy(const float* in, float* out, int n, int passes)
{
    (void)in, (void)out, (void)n, (void)passes;
}
