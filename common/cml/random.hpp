// Seeded random inputs. The seed is fresh each run unless CML_SEED is set; test and benchmark mains
// print it, so any failure can be replayed with the same data.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace cml {

// The run's seed: CML_SEED when set, otherwise drawn once from std::random_device.
std::uint64_t run_seed();

// The run's generator, seeded with run_seed().
std::mt19937_64& rng();

// n floats drawn uniformly from [lo, hi).
std::vector<float> random_floats(std::size_t n, float lo = -1.0f, float hi = 1.0f);

}  // namespace cml
