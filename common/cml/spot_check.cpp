#include "cml/spot_check.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

namespace cml {

Comparison spot_check(const DeviceBuffer<float>& got, const std::vector<double>& want, Tolerance tolerance)
{
    if (got.size() != want.size()) throw std::invalid_argument("spot_check: got and want differ in length");
    const std::size_t n = got.size();
    const std::size_t chunk = std::min(kSpotChunk, n);
    if (chunk == 0) return Comparison{};
    static std::random_device entropy;
    std::uniform_int_distribution<std::size_t> place(0, n - chunk);

    Comparison whole;
    std::vector<float> got_chunk(chunk);
    for (std::size_t c = 0; c < kSpotChunks; ++c) {
        const std::size_t begin = place(entropy);
        CML_CHECK(cudaMemcpy(got_chunk.data(), got.data() + begin, chunk * sizeof(float), cudaMemcpyDeviceToHost));
        Comparison part = compare(got_chunk.data(), want.data() + begin, chunk, tolerance);
        part.first_bad += begin;
        append(whole, part);
    }
    return whole;
}

}  // namespace cml
