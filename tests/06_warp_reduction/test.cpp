// Correctness of Lab 6: each block's sum, for whole numbers (exact in any order: a lost or doubled element
// shows) and random floats (within the rounding bound), at sizes around a warp and a block, at 1, 3 and 8
// elements per thread; outputs poisoned, a guard zone after the last sum, and n = 0.
// The race this lab is about does not show here: on an H100 the racy pre-Volta code passes every case.
// compute-sanitizer racecheck, run by the grader on this program, is what fails it.
#include <doctest/doctest.h>

#include <functional>
#include <vector>

#include "cml/compare.hpp"
#include "cml/device_buffer.hpp"
#include "cml/gpu_test.hpp"
#include "cml/random.hpp"
#include "reference.hpp"
#include "warp_reduction.hpp"

namespace {

using Launcher = std::function<void(const float*, float*, int, int)>;

const Launcher kUnrolled = block_sums_unrolled;
const Launcher kShuffle = block_sums_shuffle;

cml::Comparison check_block_sums(const Launcher& launch, const std::vector<float>& in, int per_thread, bool whole)
{
    const int n = int(in.size());
    cml::DeviceBuffer<float> in_dev(in), partial(block_count(n, per_thread));
    partial.poison();
    launch(in_dev.data(), partial.data(), n, per_thread);
    CML_CHECK(cudaDeviceSynchronize());
    const double tolerance = block_sum_tolerance(per_thread, max_abs(in), whole);
    return cml::compare(partial.download(), block_sums_reference(in, per_thread), {0.0, tolerance});
}

// Whole numbers in [-8, 8]: at most 2048 x 8 = 2^14 in magnitude per block, so every order is exact.
void check_exact(const Launcher& launch, const std::vector<int>& sizes, const std::vector<int>& per_threads)
{
    constexpr int kMagnitude = 8;
    for (int per_thread : per_threads) {
        for (int n : sizes) {
            CAPTURE(per_thread);
            CAPTURE(n);
            const cml::Comparison result =
                check_block_sums(launch, cml::random_whole_floats(n, kMagnitude), per_thread, true);
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }
}

void check_random_floats(const Launcher& launch, const std::vector<int>& sizes, const std::vector<int>& per_threads)
{
    for (int per_thread : per_threads) {
        for (int n : sizes) {
            CAPTURE(per_thread);
            CAPTURE(n);
            const cml::Comparison result = check_block_sums(launch, cml::random_floats(n), per_thread, false);
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }
}

// Every slot holds a sentinel; the first block_count(n, per_thread) must end up holding the blocks' sums, and a
// kernel that writes past them overwrites the sentinel after them. For n = 0 there is no sum: nothing may change.
void check_every_sum_and_nothing_after_the_last(const Launcher& launch)
{
    constexpr int kGuard = 1024;
    constexpr float kSentinel = 12345.0f;
    for (int per_thread : {1, 8}) {
        for (int n : {0, 1, 257, 4097}) {
            CAPTURE(per_thread);
            CAPTURE(n);
            const int blocks = block_count(n, per_thread);
            const std::vector<float> in = cml::random_floats(n);
            cml::DeviceBuffer<float> in_dev(in);
            cml::DeviceBuffer<float> partial(std::vector<float>(blocks + kGuard, kSentinel));
            launch(in_dev.data(), partial.data(), n, per_thread);
            CML_CHECK(cudaDeviceSynchronize());
            std::vector<float> after = partial.download();
            int overwritten = 0;
            for (int b = blocks; b < blocks + kGuard; ++b) overwritten += after[b] != kSentinel;
            CHECK_MESSAGE(overwritten == 0, overwritten << " of the " << kGuard << " slots after the "
                                                        << blocks << " sums were written");
            after.resize(blocks);
            const double tolerance = block_sum_tolerance(per_thread, max_abs(in), false);
            const cml::Comparison sums = cml::compare(after, block_sums_reference(in, per_thread), {0.0, tolerance});
            CHECK_MESSAGE(sums.ok, sums.describe());
        }
    }
}

// Around a warp (32), a block (256 threads) and a block's span at 3 and 8 per thread (768, 2048).
const std::vector<int> kAwkwardSizes = {1, 31, 32, 33, 255, 256, 257, 767, 769, 2047, 2048, 2049, 100'003};
const std::vector<int> kLargeSizes = {1'000'003, 1 << 20};
const std::vector<int> kRandomSizes = {1000, 65'537};
const std::vector<int> kPerThread = {1, 3, 8};
const std::vector<int> kGradedPerThread = {1, 8};  // the benchmark's two settings

}  // namespace

TEST_SUITE("block_sums_unrolled")
{
    TEST_CASE("unrolled: every block's sum is exact at sizes around a warp and a block, at 1, 3 and 8 per thread" *
              cml::needs_gpu())
    {
        check_exact(kUnrolled, kAwkwardSizes, kPerThread);
    }

    TEST_CASE("unrolled: every block's sum is exact at large sizes, 1000003 and 2^20" * cml::needs_gpu())
    {
        check_exact(kUnrolled, kLargeSizes, kGradedPerThread);
    }

    TEST_CASE("unrolled: matches the double-precision reference within the rounding bound for random floats" *
              cml::needs_gpu())
    {
        check_random_floats(kUnrolled, kRandomSizes, kGradedPerThread);
    }

    TEST_CASE("unrolled: writes the right sum for every block and nothing after the last, nothing at all for n = 0" *
              cml::needs_gpu())
    {
        check_every_sum_and_nothing_after_the_last(kUnrolled);
    }

    TEST_CASE("unrolled: matches the double-precision reference at the sizes the grader drew for this run" *
              cml::needs_grader_sizes())
    {
        for (const std::vector<int>& size : cml::grader_sizes(2, "n x elements per thread"))
            check_random_floats(kUnrolled, {size[0]}, {size[1]});
    }
}

TEST_SUITE("block_sums_shuffle")
{
    TEST_CASE("shuffle: every block's sum is exact at sizes around a warp and a block, at 1, 3 and 8 per thread" *
              cml::needs_gpu())
    {
        check_exact(kShuffle, kAwkwardSizes, kPerThread);
    }

    TEST_CASE("shuffle: every block's sum is exact at large sizes, 1000003 and 2^20" * cml::needs_gpu())
    {
        check_exact(kShuffle, kLargeSizes, kGradedPerThread);
    }

    TEST_CASE("shuffle: matches the double-precision reference within the rounding bound for random floats" *
              cml::needs_gpu())
    {
        check_random_floats(kShuffle, kRandomSizes, kGradedPerThread);
    }

    TEST_CASE("shuffle: writes the right sum for every block and nothing after the last, nothing at all for n = 0" *
              cml::needs_gpu())
    {
        check_every_sum_and_nothing_after_the_last(kShuffle);
    }

    TEST_CASE("shuffle: matches the double-precision reference at the sizes the grader drew for this run" *
              cml::needs_grader_sizes())
    {
        for (const std::vector<int>& size : cml::grader_sizes(2, "n x elements per thread"))
            check_random_floats(kShuffle, {size[0]}, {size[1]});
    }
}
