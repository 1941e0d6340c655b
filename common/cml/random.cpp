#include "cml/random.hpp"

#include <cstdlib>
#include <string>

namespace cml {

std::uint64_t run_seed()
{
    static const std::uint64_t seed = []() -> std::uint64_t {
        if (const char* fixed = std::getenv("CML_SEED"); fixed && *fixed) return std::stoull(fixed);
        std::random_device device;
        return (std::uint64_t{device()} << 32) ^ device();
    }();
    return seed;
}

std::mt19937_64& rng()
{
    static std::mt19937_64 generator(run_seed());
    return generator;
}

std::vector<float> random_floats(std::size_t n, float lo, float hi)
{
    std::uniform_real_distribution<float> uniform(lo, hi);
    std::vector<float> values(n);
    for (float& value : values) value = uniform(rng());
    return values;
}

}  // namespace cml
