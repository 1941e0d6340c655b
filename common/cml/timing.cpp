#include "cml/timing.hpp"

#include <algorithm>
#include <vector>

#include "cml/device_buffer.hpp"

namespace cml {
namespace {

// A buffer four times the size of L2: writing all of it leaves none of a kernel's data in the cache.
DeviceBuffer<unsigned char>& l2_flush_buffer()
{
    static DeviceBuffer<unsigned char> buffer = [] {
        int device = 0;
        CML_CHECK(cudaGetDevice(&device));
        int l2_bytes = 0;
        CML_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device));
        return DeviceBuffer<unsigned char>(std::size_t(l2_bytes) * 4);
    }();
    return buffer;
}

}  // namespace

Event::Event() { CML_CHECK(cudaEventCreate(&event_)); }
Event::~Event() { cudaEventDestroy(event_); }

double Event::ms_since(const Event& earlier) const
{
    float ms = 0.0f;
    CML_CHECK(cudaEventElapsedTime(&ms, earlier.event_, event_));
    return ms;
}

Timing summarize(std::vector<double> samples_ms)
{
    std::sort(samples_ms.begin(), samples_ms.end());
    Timing timing;
    timing.samples = int(samples_ms.size());
    if (samples_ms.empty()) return timing;
    const std::size_t mid = samples_ms.size() / 2;
    timing.median_ms = samples_ms.size() % 2 ? samples_ms[mid] : (samples_ms[mid - 1] + samples_ms[mid]) / 2.0;
    timing.min_ms = samples_ms.front();
    timing.max_ms = samples_ms.back();
    return timing;
}

void flush_l2(int round)
{
    auto& flush = l2_flush_buffer();
    CML_CHECK(cudaMemsetAsync(flush.data(), round & 0xFF, flush.bytes()));
}

Timing time_launches(const std::function<void()>& launch, TimingOptions options)
{
    for (int i = 0; i < options.warmup; ++i) launch();
    CML_CHECK(cudaDeviceSynchronize());

    Event start, stop;
    std::vector<double> samples;
    for (int i = 0; i < options.repeats; ++i) {
        if (options.flush_l2) flush_l2(i);
        CML_CHECK(cudaEventRecord(start.get()));
        launch();
        CML_CHECK(cudaEventRecord(stop.get()));
        CML_CHECK(cudaEventSynchronize(stop.get()));
        samples.push_back(stop.ms_since(start));
    }
    CML_CHECK(cudaGetLastError());
    return summarize(samples);
}

}  // namespace cml
