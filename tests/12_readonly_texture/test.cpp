// Correctness of Lab 12: the gather at awkward sizes, every entry of the table and every lane on one entry; the
// resample under rotations and scalings, up and down, past the edges, at awkward image sizes, with set_image's
// copy taking effect alone; and calls made again and again leaving no more allocated than the first.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "cml/compare.hpp"
#include "cml/device_buffer.hpp"
#include "cml/gpu_test.hpp"
#include "cml/left_behind.hpp"
#include "cml/random.hpp"
#include "readonly_texture.hpp"
#include "reference.hpp"

namespace {

constexpr int kTableEntries = 1 << 16;

std::vector<float> run_gather(const std::vector<float>& table, const std::vector<int>& index)
{
    cml::DeviceBuffer<float> table_dev(table), out_dev(index.size() / kTaps);
    cml::DeviceBuffer<int> index_dev(index);
    out_dev.poison();
    gather(table_dev.data(), index_dev.data(), out_dev.data(), int(index.size() / kTaps));
    CML_CHECK(cudaDeviceSynchronize());
    return out_dev.download();
}

cml::Comparison check_gather(const std::vector<float>& table, const std::vector<int>& index)
{
    return cml::compare(run_gather(table, index), gather_reference(table, index), {0.0, gather_error_bound(table)});
}

// Sets `image` as the source (from a device copy that is freed at once), resamples it into a poisoned output, and
// compares with the reference within the bound for these sizes.
cml::Comparison check_resample(const Image& image, int out_width, int out_height, const Transform& t)
{
    {
        cml::DeviceBuffer<float> image_dev(image.pixels);
        set_image(image_dev.data(), image.width, image.height);
    }
    cml::DeviceBuffer<float> out_dev(std::size_t(out_width) * std::size_t(out_height));
    out_dev.poison();
    resample(out_dev.data(), out_width, out_height, t);
    CML_CHECK(cudaDeviceSynchronize());
    const auto [low, high] = std::minmax_element(image.pixels.begin(), image.pixels.end());
    const double largest = std::max(std::fabs(*low), std::fabs(*high));
    const double bound = resample_error_bound(*high - *low, largest, image.width, image.height, out_width, out_height, t);
    return cml::compare(out_dev.download(), resample_reference(image, out_width, out_height, t), {0.0, bound});
}

// Runs `launch(count, out)` on an output of `count` elements followed by a guard zone, all holding a sentinel: no
// guard element may be overwritten, and the first `count` must match `want` within `tolerance`.
void check_every_output_and_nothing_past_the_last(int count, const std::function<void(int, float*)>& launch,
                                                  const std::vector<double>& want, cml::Tolerance tolerance)
{
    constexpr int kGuard = 1024;
    constexpr float kSentinel = 12345.0f;
    cml::DeviceBuffer<float> out_dev(std::vector<float>(std::size_t(count) + kGuard, kSentinel));
    launch(count, out_dev.data());
    CML_CHECK(cudaDeviceSynchronize());
    std::vector<float> after = out_dev.download();
    int overwritten = 0;
    for (int i = count; i < count + kGuard; ++i) overwritten += after[std::size_t(i)] != kSentinel;
    CHECK_MESSAGE(overwritten == 0, overwritten << " of the " << kGuard << " elements after the last output were written");
    after.resize(std::size_t(count));
    const cml::Comparison written = cml::compare(after, want, tolerance);
    CHECK_MESSAGE(written.ok, written.describe());
}

const std::vector<int> kWarpEdges = {0, 1, 31, 32, 33, 255, 257, 100'003};

// What is allocated now (cml/left_behind.hpp), through the record: the checker has nothing of its own to count.
cml::Held recorded_held()
{
    const cml::Held now = cml::held();
    const std::vector<long long> counts =
        cml::DeviceBuffer<long long>(std::vector<long long>{now.device_buffers, now.arrays, now.textures}).download();
    return {counts[0], counts[1], counts[2]};
}

}  // namespace

TEST_SUITE("A: gather")
{
    TEST_CASE("matches the CPU reference at sizes around a warp and a block (0, 1, 31, 32, 33, 255, 257) and "
              "100003" *
              cml::needs_gpu())
    {
        const std::vector<float> table = cml::random_floats(kTableEntries);
        for (int n : kWarpEdges) {
            CAPTURE(n);
            const cml::Comparison result = check_gather(table, random_indices(std::size_t(n), kTableEntries));
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }

    TEST_CASE("reads every entry of the table, the first and the last included" * cml::needs_gpu())
    {
        const std::vector<float> table = cml::random_floats(kTableEntries);
        std::vector<int> index(std::size_t(kTableEntries) + 5 * kTaps);
        for (std::size_t j = 0; j < index.size(); ++j) index[j] = int(j % kTableEntries);
        const cml::Comparison result = check_gather(table, index);
        CHECK_MESSAGE(result.ok, result.describe());
    }

    TEST_CASE("works when every lane reads the same entry (all 0, then all the last)" * cml::needs_gpu())
    {
        const std::vector<float> table = cml::random_floats(kTableEntries);
        for (int entry : {0, kTableEntries - 1}) {
            CAPTURE(entry);
            const cml::Comparison result = check_gather(table, std::vector<int>(10'007 * kTaps, entry));
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }

    TEST_CASE("gather writes every output and nothing past the last" * cml::needs_gpu())
    {
        const std::vector<float> table = cml::random_floats(kTableEntries);
        cml::DeviceBuffer<float> table_dev(table);
        for (int n : {1, 33, 1000, 4097}) {
            const std::vector<int> index = random_indices(std::size_t(n), kTableEntries);
            cml::DeviceBuffer<int> index_dev(index);
            CAPTURE(n);
            check_every_output_and_nothing_past_the_last(
                n, [&](int count, float* out) { gather(table_dev.data(), index_dev.data(), out, count); },
                gather_reference(table, index), {0.0, gather_error_bound(table)});
        }
    }

    TEST_CASE("gather: matches the CPU reference at the sizes the grader drew for this run" * cml::needs_grader_sizes())
    {
        const std::vector<float> table = cml::random_floats(kTableEntries);
        for (const std::vector<int>& size : cml::grader_sizes(2, "width x height")) {
            const int n = size[0] * size[1];
            CAPTURE(n);
            const cml::Comparison result = check_gather(table, random_indices(std::size_t(n), kTableEntries));
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }
}

TEST_SUITE("B: resample")
{
    TEST_CASE("with no rotation and no scaling, returns the image itself" * cml::needs_gpu())
    {
        const cml::Comparison result = check_resample(random_image(129, 67), 129, 67, rotation(0.0, 1.0));
        CHECK_MESSAGE(result.ok, result.describe());
    }

    TEST_CASE("matches the CPU reference within the texture's 9-bit weights, rotated by 0, 30, 90 and 200 degrees "
              "and scaled by 0.5, 1.3 and 4" *
              cml::needs_gpu())
    {
        const Image image = random_image(97, 61);
        for (double degrees : {0.0, 30.0, 90.0, 200.0}) {
            for (double scale : {0.5, 1.3, 4.0}) {
                CAPTURE(degrees);
                CAPTURE(scale);
                const cml::Comparison result = check_resample(image, 80, 75, rotation(degrees, scale));
                CHECK_MESSAGE(result.ok, result.describe());
            }
        }
    }

    TEST_CASE("the texture unit does the blending: where its rounded weights tell its blend from the exact one, "
              "each output is the texture's blend" *
              cml::needs_gpu())
    {
        // A blend computed from the four texels by hand, with exact weights, is within the tolerance above but not
        // the texture's: at the pixels where the texture's rounded weights (texture_blend_at) move the blend by
        // more than the fp32 arithmetic of either, the output must lie nearer the texture's. Whatever else the
        // kernel computes, its output must come from the texture's filtering.
        const Image image = random_image(97, 61);
        const Transform t = rotation(23.0, 1.7);
        constexpr int kOut = 128;
        {
            cml::DeviceBuffer<float> image_dev(image.pixels);
            set_image(image_dev.data(), image.width, image.height);
        }
        cml::DeviceBuffer<float> out_dev(kOut * kOut);
        out_dev.poison();
        resample(out_dev.data(), kOut, kOut, t);
        CML_CHECK(cudaDeviceSynchronize());
        const std::vector<float> out = out_dev.download();
        int telling = 0, nearer_the_exact = 0;
        for (int y = 0; y < kOut; ++y) {
            for (int x = 0; x < kOut; ++x) {
                const TextureBlend texture = texture_blend_at(image, x, y, kOut, kOut, t);
                const double exact = resample_reference_at(image, x, y, kOut, kOut, t);
                if (!texture.held || std::fabs(texture.value - exact) < 1.0 / 8192) continue;
                ++telling;
                const double got = out[std::size_t(y) * kOut + std::size_t(x)];
                if (std::fabs(got - texture.value) >= std::fabs(got - exact)) {
                    if (nearer_the_exact++ == 0)
                        MESSAGE("pixel (" << x << ", " << y << "): " << got << ", the texture's blend "
                                          << texture.value << ", the exact blend " << exact);
                }
            }
        }
        REQUIRE(telling > 4000);  // about half of the 16,384 pixels tell the two apart, whatever the seed
        CHECK_MESSAGE(nearer_the_exact == 0, nearer_the_exact << " of " << telling
                                                              << " outputs lie nearer the exact blend than the "
                                                                 "texture's: they were not filtered by the texture");
    }

    TEST_CASE("clamps points past the edges to the edge texels (an image scaled down to a third, rotated)" *
              cml::needs_gpu())
    {
        const cml::Comparison result = check_resample(random_image(50, 40), 120, 90, rotation(45.0, 1.0 / 3.0));
        CHECK_MESSAGE(result.ok, result.describe());
    }

    TEST_CASE("works at awkward sizes: a 1 x 1 image, a single row and a single column, outputs of 0 and 1 pixel" *
              cml::needs_gpu())
    {
        struct Case {
            int width, height, out_width, out_height;
        };
        for (const Case& c : {Case{1, 1, 5, 3}, Case{17, 1, 33, 2}, Case{1, 23, 3, 31}, Case{40, 30, 1, 1},
                              Case{40, 30, 0, 7}, Case{257, 129, 255, 131}}) {
            CAPTURE(c.width);
            CAPTURE(c.height);
            CAPTURE(c.out_width);
            CAPTURE(c.out_height);
            const cml::Comparison result =
                check_resample(random_image(c.width, c.height), c.out_width, c.out_height, rotation(17.0, 1.1));
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }

    TEST_CASE("set_image copies the image: changing the caller's device array afterwards changes nothing" *
              cml::needs_gpu())
    {
        const Image image = random_image(64, 48);
        cml::DeviceBuffer<float> image_dev(image.pixels);
        set_image(image_dev.data(), image.width, image.height);
        image_dev.poison();
        const Transform t = rotation(10.0, 1.5);
        cml::DeviceBuffer<float> out_dev(64 * 48);
        out_dev.poison();
        resample(out_dev.data(), 64, 48, t);
        CML_CHECK(cudaDeviceSynchronize());
        const double bound = resample_error_bound(1.0, 1.0, 64, 48, 64, 48, t);
        const cml::Comparison result =
            cml::compare(out_dev.download(), resample_reference(image, 64, 48, t), {0.0, bound});
        CHECK_MESSAGE(result.ok, result.describe());
    }

    TEST_CASE("set_image replaces the image: two of different sizes in a row each give their own results" *
              cml::needs_gpu())
    {
        const cml::Comparison first = check_resample(random_image(90, 70), 64, 64, rotation(30.0, 0.8));
        CHECK_MESSAGE(first.ok, "first image: " << first.describe());
        const cml::Comparison second = check_resample(random_image(33, 129), 64, 64, rotation(30.0, 0.8));
        CHECK_MESSAGE(second.ok, "second image: " << second.describe());
    }

    TEST_CASE("resample writes every output and nothing past the last" * cml::needs_gpu())
    {
        const Image image = random_image(70, 50);
        cml::DeviceBuffer<float> image_dev(image.pixels);
        set_image(image_dev.data(), image.width, image.height);
        const Transform t = rotation(75.0, 2.0);
        for (int rows : {1, 33, 64}) {
            CAPTURE(rows);
            check_every_output_and_nothing_past_the_last(
                rows * 45, [&](int, float* out) { resample(out, 45, rows, t); },
                resample_reference(image, 45, rows, t), {0.0, resample_error_bound(1.0, 1.0, 70, 50, 45, rows, t)});
        }
    }

    TEST_CASE("set_image, resample and gather release what they make: called again and again, they hold no more "
              "device buffers, CUDA arrays or texture objects than after their first calls" *
              cml::needs_gpu())
    {
        const Image first = random_image(40, 30), second = random_image(20, 50);
        const std::vector<float> table = cml::random_floats(kTableEntries);
        std::vector<int> index(std::size_t(1000) * kTaps);
        for (std::size_t i = 0; i < index.size(); ++i) index[i] = int(i * 7919 % kTableEntries);
        cml::DeviceBuffer<float> first_dev(first.pixels), second_dev(second.pixels), image_out(64 * 64);
        cml::DeviceBuffer<float> table_dev(table), gathered(1000);
        cml::DeviceBuffer<int> index_dev(index);
        // One round of every call: whatever a call keeps from one call to the next (the image) is made here.
        const auto round = [&](const Image& image, const cml::DeviceBuffer<float>& image_dev) {
            set_image(image_dev.data(), image.width, image.height);
            resample(image_out.data(), 64, 64, rotation(30.0, 0.8));
            gather(table_dev.data(), index_dev.data(), gathered.data(), 1000);
        };
        round(first, first_dev);
        CML_CHECK(cudaDeviceSynchronize());
        const cml::Held after_one = recorded_held();
        for (int again = 0; again < 3; ++again) round(again % 2 ? first : second, again % 2 ? first_dev : second_dev);
        CML_CHECK(cudaDeviceSynchronize());
        const cml::Held after_four = recorded_held();
        // The last round's results, so that calls that make nothing because they do nothing do not pass.
        const double bound = resample_error_bound(1.0, 1.0, second.width, second.height, 64, 64, rotation(30.0, 0.8));
        const cml::Comparison resampled = cml::compare(
            image_out.download(), resample_reference(second, 64, 64, rotation(30.0, 0.8)), {0.0, bound});
        CHECK_MESSAGE(resampled.ok, "the last resample: " << resampled.describe());
        const cml::Comparison gathered_right =
            cml::compare(gathered.download(), gather_reference(table, index), {0.0, gather_error_bound(table)});
        CHECK_MESSAGE(gathered_right.ok, "the last gather: " << gathered_right.describe());
        CHECK_MESSAGE(after_four.device_buffers == after_one.device_buffers,
                      (after_four.device_buffers - after_one.device_buffers)
                          << " more device buffers allocated after 3 more rounds than after the first: cudaFree "
                             "what a call allocates, or what set_image replaces");
        CHECK_MESSAGE(after_four.arrays == after_one.arrays,
                      (after_four.arrays - after_one.arrays)
                          << " more CUDA arrays allocated after 3 more rounds than after the first: set_image must "
                             "cudaFreeArray the image it replaces");
        CHECK_MESSAGE(after_four.textures == after_one.textures,
                      (after_four.textures - after_one.textures)
                          << " more texture objects alive after 3 more rounds than after the first: "
                             "cudaDestroyTextureObject the one set_image replaces, and any a call makes for itself");
    }

    TEST_CASE("resample: matches the CPU reference at the sizes the grader drew for this run" *
              cml::needs_grader_sizes())
    {
        for (const std::vector<int>& size : cml::grader_sizes(2, "width x height")) {
            CAPTURE(size[0]);
            CAPTURE(size[1]);
            const cml::Comparison result =
                check_resample(random_image(size[0], size[1]), size[1], size[0], rotation(33.0, 0.9));
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }
}
