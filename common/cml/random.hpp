// Seeded random inputs. The seed is fresh each run unless CML_SEED is set; test and benchmark mains
// print it, so any failure can be replayed with the same data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <random>
#include <vector>

namespace cml {

// The run's seed: CML_SEED when set, otherwise drawn once from std::random_device.
std::uint64_t run_seed();

// The generator random inputs are drawn from on this thread: the run's, seeded with run_seed(), unless a
// RandomStream is open on this thread.
std::mt19937_64& rng();

// For its lifetime, rng() on this thread is a generator of its own, seeded with the run's seed and `stream`:
// what a benchmark instance draws is then the same whichever thread builds it, and in whatever order.
class RandomStream {
public:
    explicit RandomStream(std::uint64_t stream);
    ~RandomStream();
    RandomStream(const RandomStream&) = delete;
    RandomStream& operator=(const RandomStream&) = delete;

private:
    std::mt19937_64 generator_;
    std::mt19937_64* previous_;
};

// Values are drawn in chunks of this many on every core, each chunk from a generator of its own.
constexpr std::size_t kRandomChunk = std::size_t(1) << 20;

// fill(begin, end, generator) for consecutive chunks [begin, end) of 0 <= i < n, kRandomChunk long, on every
// core, each chunk with a generator of its own seeded from one draw of rng() and the chunk's number: the values
// depend on the run's seed alone, however many threads draw them, and 64M of them take a fraction of a second.
void for_each_random_chunk(std::size_t n,
                           const std::function<void(std::size_t, std::size_t, std::mt19937_64&)>& fill);

// n values of `distribution`, as T: up to kRandomChunk of them straight from rng(), as all inputs were drawn
// before the chunked draw existed (so a seed still gives the same inputs to a test case of that size, and a
// count measured with it on a GPU still holds), more of them by for_each_random_chunk (a benchmark's).
template <class T, class Distribution>
std::vector<T> random_values(std::size_t n, const Distribution& distribution)
{
    std::vector<T> values(n);
    auto fill = [&](std::size_t begin, std::size_t end, std::mt19937_64& generator) {
        Distribution chunk_distribution = distribution;  // a copy per chunk: a distribution may keep state
        for (std::size_t i = begin; i < end; ++i) values[i] = T(chunk_distribution(generator));
    };
    if (n <= kRandomChunk) {
        fill(0, n, rng());
    } else {
        for_each_random_chunk(n, fill);
    }
    return values;
}

// n floats drawn uniformly from [lo, hi).
std::vector<float> random_floats(std::size_t n, float lo = -1.0f, float hi = 1.0f);

// n whole numbers drawn uniformly from [-magnitude, magnitude], as floats: sums of them are exact in fp32
// while they stay below 2^24.
std::vector<float> random_whole_floats(std::size_t n, int magnitude);

}  // namespace cml
