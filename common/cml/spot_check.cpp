#include "cml/spot_check.hpp"

#include <algorithm>
#include <random>
#include <stdexcept>

namespace cml {

namespace {

// The elements at `at` of an output, each read by read(index), against `want` there; first_bad indexes the whole
// output.
template <class ReadOne>
Comparison compared_at(const std::vector<double>& want, const std::vector<std::size_t>& at, Tolerance tolerance,
                       ReadOne read)
{
    std::vector<float> got_at(at.size());
    std::vector<double> want_at(at.size());
    for (std::size_t i = 0; i < at.size(); ++i) {
        if (at[i] >= want.size()) throw std::out_of_range("compare_at: an element past the output");
        got_at[i] = read(at[i]);
        want_at[i] = want[at[i]];
    }
    Comparison result = compare(got_at, want_at, tolerance);
    if (!result.ok) result.first_bad = at[result.first_bad];
    return result;
}

// kSpotChunks chunks of an output of n elements at random places, each read by read(begin, count, into) and
// compared with `want` there.
template <class Read>
Comparison sampled(std::size_t n, const std::vector<double>& want, Tolerance tolerance, Read read)
{
    if (n != want.size()) throw std::invalid_argument("spot_check: got and want differ in length");
    const std::size_t chunk = std::min(kSpotChunk, n);
    if (chunk == 0) return Comparison{};
    static std::random_device entropy;
    std::uniform_int_distribution<std::size_t> place(0, n - chunk);

    Comparison whole;
    std::vector<float> got_chunk(chunk);
    for (std::size_t c = 0; c < kSpotChunks; ++c) {
        const std::size_t begin = place(entropy);
        read(begin, chunk, got_chunk.data());
        Comparison part = compare(got_chunk.data(), want.data() + begin, chunk, tolerance);
        part.first_bad += begin;
        append(whole, part);
    }
    return whole;
}

}  // namespace

Comparison compare_at(const float* got, const std::vector<double>& want, const std::vector<std::size_t>& at,
                      Tolerance tolerance)
{
    return compared_at(want, at, tolerance, [got](std::size_t j) {
        float value = 0.0f;
        CML_CHECK(cudaMemcpy(&value, got + j, sizeof(float), cudaMemcpyDeviceToHost));
        return value;
    });
}

Comparison spot_check(const DeviceBuffer<float>& got, const std::vector<double>& want, Tolerance tolerance,
                      const std::vector<std::size_t>& also)
{
    Comparison whole = sampled(got.size(), want, tolerance, [&](std::size_t begin, std::size_t count, float* into) {
        CML_CHECK(cudaMemcpy(into, got.data() + begin, count * sizeof(float), cudaMemcpyDeviceToHost));
    });
    if (!also.empty()) append(whole, compare_at(got.data(), want, also, tolerance));
    return whole;
}

Comparison spot_check(const std::vector<float>& got, const std::vector<double>& want, Tolerance tolerance,
                      const std::vector<std::size_t>& also)
{
    Comparison whole = sampled(got.size(), want, tolerance, [&](std::size_t begin, std::size_t count, float* into) {
        std::copy_n(got.data() + begin, count, into);
    });
    if (!also.empty()) append(whole, compared_at(want, also, tolerance, [&](std::size_t j) { return got.at(j); }));
    return whole;
}

}  // namespace cml
