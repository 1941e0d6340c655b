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

class Event {
public:
    Event() { CML_CHECK(cudaEventCreate(&event_)); }
    ~Event() { cudaEventDestroy(event_); }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const { return event_; }

private:
    cudaEvent_t event_ = nullptr;
};

}  // namespace

Timing time_launches(const std::function<void()>& launch, TimingOptions options)
{
    for (int i = 0; i < options.warmup; ++i) launch();
    CML_CHECK(cudaDeviceSynchronize());

    Event start, stop;
    std::vector<double> samples;
    for (int i = 0; i < options.repeats; ++i) {
        if (options.flush_l2) {
            auto& flush = l2_flush_buffer();
            CML_CHECK(cudaMemsetAsync(flush.data(), i & 0xFF, flush.bytes()));
        }
        CML_CHECK(cudaEventRecord(start.get()));
        launch();
        CML_CHECK(cudaEventRecord(stop.get()));
        CML_CHECK(cudaEventSynchronize(stop.get()));
        float ms = 0.0f;
        CML_CHECK(cudaEventElapsedTime(&ms, start.get(), stop.get()));
        samples.push_back(ms);
    }
    CML_CHECK(cudaGetLastError());

    std::sort(samples.begin(), samples.end());
    Timing timing;
    timing.samples = int(samples.size());
    if (samples.empty()) return timing;
    const std::size_t mid = samples.size() / 2;
    timing.median_ms = samples.size() % 2 ? samples[mid] : (samples[mid - 1] + samples[mid]) / 2.0;
    timing.min_ms = samples.front();
    timing.max_ms = samples.back();
    return timing;
}

}  // namespace cml
