// Correctness of Lab 1: random inputs, poisoned outputs, awkward sizes, and a guard zone past the end.
#include <doctest/doctest.h>

#include <functional>
#include <vector>

#include "cml/compare.hpp"
#include "cml/device_buffer.hpp"
#include "cml/gpu_test.hpp"
#include "cml/random.hpp"
#include "reference.hpp"
#include "vector_add.hpp"

namespace {

using Launcher = std::function<void(const float*, const float*, float*, int)>;

const Launcher kVectorAdd = vector_add;
const Launcher kVectorAddFloat4 = vector_add_float4;

// Runs `launch` on fresh random inputs of size n into a poisoned output; compares with the CPU reference.
cml::Comparison check_size(const Launcher& launch, int n)
{
    const std::vector<float> a = cml::random_floats(n), b = cml::random_floats(n);
    cml::DeviceBuffer<float> a_dev(a), b_dev(b), c_dev(n);
    c_dev.poison();
    launch(a_dev.data(), b_dev.data(), c_dev.data(), n);
    CML_CHECK(cudaDeviceSynchronize());
    return cml::compare(c_dev.download(), vector_add_reference(a, b), {cml::Tolerance{kSumRelTol, 0.0}});
}

void check_sizes(const Launcher& launch, const std::vector<int>& sizes)
{
    for (int n : sizes) {
        CAPTURE(n);
        const cml::Comparison result = check_size(launch, n);
        CHECK_MESSAGE(result.ok, result.describe());
    }
}

// Elements past n hold a sentinel, which a kernel without a bounds check overwrites; the first n must
// hold the sums.
void check_every_element_and_nothing_past_n(const Launcher& launch, int n)
{
    constexpr int kGuard = 1024;
    constexpr float kSentinel = 12345.0f;
    const std::vector<float> a = cml::random_floats(n), b = cml::random_floats(n);
    cml::DeviceBuffer<float> a_dev(a), b_dev(b);
    std::vector<float> c(n + kGuard, kSentinel);
    cml::DeviceBuffer<float> c_dev(c);
    launch(a_dev.data(), b_dev.data(), c_dev.data(), n);
    CML_CHECK(cudaDeviceSynchronize());
    std::vector<float> after = c_dev.download();
    int overwritten = 0;
    for (int i = n; i < n + kGuard; ++i) overwritten += after[i] != kSentinel;
    CAPTURE(n);
    CHECK_MESSAGE(overwritten == 0, overwritten << " of the " << kGuard << " elements after c[n-1] were written");
    after.resize(n);
    const cml::Comparison written = cml::compare(after, vector_add_reference(a, b), {kSumRelTol, 0.0});
    CHECK_MESSAGE(written.ok, written.describe());
}

const std::vector<int> kWarpEdges = {0, 1, 31, 32, 33, 255, 257};
const std::vector<int> kLargeSizes = {1'000'003 /* prime */, 1 << 24, (1 << 24) + 1};

}  // namespace

TEST_SUITE("vector_add")
{
    TEST_CASE("matches the CPU reference at sizes around a warp and a block (0, 1, 31, 32, 33, 255, 257)" *
              cml::needs_gpu())
    {
        check_sizes(kVectorAdd, kWarpEdges);
    }

    TEST_CASE("matches the CPU reference at a large prime size, 2^24 and 2^24 + 1" * cml::needs_gpu())
    {
        check_sizes(kVectorAdd, kLargeSizes);
    }

    TEST_CASE("writes every element and nothing past n" * cml::needs_gpu())
    {
        for (int n : {1, 33, 1000, 4097}) check_every_element_and_nothing_past_n(kVectorAdd, n);
    }

    TEST_CASE("matches the CPU reference at the sizes the grader drew for this run" * cml::needs_grader_sizes())
    {
        for (const std::vector<int>& size : cml::grader_sizes(1, "n"))
            check_every_element_and_nothing_past_n(kVectorAdd, size[0]);
    }
}

TEST_SUITE("stretch: vector_add_float4")
{
    TEST_CASE("float4: matches the CPU reference at sizes that are not a multiple of 4" *
              cml::needs_gpu(vector_add_float4_attempted))
    {
        check_sizes(kVectorAddFloat4, {1, 2, 3, 4, 5, 7, 33, 1023, 1025, 1'000'003});
    }

    TEST_CASE("float4: matches the CPU reference at 2^24 + 3" * cml::needs_gpu(vector_add_float4_attempted))
    {
        check_sizes(kVectorAddFloat4, {(1 << 24) + 3});
    }

    TEST_CASE("float4: writes every element and nothing past n" * cml::needs_gpu(vector_add_float4_attempted))
    {
        for (int n : {1, 3, 6, 1001}) check_every_element_and_nothing_past_n(kVectorAddFloat4, n);
    }
}
