// Correctness of Lab 2: whole-number inputs, whose sums are exact in any order (they catch a product lost or
// added twice), random floats within the rounding bound, awkward sizes, n = 0 and 1, and a result that the
// launcher sets itself. Every result starts poisoned (NaN) or stale.
#include <doctest/doctest.h>

#include <functional>
#include <vector>

#include "cml/compare.hpp"
#include "cml/device_buffer.hpp"
#include "cml/gpu_test.hpp"
#include "cml/random.hpp"
#include "dot_product.hpp"
#include "reference.hpp"

namespace {

using Launcher = std::function<void(const float*, const float*, float*, int)>;

const Launcher kDotProduct = dot_product;
const Launcher kGridStride = dot_product_grid_stride;

// Runs `launch` `calls` times on a and b into a result that starts as `initial` (the poison pattern unless
// given), and compares the final value with the reference.
cml::Comparison check_dot(const Launcher& launch, const std::vector<float>& a, const std::vector<float>& b,
                          int calls = 1, const float* initial = nullptr)
{
    const int n = int(a.size());
    cml::DeviceBuffer<float> a_dev(a), b_dev(b), result(1);
    if (initial) {
        result.upload({*initial});
    } else {
        result.poison();
    }
    for (int call = 0; call < calls; ++call) launch(a_dev.data(), b_dev.data(), result.data(), n);
    CML_CHECK(cudaDeviceSynchronize());
    const DotReference want = dot_reference(a, b);
    return cml::compare(result.download(), {want.value}, {0.0, dot_tolerance(want)});
}

// Whole numbers in [-magnitude, magnitude]: with magnitude^2 n <= 2^24 the float sum is exact in any order.
void check_exact(const Launcher& launch, const std::vector<int>& sizes, int magnitude)
{
    for (int n : sizes) {
        CAPTURE(n);
        REQUIRE(double(magnitude) * magnitude * n <= double(1 << 24));
        const cml::Comparison result =
            check_dot(launch, cml::random_whole_floats(n, magnitude), cml::random_whole_floats(n, magnitude));
        CHECK_MESSAGE(result.ok, result.describe());
    }
}

void check_random_floats(const Launcher& launch, const std::vector<int>& sizes)
{
    for (int n : sizes) {
        CAPTURE(n);
        const cml::Comparison result = check_dot(launch, cml::random_floats(n), cml::random_floats(n));
        CHECK_MESSAGE(result.ok, result.describe());
    }
}

void check_sets_result_itself(const Launcher& launch)
{
    constexpr int n = 1000;
    constexpr float kStale = 1.0e6f;  // what an earlier call might have left behind
    const std::vector<float> a = cml::random_whole_floats(n, 4), b = cml::random_whole_floats(n, 4);
    const cml::Comparison result = check_dot(launch, a, b, 2, &kStale);
    CHECK_MESSAGE(result.ok, result.describe());
}

void check_zero_and_one(const Launcher& launch)
{
    cml::DeviceBuffer<float> a(1), b(1), result(1);
    result.poison();
    launch(a.data(), b.data(), result.data(), 0);
    CML_CHECK(cudaDeviceSynchronize());
    const float empty_sum = result.download()[0];
    CHECK_MESSAGE(empty_sum == 0.0f, "n = 0 must set *result to 0, got " << empty_sum);

    // One product, rounded once to float: the tolerance is half an ulp of it.
    const cml::Comparison one = check_dot(launch, cml::random_floats(1), cml::random_floats(1));
    CHECK_MESSAGE(one.ok, "n = 1: " << one.describe());
}

// Around a warp (32) and a block (256 in the solution; any power of two up to 1024 is met by some size).
const std::vector<int> kAwkwardSizes = {2, 31, 32, 33, 255, 256, 257, 511, 513, 1023, 1025, 4097};
// Large: thousands of blocks, a prime number of elements, and many passes of a grid-stride loop (an H100 runs
// 132 x 2048 = 270336 threads at once).
const std::vector<int> kLargeSizes = {1'000'003, (1 << 22) + 1};
const std::vector<int> kRandomSizes = {2, 3, 100, 1000, 4097, 65'537};

}  // namespace

TEST_SUITE("dot_product")
{
    TEST_CASE("adds every product exactly once at sizes around a warp and a block (whole numbers: exact)" *
              cml::needs_gpu())
    {
        check_exact(kDotProduct, kAwkwardSizes, 4);
    }

    TEST_CASE("adds every product exactly once at large sizes, 1000003 and 2^22 + 1 (whole numbers: exact)" *
              cml::needs_gpu())
    {
        check_exact(kDotProduct, kLargeSizes, 1);
    }

    TEST_CASE("matches the double-precision reference within the rounding bound for random floats" *
              cml::needs_gpu())
    {
        check_random_floats(kDotProduct, kRandomSizes);
    }

    TEST_CASE("sets *result itself: a stale value is not added to, and two calls give the sum, not twice it" *
              cml::needs_gpu())
    {
        check_sets_result_itself(kDotProduct);
    }

    TEST_CASE("n = 0 gives 0, and n = 1 gives a[0] * b[0]" * cml::needs_gpu())
    {
        check_zero_and_one(kDotProduct);
    }

    TEST_CASE("matches the double-precision reference at the sizes the grader drew for this run" *
              cml::needs_grader_sizes())
    {
        for (const std::vector<int>& size : cml::grader_sizes(1, "n")) check_random_floats(kDotProduct, {size[0]});
    }
}

TEST_SUITE("stretch: dot_product_grid_stride")
{
    TEST_CASE("grid-stride: adds every product exactly once at sizes around a warp and a block" *
              cml::needs_gpu(dot_product_grid_stride_attempted))
    {
        check_exact(kGridStride, kAwkwardSizes, 4);
    }

    TEST_CASE("grid-stride: adds every product exactly once at large sizes, 1000003 and 2^22 + 1" *
              cml::needs_gpu(dot_product_grid_stride_attempted))
    {
        check_exact(kGridStride, kLargeSizes, 1);
    }

    TEST_CASE("grid-stride: matches the double-precision reference within the rounding bound for random floats" *
              cml::needs_gpu(dot_product_grid_stride_attempted))
    {
        check_random_floats(kGridStride, kRandomSizes);
    }

    TEST_CASE("grid-stride: sets *result itself, and n = 0 gives 0" *
              cml::needs_gpu(dot_product_grid_stride_attempted))
    {
        check_sets_result_itself(kGridStride);
        check_zero_and_one(kGridStride);
    }
}
