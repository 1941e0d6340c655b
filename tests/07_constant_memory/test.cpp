// Correctness of Lab 7: polynomials of every length up to the limit, values near the top of the float range,
// the symbol copy (each set_polynomial / set_table takes effect, alone), and the look-up at awkward sizes.
#include <doctest/doctest.h>

#include <functional>
#include <vector>

#include "cml/compare.hpp"
#include "cml/device_buffer.hpp"
#include "cml/gpu_test.hpp"
#include "cml/random.hpp"
#include "constant_memory.hpp"
#include "reference.hpp"

namespace {

// Evaluates the polynomial set last on x, into a poisoned output.
std::vector<float> run_polynomial(const std::vector<float>& x)
{
    cml::DeviceBuffer<float> x_dev(x), y_dev(x.size());
    y_dev.poison();
    polynomial(x_dev.data(), y_dev.data(), int(x.size()));
    CML_CHECK(cudaDeviceSynchronize());
    return y_dev.download();
}

// Sets c, evaluates it on x, and compares with the reference within the Horner bound for these c and x.
cml::Comparison check_polynomial(const std::vector<float>& c, const std::vector<float>& x)
{
    set_polynomial(c.data(), int(c.size()));
    const std::vector<double> want = polynomial_reference(c, x);
    return cml::compare(run_polynomial(x), want, {0.0, polynomial_error_bound(c, x)});
}

std::vector<float> run_lookup(const std::vector<int>& index)
{
    cml::DeviceBuffer<int> index_dev(index);
    cml::DeviceBuffer<float> out_dev(index.size());
    out_dev.poison();
    lookup(index_dev.data(), out_dev.data(), int(index.size()));
    CML_CHECK(cudaDeviceSynchronize());
    return out_dev.download();
}

// A copied float is exact: no tolerance.
cml::Comparison check_lookup(const std::vector<float>& table, const std::vector<int>& index)
{
    return cml::compare(run_lookup(index), lookup_reference(table, index), {0.0, 0.0});
}

// Runs `launch(n, out)` on an output of n elements followed by a guard zone, all holding a sentinel: no guard
// element may be overwritten, and the first n must match `want` within `tolerance`.
void check_every_output_and_nothing_past_n(int n, const std::function<void(int, float*)>& launch,
                                           const std::vector<double>& want, cml::Tolerance tolerance)
{
    constexpr int kGuard = 1024;
    constexpr float kSentinel = 12345.0f;
    cml::DeviceBuffer<float> out_dev(std::vector<float>(n + kGuard, kSentinel));
    launch(n, out_dev.data());
    CML_CHECK(cudaDeviceSynchronize());
    std::vector<float> after = out_dev.download();
    int overwritten = 0;
    for (int i = n; i < n + kGuard; ++i) overwritten += after[i] != kSentinel;
    CHECK_MESSAGE(overwritten == 0, overwritten << " of the " << kGuard << " elements after out[n-1] were written");
    after.resize(n);
    const cml::Comparison written = cml::compare(after, want, tolerance);
    CHECK_MESSAGE(written.ok, written.describe());
}

const std::vector<int> kWarpEdges = {0, 1, 31, 32, 33, 255, 257, 1'000'003};
constexpr int kSize = 10'007;  // a prime: the last block is partial

}  // namespace

TEST_SUITE("A: polynomial")
{
    TEST_CASE("matches the CPU reference for 1, 2, 7, 31 and 32 coefficients" * cml::needs_gpu())
    {
        const std::vector<float> x = cml::random_floats(kSize);
        for (int count : {1, 2, 7, 31, kMaxCoefficients}) {
            CAPTURE(count);
            const cml::Comparison result = check_polynomial(cml::random_floats(count), x);
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }

    TEST_CASE("matches the CPU reference at sizes around a warp and a block (0, 1, 31, 32, 33, 255, 257) and "
              "1000003" *
              cml::needs_gpu())
    {
        const std::vector<float> c = cml::random_floats(kMaxCoefficients);
        for (int n : kWarpEdges) {
            CAPTURE(n);
            const cml::Comparison result = check_polynomial(c, cml::random_floats(n));
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }

    TEST_CASE("keeps fp32 accuracy near the top of the float range (degree 31, |x| < 16, results up to "
              "~1e38)" *
              cml::needs_gpu())
    {
        // c[k] in [1, 8) and |x| < 16: the largest term is below 8 x 16^31 = 2^127, the whole sum below
        // 2^127 x 16/15 = 1.8e38, half of FLT_MAX. An off-by-one power (x^32) or a wider intermediate that
        // is converted late would overflow to infinity.
        const std::vector<float> c = cml::random_floats(kMaxCoefficients, 1.0f, 8.0f);
        set_polynomial(c.data(), kMaxCoefficients);
        {
            // x >= 0: every term is positive, so the Horner bound holds relative to each result.
            const std::vector<float> x = cml::random_floats(kSize, 0.0f, 16.0f);
            const cml::Comparison result = cml::compare(run_polynomial(x), polynomial_reference(c, x),
                                                        {polynomial_relative_bound(kMaxCoefficients), 0.0});
            CHECK_MESSAGE(result.ok, "x in [0, 16): " << result.describe());
        }
        {
            // x < 0: the terms alternate in sign; the bound is absolute, from the largest sum of |terms|.
            const std::vector<float> x = cml::random_floats(kSize, -16.0f, 0.0f);
            const cml::Comparison result =
                cml::compare(run_polynomial(x), polynomial_reference(c, x), {0.0, polynomial_error_bound(c, x)});
            CHECK_MESSAGE(result.ok, "x in [-16, 0): " << result.describe());
        }
    }

    TEST_CASE("set_polynomial replaces the polynomial: two in a row each give their own results" *
              cml::needs_gpu())
    {
        const std::vector<float> x = cml::random_floats(kSize);
        const std::vector<float> first = cml::random_floats(kMaxCoefficients);
        const std::vector<float> second = cml::random_floats(kMaxCoefficients, 1.0f, 2.0f);
        const cml::Comparison a = check_polynomial(first, x);
        CHECK_MESSAGE(a.ok, "first polynomial: " << a.describe());
        const cml::Comparison b = check_polynomial(second, x);
        CHECK_MESSAGE(b.ok, "second polynomial: " << b.describe());
    }

    TEST_CASE("a shorter polynomial after a longer one: the old higher coefficients no longer count" *
              cml::needs_gpu())
    {
        // Large old coefficients, so that any of them still in use shows in every result.
        const std::vector<float> longer = cml::random_floats(kMaxCoefficients, 100.0f, 200.0f);
        set_polynomial(longer.data(), kMaxCoefficients);
        const std::vector<float> x = cml::random_floats(kSize, 0.5f, 1.0f);
        for (int count : {3, 1}) {
            CAPTURE(count);
            const cml::Comparison result = check_polynomial(cml::random_floats(count), x);
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }

    TEST_CASE("set_polynomial copies the caller's array: changing it afterwards changes nothing" *
              cml::needs_gpu())
    {
        std::vector<float> c = cml::random_floats(7);
        const std::vector<float> original = c;
        set_polynomial(c.data(), int(c.size()));
        for (float& v : c) v = 1000.0f;
        const std::vector<float> x = cml::random_floats(kSize);
        const cml::Comparison result = cml::compare(run_polynomial(x), polynomial_reference(original, x),
                                                    {0.0, polynomial_error_bound(original, x)});
        CHECK_MESSAGE(result.ok, result.describe());
    }

    TEST_CASE("polynomial writes every output and nothing past the last" * cml::needs_gpu())
    {
        const std::vector<float> c = cml::random_floats(kMaxCoefficients);
        set_polynomial(c.data(), kMaxCoefficients);
        for (int n : {1, 33, 1000, 4097}) {
            const std::vector<float> x = cml::random_floats(n);
            cml::DeviceBuffer<float> x_dev(x);
            CAPTURE(n);
            check_every_output_and_nothing_past_n(
                n, [&](int size, float* y) { polynomial(x_dev.data(), y, size); }, polynomial_reference(c, x),
                {0.0, polynomial_error_bound(c, x)});
        }
    }

    TEST_CASE("polynomial: matches the CPU reference at the sizes the grader drew for this run" *
              cml::needs_grader_sizes())
    {
        const std::vector<float> c = cml::random_floats(kMaxCoefficients);
        for (const std::vector<int>& size : cml::grader_sizes(1, "n")) {
            CAPTURE(size[0]);
            const cml::Comparison result = check_polynomial(c, cml::random_floats(size[0]));
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }
}

TEST_SUITE("B: look-up")
{
    TEST_CASE("returns the table entry of each index, for random indices at sizes 0, 1, 31, 32, 33, 255, 257 "
              "and 1000003" *
              cml::needs_gpu())
    {
        const std::vector<float> table = cml::random_floats(kTableEntries);
        set_table(table.data());
        for (int n : kWarpEdges) {
            CAPTURE(n);
            const cml::Comparison result = check_lookup(table, random_indices(n));
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }

    TEST_CASE("reads every entry, the first and the last included" * cml::needs_gpu())
    {
        const std::vector<float> table = cml::random_floats(kTableEntries);
        set_table(table.data());
        std::vector<int> index(3 * kTableEntries + 5);
        for (std::size_t i = 0; i < index.size(); ++i) index[i] = int(i % kTableEntries);
        const cml::Comparison result = check_lookup(table, index);
        CHECK_MESSAGE(result.ok, result.describe());
    }

    TEST_CASE("works when every lane reads the same entry (all 0, then all 1023)" * cml::needs_gpu())
    {
        const std::vector<float> table = cml::random_floats(kTableEntries);
        set_table(table.data());
        for (int entry : {0, kTableEntries - 1}) {
            CAPTURE(entry);
            const cml::Comparison result = check_lookup(table, std::vector<int>(kSize, entry));
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }

    TEST_CASE("set_table replaces the table" * cml::needs_gpu())
    {
        const std::vector<int> index = random_indices(kSize);
        for (int round = 0; round < 2; ++round) {
            const std::vector<float> table = cml::random_floats(kTableEntries);
            set_table(table.data());
            CAPTURE(round);
            const cml::Comparison result = check_lookup(table, index);
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }

    TEST_CASE("lookup writes every output and nothing past the last" * cml::needs_gpu())
    {
        const std::vector<float> table = cml::random_floats(kTableEntries);
        set_table(table.data());
        for (int n : {1, 33, 1000, 4097}) {
            const std::vector<int> index = random_indices(n);
            cml::DeviceBuffer<int> index_dev(index);
            CAPTURE(n);
            check_every_output_and_nothing_past_n(
                n, [&](int size, float* out) { lookup(index_dev.data(), out, size); }, lookup_reference(table, index),
                {0.0, 0.0});
        }
    }

    TEST_CASE("lookup: returns the table entries at the sizes the grader drew for this run" *
              cml::needs_grader_sizes())
    {
        const std::vector<float> table = cml::random_floats(kTableEntries);
        set_table(table.data());
        for (const std::vector<int>& size : cml::grader_sizes(1, "n")) {
            CAPTURE(size[0]);
            const cml::Comparison result = check_lookup(table, random_indices(size[0]));
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }
}
