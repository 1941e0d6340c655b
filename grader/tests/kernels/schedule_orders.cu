// Watched calls, each made the way a Lab 10 pipeline might be, for the CPU emulator's schedule check: what orders
// the work (each stream's order, events, the legacy default stream), what the host waited for (a synchronise, or
// a loop of queries), and what the host read. grader/tests/emulator/test_emulator_api.py runs it under the check and finds
// each call named *_fails in the findings it must make, and no call named *_passes in any.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstring>

#include "cml/watched_call.hpp"

namespace {

constexpr int kFloats = 1024;
constexpr std::size_t kBytes = kFloats * sizeof(float);
constexpr int kHalf = kFloats / 2;
constexpr std::size_t kHalfBytes = kBytes / 2;

__global__ void twice(const float* in, float* out, int n)
{
    for (int i = int(threadIdx.x); i < n; i += int(blockDim.x)) out[i] = 2.0f * in[i];
}

struct Buffers {
    float* in = nullptr;       // the caller's, pinned by registration
    float* out = nullptr;
    float* staged = nullptr;   // a pinned buffer of the call's own
    float* in_dev = nullptr;
    float* out_dev = nullptr;
};

constexpr unsigned kCopies = cml::kExpectPinnedCopies | cml::kExpectTwoStreams;

void wait(cudaStream_t stream)
{
    while (cudaStreamQuery(stream) == cudaErrorNotReady) {
    }
}

}  // namespace

int main()
{
    Buffers b;
    b.in = new float[kFloats];
    b.out = new float[kFloats];
    for (int i = 0; i < kFloats; ++i) b.in[i] = float(i);
    cudaHostRegister(b.in, kBytes, cudaHostRegisterDefault);
    cudaHostRegister(b.out, kBytes, cudaHostRegisterDefault);
    cudaMallocHost(&b.staged, kBytes);
    cudaMalloc(&b.in_dev, kBytes);
    cudaMalloc(&b.out_dev, kBytes);
    cudaStream_t s[3] = {};
    for (cudaStream_t& stream : s) cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    cudaEvent_t e[2] = {};
    for (cudaEvent_t& event : e) cudaEventCreateWithFlags(&event, cudaEventDisableTiming);
    const cml::CallBuffers whole = {b.in, kBytes, b.out, kBytes};

    // Two halves on two streams, each waited for by a loop of queries.
    cml::watched_call("halves_on_two_streams_queried_passes", kCopies, whole, [&] {
        for (int h = 0; h < 2; ++h) {
            cudaMemcpyAsync(b.in_dev + h * kHalf, b.in + h * kHalf, kHalfBytes, cudaMemcpyHostToDevice, s[h]);
            twice<<<1, 64, 0, s[h]>>>(b.in_dev + h * kHalf, b.out_dev + h * kHalf, kHalf);
            cudaMemcpyAsync(b.out + h * kHalf, b.out_dev + h * kHalf, kHalfBytes, cudaMemcpyDeviceToHost, s[h]);
        }
        wait(s[0]);
        wait(s[1]);
    });
    // The second half's copy in waits for an event recorded after the first half's copy back: no overlap.
    cml::watched_call("halves_chained_by_an_event_fails", kCopies, whole, [&] {
        for (int h = 0; h < 2; ++h) {
            if (h == 1) cudaStreamWaitEvent(s[1], e[0], 0);
            cudaMemcpyAsync(b.in_dev + h * kHalf, b.in + h * kHalf, kHalfBytes, cudaMemcpyHostToDevice, s[h]);
            twice<<<1, 64, 0, s[h]>>>(b.in_dev + h * kHalf, b.out_dev + h * kHalf, kHalf);
            cudaMemcpyAsync(b.out + h * kHalf, b.out_dev + h * kHalf, kHalfBytes, cudaMemcpyDeviceToHost, s[h]);
            if (h == 0) cudaEventRecord(e[0], s[0]);
        }
        cudaDeviceSynchronize();
    });
    // The copy back on a third stream, with nothing ordering it after the kernel that writes its bytes. (What a
    // kernel writes is what differs after it: the device output is cleared first, so that these bytes change.)
    cudaMemset(b.out_dev, 0, kBytes);
    cml::watched_call("copy_back_not_after_its_kernel_fails", cml::kExpectPinnedCopies, whole, [&] {
        cudaMemcpyAsync(b.in_dev, b.in, kBytes, cudaMemcpyHostToDevice, s[0]);
        twice<<<1, 64, 0, s[0]>>>(b.in_dev, b.out_dev, kFloats);
        cudaMemcpyAsync(b.out, b.out_dev, kBytes, cudaMemcpyDeviceToHost, s[2]);
        cudaDeviceSynchronize();
    });
    // The same, ordered by an event recorded after the kernel.
    cudaMemset(b.out_dev, 0, kBytes);
    cml::watched_call("copy_back_after_its_kernels_event_passes", cml::kExpectPinnedCopies, whole, [&] {
        cudaMemcpyAsync(b.in_dev, b.in, kBytes, cudaMemcpyHostToDevice, s[0]);
        twice<<<1, 64, 0, s[0]>>>(b.in_dev, b.out_dev, kFloats);
        cudaEventRecord(e[1], s[0]);
        cudaStreamWaitEvent(s[2], e[1], 0);
        cudaMemcpyAsync(b.out, b.out_dev, kBytes, cudaMemcpyDeviceToHost, s[2]);
        while (cudaEventQuery(e[1]) == cudaErrorNotReady) {
        }
        wait(s[2]);
    });
    // Through the staging buffer, read before its copy back is waited for.
    cml::watched_call("staging_read_too_soon_fails", cml::kExpectPinnedCopies, whole, [&] {
        std::memcpy(b.staged, b.in, kBytes);
        cudaMemcpyAsync(b.in_dev, b.staged, kBytes, cudaMemcpyHostToDevice, s[0]);
        twice<<<1, 64, 0, s[0]>>>(b.in_dev, b.out_dev, kFloats);
        cudaMemcpyAsync(b.staged, b.out_dev, kBytes, cudaMemcpyDeviceToHost, s[0]);
        std::memcpy(b.out, b.staged, kBytes);
        cudaStreamSynchronize(s[0]);
    });
    // One query, its answer dropped: no wait.
    cml::watched_call("one_query_fails", cml::kExpectPinnedCopies, whole, [&] {
        cudaMemcpyAsync(b.in_dev, b.in, kBytes, cudaMemcpyHostToDevice, s[0]);
        twice<<<1, 64, 0, s[0]>>>(b.in_dev, b.out_dev, kFloats);
        cudaMemcpyAsync(b.out, b.out_dev, kBytes, cudaMemcpyDeviceToHost, s[0]);
        (void)cudaStreamQuery(s[0]);
    });
    cudaDeviceSynchronize();

    float* in_managed = nullptr;
    float* out_managed = nullptr;
    cudaMallocManaged(&in_managed, kBytes);
    cudaMallocManaged(&out_managed, kBytes);
    const cudaMemLocation device{cudaMemLocationTypeDevice, 0}, host{cudaMemLocationTypeHost, 0};
    // Prefetched on a second stream that nothing orders the kernel after, and the results read with no
    // prefetch back: both halves of the prefetched check.
    cml::watched_call("prefetch_unordered_and_none_back_fails", cml::kExpectPrefetched, whole, [&] {
        std::memcpy(in_managed, b.in, kBytes);
        cudaMemPrefetchAsync(in_managed, kBytes, device, 0, s[1]);
        cudaMemPrefetchAsync(out_managed, kBytes, device, 0, s[1]);
        twice<<<1, 64, 0, s[0]>>>(in_managed, out_managed, kFloats);
        cudaDeviceSynchronize();
        std::memcpy(b.out, out_managed, kBytes);
    });
    cml::watched_call("prefetched_both_ways_passes", cml::kExpectPrefetched, whole, [&] {
        std::memcpy(in_managed, b.in, kBytes);
        cudaMemPrefetchAsync(in_managed, kBytes, device, 0, s[0]);
        cudaMemPrefetchAsync(out_managed, kBytes, device, 0, s[0]);
        twice<<<1, 64, 0, s[0]>>>(in_managed, out_managed, kFloats);
        cudaMemPrefetchAsync(out_managed, kBytes, host, 0, s[0]);
        wait(s[0]);
        std::memcpy(b.out, out_managed, kBytes);
    });

    cudaFree(in_managed);
    cudaFree(out_managed);
    for (cudaEvent_t event : e) cudaEventDestroy(event);
    for (cudaStream_t stream : s) cudaStreamDestroy(stream);
    cudaFree(b.in_dev);
    cudaFree(b.out_dev);
    cudaFreeHost(b.staged);
    cudaHostUnregister(b.in);
    cudaHostUnregister(b.out);
    delete[] b.in;
    delete[] b.out;
    return 0;
}
