// Correctness of Lab 11: histograms of text and of an image (a few hot bins), of uniform bytes, and of input
// whose bytes are all equal (every atomic on one bin), at sizes around a warp and a block and at large ragged
// ones, and enough equal bytes that a block's bin passes 16 bits; n = 0; bins the launcher sets itself. Counts
// are exact: one byte lost or counted twice fails.
#include <doctest/doctest.h>

#include <functional>
#include <vector>

#include "cml/compare.hpp"
#include "cml/device_buffer.hpp"
#include "cml/gpu_test.hpp"
#include "cml/grader_sizes.hpp"
#include "histogram.hpp"
#include "reference.hpp"

namespace {

using Launcher = std::function<void(const unsigned char*, unsigned*, int)>;
using Input = std::vector<unsigned char> (*)(std::size_t);

const Launcher kHistogram = histogram;
const Launcher kPerWarp = histogram_per_warp;

// Runs `launch` `calls` times on `data` into bins that start poisoned (every byte 0xFF) or as `stale`, and
// compares the last result with the reference.
cml::Comparison check_histogram(const Launcher& launch, const std::vector<unsigned char>& data, int calls = 1,
                                const std::vector<unsigned>* stale = nullptr)
{
    cml::DeviceBuffer<unsigned char> data_dev(data.size());
    data_dev.upload(data);
    cml::DeviceBuffer<unsigned> bins(kBins);
    if (stale) {
        bins.upload(*stale);
    } else {
        bins.poison();
    }
    for (int call = 0; call < calls; ++call) launch(data_dev.data(), bins.data(), int(data.size()));
    CML_CHECK(cudaDeviceSynchronize());
    return compare_bins(bins.download(), histogram_reference(data));
}

void check_inputs(const Launcher& launch, Input input, const std::vector<int>& sizes)
{
    for (int n : sizes) {
        CAPTURE(n);
        const cml::Comparison result = check_histogram(launch, input(std::size_t(n)));
        CHECK_MESSAGE(result.ok, result.describe());
    }
}

// Every byte the same: all n atomics go to one bin, the worst contention there is. 0 and 255 as well, the ends
// of the range (a byte read as a signed char would put 255 at bin -1).
void check_all_equal(const Launcher& launch, const std::vector<int>& sizes)
{
    for (unsigned char value : {static_cast<unsigned char>('e'), static_cast<unsigned char>(0), static_cast<unsigned char>(255)}) {
        for (int n : sizes) {
            CAPTURE(int(value));
            CAPTURE(n);
            const cml::Comparison result = check_histogram(launch, std::vector<unsigned char>(std::size_t(n), value));
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }
}

void check_sets_bins_itself(const Launcher& launch)
{
    const std::vector<unsigned char> data = text_bytes(10'000);
    const std::vector<unsigned> stale(kBins, 12345u);  // what an earlier call might have left behind
    const cml::Comparison result = check_histogram(launch, data, 2, &stale);
    CHECK_MESSAGE(result.ok, "two calls on bins holding 12345 each: " << result.describe());
}

void check_empty(const Launcher& launch)
{
    const cml::Comparison result = check_histogram(launch, {});
    CHECK_MESSAGE(result.ok, "n = 0 must set every bin to 0: " << result.describe());
}

// More equal bytes than any block of a grid of up to 1024 blocks can count in 16 bits: at least one block adds
// more than 65,535 to one bin (2^26 / 1024 = 65,536), so bins of 16 bits, or two to a word, overflow there.
constexpr int kPastSixteenBits = (1 << 26) + 3;

// Around a warp (32) and a block (256 in the solution; any power of two up to 1024 is met by some size), and
// the 4 bytes a thread may read at once.
const std::vector<int> kAwkwardSizes = {1, 2, 3, 4, 5, 31, 32, 33, 255, 256, 257, 1023, 1025, 4097, 65'537};
// Large and ragged: more bytes than the grid has threads, so every thread loops, and a prime count.
const std::vector<int> kLargeSizes = {1'000'003, (1 << 22) + 3};

}  // namespace

TEST_SUITE("histogram")
{
    TEST_CASE("counts every byte of text exactly once at sizes around a warp and a block" * cml::needs_gpu())
    {
        check_inputs(kHistogram, text_bytes, kAwkwardSizes);
    }

    TEST_CASE("counts every byte exactly once at large ragged sizes, 1000003 and 2^22 + 3 (text and image)" *
              cml::needs_gpu())
    {
        check_inputs(kHistogram, text_bytes, kLargeSizes);
        check_inputs(kHistogram, image_bytes, kLargeSizes);
    }

    TEST_CASE("counts the bytes of an image, whose values reach 255" * cml::needs_gpu())
    {
        check_inputs(kHistogram, image_bytes, kAwkwardSizes);
    }

    TEST_CASE("counts uniformly drawn bytes, every bin in use" * cml::needs_gpu())
    {
        check_inputs(kHistogram, uniform_bytes, {256, 4097, 65'537});
    }

    TEST_CASE("counts input whose bytes are all equal ('e', 0 and 255): every atomic on one bin" * cml::needs_gpu())
    {
        check_all_equal(kHistogram, {1, 33, 257, 1'000'003});
    }

    TEST_CASE("sets the bins itself: stale counts are not added to, and two calls give the count, not twice it" *
              cml::needs_gpu())
    {
        check_sets_bins_itself(kHistogram);
    }

    TEST_CASE("n = 0 gives 256 zeros" * cml::needs_gpu())
    {
        check_empty(kHistogram);
    }

    TEST_CASE("counts every byte of text at the sizes the grader drew for this run" * cml::needs_grader_sizes())
    {
        for (const std::vector<int>& size : cml::grader_sizes(1, "n")) check_inputs(kHistogram, text_bytes, {size[0]});
    }
}

// Run by the tests alone: under a sanitizer it would cost seconds and show nothing the smaller cases do not.
TEST_SUITE("size alone: histogram")
{
    TEST_CASE("counts 2^26 + 3 equal bytes: with any grid of up to 1024 blocks, one block's bin passes 65,535" *
              cml::needs_gpu())
    {
        const std::vector<unsigned char> equal(std::size_t(kPastSixteenBits), static_cast<unsigned char>('e'));
        const cml::Comparison result = check_histogram(kHistogram, equal);
        CHECK_MESSAGE(result.ok, result.describe());
    }
}

TEST_SUITE("stretch: histogram_per_warp")
{
    TEST_CASE("per warp: counts every byte of text and of an image at sizes around a warp and a block" *
              cml::needs_gpu(histogram_per_warp_attempted))
    {
        check_inputs(kPerWarp, text_bytes, kAwkwardSizes);
        check_inputs(kPerWarp, image_bytes, kAwkwardSizes);
    }

    TEST_CASE("per warp: counts every byte at large ragged sizes, 1000003 and 2^22 + 3" *
              cml::needs_gpu(histogram_per_warp_attempted))
    {
        check_inputs(kPerWarp, text_bytes, kLargeSizes);
    }

    TEST_CASE("per warp: all-equal input, bins it sets itself, and n = 0" * cml::needs_gpu(histogram_per_warp_attempted))
    {
        check_all_equal(kPerWarp, {1, 257, 1'000'003});
        check_sets_bins_itself(kPerWarp);
        check_empty(kPerWarp);
    }
}
