#include "cml/random.hpp"

#include <cstdlib>
#include <string>

#include "cml/parallel.hpp"

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

// `generator` seeded with both words of `seed` and of `stream`: one stream of numbers per (seed, stream).
void seed_stream(std::mt19937_64& generator, std::uint64_t seed, std::uint64_t stream)
{
    std::seed_seq seeds{std::uint32_t(seed), std::uint32_t(seed >> 32), std::uint32_t(stream), std::uint32_t(stream >> 32)};
    generator.seed(seeds);
}

}  // namespace

std::mt19937_64& rng()
{
    static std::mt19937_64 generator(run_seed());
    return stream_generator != nullptr ? *stream_generator : generator;
}

RandomStream::RandomStream(std::uint64_t stream) : previous_(stream_generator)
{
    seed_stream(generator_, run_seed(), stream);
    stream_generator = &generator_;
}

RandomStream::~RandomStream() { stream_generator = previous_; }

void for_each_random_chunk(std::size_t n,
                           const std::function<void(std::size_t, std::size_t, std::mt19937_64&)>& fill)
{
    const std::uint64_t base = rng()();
    parallel_ranges(n, kRandomChunk, [&](std::size_t begin, std::size_t end) {
        std::mt19937_64 generator;
        seed_stream(generator, base, begin / kRandomChunk);
        fill(begin, end, generator);
    });
}

std::vector<float> random_floats(std::size_t n, float lo, float hi)
{
    return random_values<float>(n, std::uniform_real_distribution<float>(lo, hi));
}

std::vector<float> random_whole_floats(std::size_t n, int magnitude)
{
    return random_values<float>(n, std::uniform_int_distribution<int>(-magnitude, magnitude));
}

}  // namespace cml
