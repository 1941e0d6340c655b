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

namespace {

thread_local std::mt19937_64* stream_generator = nullptr;  // the RandomStream open on this thread, if any

}  // namespace

std::mt19937_64& rng()
{
    static std::mt19937_64 generator(run_seed());
    return stream_generator != nullptr ? *stream_generator : generator;
}

RandomStream::RandomStream(std::uint64_t stream) : previous_(stream_generator)
{
    const std::uint64_t seed = run_seed();
    std::seed_seq seeds{std::uint32_t(seed), std::uint32_t(seed >> 32), std::uint32_t(stream), std::uint32_t(stream >> 32)};
    generator_.seed(seeds);
    stream_generator = &generator_;
}

RandomStream::~RandomStream() { stream_generator = previous_; }

std::vector<float> random_floats(std::size_t n, float lo, float hi)
{
    std::uniform_real_distribution<float> uniform(lo, hi);
    std::vector<float> values(n);
    for (float& value : values) value = uniform(rng());
    return values;
}

}  // namespace cml
