// Correctness of Lab 3: several radii, sizes that are not a multiple of the block, sizes smaller than R,
// both edges, and a guard zone past the end. Inputs are random in [-1, 1), outputs poisoned before each run.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "cml/compare.hpp"
#include "cml/device_buffer.hpp"
#include "cml/gpu_test.hpp"
#include "cml/random.hpp"
#include "reference.hpp"
#include "smoothing.hpp"

namespace {

constexpr int kBlock = 256;  // the skeleton's block size: the sizes below straddle its multiples

// Runs smooth() on `in` into a poisoned output and returns what it wrote.
std::vector<float> run_smooth(const std::vector<float>& in, int radius)
{
    const int n = int(in.size());
    cml::DeviceBuffer<float> in_dev(in), out_dev(n);
    out_dev.poison();
    smooth(in_dev.data(), out_dev.data(), n, radius);
    CML_CHECK(cudaDeviceSynchronize());
    return out_dev.download();
}

cml::Comparison check(const std::vector<float>& in, int radius)
{
    const std::vector<double> want = smooth_reference(in, radius);
    return cml::compare(run_smooth(in, radius), want, {0.0, smooth_tolerance(radius, max_abs(in))});
}

void check_sizes_and_radii(const std::vector<int>& sizes, const std::vector<int>& radii)
{
    for (int radius : radii) {
        for (int n : sizes) {
            CAPTURE(radius);
            CAPTURE(n);
            const cml::Comparison result = check(cml::random_floats(n), radius);
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }
}

// Checks the first (or the last) 2R outputs of a random input of size n: the R whose windows cross the edge,
// and the R next to them, whose windows reach it.
void check_edge(bool left, int n, int radius)
{
    const std::vector<float> in = cml::random_floats(n);
    const std::vector<float> got = run_smooth(in, radius);
    const std::vector<double> want = smooth_reference(in, radius);
    const int count = std::min(n, 2 * radius);
    const int start = left ? 0 : n - count;
    const std::vector<float> got_edge(got.begin() + start, got.begin() + start + count);
    const std::vector<double> want_edge(want.begin() + start, want.begin() + start + count);
    const cml::Comparison result =
        cml::compare(got_edge, want_edge, {0.0, smooth_tolerance(radius, max_abs(in))});
    CAPTURE(n);
    CAPTURE(radius);
    CHECK_MESSAGE(result.ok, "outputs " << start << " to " << start + count - 1 << " (indices below count from "
                                        << start << "): " << result.describe());
}

const std::vector<int> kRadii = {1, 2, 3, 8, 32, kMaxRadius};
const std::vector<int> kAwkwardSizes = {kBlock - 1, kBlock + 1, 3 * kBlock + 7, 1000, 4097};

}  // namespace

TEST_SUITE("smooth")
{
    TEST_CASE("clamps at both edges: n = 5, R = 2, hand-computed" * cml::needs_gpu())
    {
        // out[0] = (10 + 10 + 10 + 20 + 30) / 5: the two missing left neighbours read in[0]; every sum here is
        // an integer multiple of 5, so the exact answers are floats and the tolerance only covers roundings.
        const std::vector<float> in = {10, 20, 30, 40, 50};
        const std::vector<double> want = {16, 22, 30, 38, 44};
        const cml::Comparison result = cml::compare(run_smooth(in, 2), want, {0.0, smooth_tolerance(2, 50)});
        CHECK_MESSAGE(result.ok, result.describe());
    }

    TEST_CASE("clamps at the left edge: the first outputs of the first block, R = 1, 8, 64" * cml::needs_gpu())
    {
        for (int radius : {1, 8, kMaxRadius}) check_edge(true, 10 * kBlock + 3, radius);
    }

    TEST_CASE("clamps at the right edge: the last outputs, in a partial last block, R = 1, 8, 64" *
              cml::needs_gpu())
    {
        for (int radius : {1, 8, kMaxRadius}) check_edge(false, 10 * kBlock + 3, radius);
        for (int radius : {1, 8, kMaxRadius}) check_edge(false, 10 * kBlock, radius);  // a full last block
    }

    TEST_CASE("matches the CPU reference for R = 1, 2, 3, 8, 32, 64 at sizes that are not a multiple of the "
              "block (255, 257, 775, 1000, 4097)" *
              cml::needs_gpu())
    {
        check_sizes_and_radii(kAwkwardSizes, kRadii);
    }

    // Sizes kept to a few hundred thousand: the grader runs this program under racecheck, which tracks every
    // shared-memory access.
    TEST_CASE("matches the CPU reference at whole blocks (256, 2^18) and a large prime size (262147)" *
              cml::needs_gpu())
    {
        check_sizes_and_radii({kBlock, 1 << 18, 262'147}, {1, 5, 32});
    }

    TEST_CASE("handles sizes smaller than R: n = 0, 1, 2, 3, 31, 33 with R = 4, 32, 64" * cml::needs_gpu())
    {
        // With n < R, a window holds in[0] and in[n - 1] many times over, and every halo element is clamped.
        // n = 0 has no output to check: it must only return without a CUDA error (check() synchronises).
        check_sizes_and_radii({0, 1, 2, 3, 31, 33}, {4, 32, kMaxRadius});
    }

    TEST_CASE("writes every output and nothing past the last" * cml::needs_gpu())
    {
        constexpr int kGuard = 1024;
        constexpr float kSentinel = 12345.0f;
        for (int n : {1, 33, kBlock + 1, 4097}) {
            const std::vector<float> in = cml::random_floats(n);
            cml::DeviceBuffer<float> in_dev(in);
            std::vector<float> out(n + kGuard, kSentinel);
            cml::DeviceBuffer<float> out_dev(out);
            smooth(in_dev.data(), out_dev.data(), n, kMaxRadius);
            CML_CHECK(cudaDeviceSynchronize());
            std::vector<float> after = out_dev.download();
            int overwritten = 0;
            for (int i = n; i < n + kGuard; ++i) overwritten += after[i] != kSentinel;
            CAPTURE(n);
            CHECK_MESSAGE(overwritten == 0,
                          overwritten << " of the " << kGuard << " elements after out[n-1] were written");
            after.resize(n);
            const cml::Comparison written = cml::compare(after, smooth_reference(in, kMaxRadius),
                                                         {0.0, smooth_tolerance(kMaxRadius, max_abs(in))});
            CHECK_MESSAGE(written.ok, written.describe());
        }
    }

    TEST_CASE("matches the CPU reference at the sizes and radii the grader drew for this run" *
              cml::needs_grader_sizes())
    {
        for (const std::vector<int>& size : cml::grader_sizes(2, "n x R")) check_sizes_and_radii({size[0]}, {size[1]});
    }
}
