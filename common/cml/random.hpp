// Seeded random inputs. The seed is fresh each run unless CML_SEED is set; test and benchmark mains
// print it, so any failure can be replayed with the same data.
#pragma once

#include <cstdint>
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

// n floats drawn uniformly from [lo, hi).
std::vector<float> random_floats(std::size_t n, float lo = -1.0f, float hi = 1.0f);

}  // namespace cml
