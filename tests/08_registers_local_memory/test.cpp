// Correctness of Lab 8: every filter length, images whose sides are not multiples of a warp, a block or a
// strip, the weights past the filter's length ignored, and nothing written past the output.
#include <doctest/doctest.h>

#include <cstddef>
#include <utility>
#include <vector>

#include "cml/compare.hpp"
#include "cml/device_buffer.hpp"
#include "cml/gpu_test.hpp"
#include "cml/random.hpp"
#include "column_filter.hpp"
#include "reference.hpp"

namespace {

// A random input image of (rows + taps - 1) x cols floats, the one column_filter reads for these sizes.
std::vector<float> random_image(int rows, int cols, int taps)
{
    return cml::random_floats(std::size_t(rows + taps - 1) * std::size_t(cols));
}

// Filters `in` into a poisoned output, and compares with the reference within the bound for these inputs.
cml::Comparison check_filter(const std::vector<float>& in, const Filter& filter, int rows, int cols)
{
    cml::DeviceBuffer<float> in_dev(in), out_dev(std::size_t(rows) * std::size_t(cols));
    out_dev.poison();
    column_filter(in_dev.data(), filter, out_dev.data(), rows, cols);
    CML_CHECK(cudaDeviceSynchronize());
    return cml::compare(out_dev.download(), column_filter_reference(in, filter, rows, cols),
                        {0.0, column_filter_error_bound(in, filter)});
}

cml::Comparison check_random(int rows, int cols, int taps)
{
    return check_filter(random_image(rows, cols, taps), random_filter(taps), rows, cols);
}

// Around a warp (32 lanes), a block (256 threads along a row) and a strip (64 rows per thread).
const std::vector<int> kRowEdges = {1, 2, 63, 64, 65, 129};
const std::vector<int> kColumnEdges = {1, 31, 32, 33, 255, 257};

}  // namespace

TEST_SUITE("column filter")
{
    TEST_CASE("matches the CPU reference for every filter length (4, 8, 16 and 32 taps) on a 300 x 257 image" *
              cml::needs_gpu())
    {
        for (int taps : kTapCounts) {
            CAPTURE(taps);
            const cml::Comparison result = check_random(300, 257, taps);
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }

    TEST_CASE("matches the CPU reference for rows 1, 2, 63, 64, 65, 129 and columns 1, 31, 32, 33, 255, 257" *
              cml::needs_gpu())
    {
        for (int taps : {4, kMaxTaps}) {
            for (int rows : kRowEdges) {
                for (int cols : kColumnEdges) {
                    CAPTURE(taps);
                    CAPTURE(rows);
                    CAPTURE(cols);
                    const cml::Comparison result = check_random(rows, cols, taps);
                    CHECK_MESSAGE(result.ok, result.describe());
                }
            }
        }
    }

    TEST_CASE("matches the CPU reference on a tall image (5000 x 3) and a wide one (2 x 70001)" * cml::needs_gpu())
    {
        for (int taps : kTapCounts) {
            CAPTURE(taps);
            const cml::Comparison tall = check_random(5000, 3, taps);
            CHECK_MESSAGE(tall.ok, "5000 x 3: " << tall.describe());
            const cml::Comparison wide = check_random(2, 70001, taps);
            CHECK_MESSAGE(wide.ok, "2 x 70001: " << wide.describe());
        }
    }

    TEST_CASE("uses only the first `taps` weights: the slots past them hold 1000 and change nothing" * cml::needs_gpu())
    {
        // random_filter fills the unused slots with kUnusedWeight; a kernel summing any of them is off by ~1000.
        for (int taps : {4, 8, 16}) {
            CAPTURE(taps);
            const Filter filter = random_filter(taps);
            REQUIRE(filter.weight[taps] == kUnusedWeight);
            const cml::Comparison result = check_filter(random_image(97, 65, taps), filter, 97, 65);
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }

    TEST_CASE("each call filters with the weights it is given: two filters in a row give their own results" *
              cml::needs_gpu())
    {
        const std::vector<float> in = random_image(130, 40, kMaxTaps);
        for (int round = 0; round < 2; ++round) {
            CAPTURE(round);
            const cml::Comparison result = check_filter(in, random_filter(kMaxTaps), 130, 40);
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }

    TEST_CASE("writes every output and nothing past the last, and nothing at all for 0 rows or 0 columns" *
              cml::needs_gpu())
    {
        constexpr int kGuard = 1024;
        constexpr float kSentinel = 12345.0f;
        for (int taps : kTapCounts) {
            for (auto [rows, cols] : {std::pair{65, 33}, std::pair{1, 257}, std::pair{0, 40}, std::pair{40, 0}}) {
                CAPTURE(taps);
                CAPTURE(rows);
                CAPTURE(cols);
                const std::size_t size = std::size_t(rows) * std::size_t(cols);
                const std::vector<float> in = random_image(rows, cols, taps);
                const Filter filter = random_filter(taps);
                cml::DeviceBuffer<float> in_dev(in), out_dev(std::vector<float>(size + kGuard, kSentinel));
                column_filter(in_dev.data(), filter, out_dev.data(), rows, cols);
                CML_CHECK(cudaDeviceSynchronize());
                std::vector<float> after = out_dev.download();
                int overwritten = 0;
                for (std::size_t i = size; i < size + kGuard; ++i) overwritten += after[i] != kSentinel;
                CHECK_MESSAGE(overwritten == 0,
                              overwritten << " of the " << kGuard << " floats after the output were written");
                after.resize(size);
                const cml::Comparison written = cml::compare(after, column_filter_reference(in, filter, rows, cols),
                                                             {0.0, column_filter_error_bound(in, filter)});
                CHECK_MESSAGE(written.ok, written.describe());
            }
        }
    }

    TEST_CASE("matches the CPU reference at the sizes the grader drew for this run, every filter length" *
              cml::needs_grader_sizes())
    {
        for (const std::vector<int>& size : cml::grader_sizes(2, "rows x cols")) {
            for (int taps : kTapCounts) {
                CAPTURE(size[0]);
                CAPTURE(size[1]);
                CAPTURE(taps);
                const cml::Comparison result = check_random(size[0], size[1], taps);
                CHECK_MESSAGE(result.ok, result.describe());
            }
        }
    }
}
