#include "cml/spot_check.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

namespace cml {

Comparison compare_at(const float* got, const std::vector<double>& want, const std::vector<std::size_t>& at,
                      Tolerance tolerance)
{
    std::vector<float> got_at(at.size());
    std::vector<double> want_at(at.size());
    for (std::size_t i = 0; i < at.size(); ++i) {
        if (at[i] >= want.size()) throw std::out_of_range("compare_at: an element past the output");
        CML_CHECK(cudaMemcpy(&got_at[i], got + at[i], sizeof(float), cudaMemcpyDeviceToHost));
        want_at[i] = want[at[i]];
    }
    Comparison result = compare(got_at, want_at, tolerance);
    if (!result.ok) result.first_bad = at[result.first_bad];
    return result;
}

Comparison spot_check(const DeviceBuffer<float>& got, const std::vector<double>& want, Tolerance tolerance,
                      const std::vector<std::size_t>& also)
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
    if (!also.empty()) append(whole, compare_at(got.data(), want, also, tolerance));
    return whole;
}

}  // namespace cml
