// Correctness of Lab 4: hand-computed products, shapes that are and are not multiples of the tile, tall and
// wide rectangles, K = 0, and a guard zone past C. Inputs are random in [-1, 1), C is poisoned before each run.
#include <doctest/doctest.h>

#include <functional>
#include <vector>

#include "cml/compare.hpp"
#include "cml/device_buffer.hpp"
#include "cml/gpu_test.hpp"
#include "cml/random.hpp"
#include "gemm.hpp"
#include "reference.hpp"

namespace {

using Launcher = std::function<void(const float*, const float*, float*, int, int, int)>;

const Launcher kTiled = gemm_tiled;
const Launcher kRegisterBlocked = gemm_register_blocked;

struct Shape {
    int m, n, k;
};

// Runs `launch` on A (m x k) and B (k x n) into a poisoned C and returns what it wrote.
std::vector<float> run_gemm(const Launcher& launch, const std::vector<float>& a, const std::vector<float>& b,
                            Shape s)
{
    cml::DeviceBuffer<float> a_dev(a), b_dev(b), c_dev(std::size_t(s.m) * s.n);
    c_dev.poison();
    launch(a_dev.data(), b_dev.data(), c_dev.data(), s.m, s.n, s.k);
    CML_CHECK(cudaDeviceSynchronize());
    return c_dev.download();
}

void check_shapes(const Launcher& launch, const std::vector<Shape>& shapes)
{
    for (Shape s : shapes) {
        CAPTURE(s.m);
        CAPTURE(s.n);
        CAPTURE(s.k);
        const std::vector<float> a = cml::random_floats(std::size_t(s.m) * s.k);
        const std::vector<float> b = cml::random_floats(std::size_t(s.k) * s.n);
        const std::vector<double> want = gemm_reference(a, b, s.m, s.n, s.k);
        const cml::Comparison result =
            cml::compare(run_gemm(launch, a, b, s), want, {0.0, gemm_tolerance(a, b, s.m, s.k)});
        CHECK_MESSAGE(result.ok, result.describe());
    }
}

// A (2 x 3) times B (3 x 2): small integers, so every sum is exact in fp32 and a swapped index shows.
void check_hand_computed(const Launcher& launch)
{
    const std::vector<float> a = {1, 2, 3,
                                  4, 5, 6};
    const std::vector<float> b = {7, 8,
                                  9, 10,
                                  11, 12};
    const std::vector<double> want = {58, 64,     // 1*7 + 2*9 + 3*11, 1*8 + 2*10 + 3*12
                                      139, 154};  // 4*7 + 5*9 + 6*11, 4*8 + 5*10 + 6*12
    const cml::Comparison result = cml::compare(run_gemm(launch, a, b, {2, 2, 3}), want, {0.0, 0.0});
    CHECK_MESSAGE(result.ok, result.describe());
}

// K = 0: the poisoned C must be overwritten with zeros, the value of an empty sum.
void check_empty_inner_dimension(const Launcher& launch)
{
    const Shape s = {33, 65, 0};
    cml::DeviceBuffer<float> a_dev(1), b_dev(1);  // never read: A and B have no elements
    const std::vector<double> zeros(std::size_t(s.m) * s.n, 0.0);
    cml::DeviceBuffer<float> c_dev(zeros.size());
    c_dev.poison();
    launch(a_dev.data(), b_dev.data(), c_dev.data(), s.m, s.n, s.k);
    CML_CHECK(cudaDeviceSynchronize());
    const cml::Comparison result = cml::compare(c_dev.download(), zeros, {0.0, 0.0});
    CHECK_MESSAGE(result.ok, result.describe());
}

// Elements past C hold a sentinel; a kernel whose last blocks write rows or columns past the edge of C
// lands some of those writes there (the others fall inside C, which is compared with the reference too).
void check_c_and_nothing_past_it(const Launcher& launch, Shape s)
{
    constexpr int kGuard = 4096;
    constexpr float kSentinel = 12345.0f;
    const std::size_t size = std::size_t(s.m) * s.n;
    const std::vector<float> a = cml::random_floats(std::size_t(s.m) * s.k);
    const std::vector<float> b = cml::random_floats(std::size_t(s.k) * s.n);
    cml::DeviceBuffer<float> a_dev(a), b_dev(b);
    cml::DeviceBuffer<float> c_dev(std::vector<float>(size + kGuard, kSentinel));
    launch(a_dev.data(), b_dev.data(), c_dev.data(), s.m, s.n, s.k);
    CML_CHECK(cudaDeviceSynchronize());
    std::vector<float> after = c_dev.download();
    int overwritten = 0;
    for (std::size_t i = size; i < size + kGuard; ++i) overwritten += after[i] != kSentinel;
    CAPTURE(s.m);
    CAPTURE(s.n);
    CAPTURE(s.k);
    CHECK_MESSAGE(overwritten == 0, overwritten << " of the " << kGuard << " floats after C were written");
    after.resize(size);
    const cml::Comparison result =
        cml::compare(after, gemm_reference(a, b, s.m, s.n, s.k), {0.0, gemm_tolerance(a, b, s.m, s.k)});
    CHECK_MESSAGE(result.ok, result.describe());
}

// M = 0 or N = 0: C is empty, and the launcher must neither fail nor launch an empty grid.
void check_empty_output(const Launcher& launch)
{
    cml::DeviceBuffer<float> a_dev(16), b_dev(16), c_dev(16);
    for (Shape s : {Shape{0, 16, 1}, Shape{16, 0, 1}, Shape{0, 0, 0}}) {
        launch(a_dev.data(), b_dev.data(), c_dev.data(), s.m, s.n, s.k);
        CHECK_NOTHROW(CML_CHECK(cudaDeviceSynchronize()));
    }
}

// M x N x K. The student's tile is 32 x 32, the register-blocked stretch's block 128 x 128 with 8 along K.
const std::vector<Shape> kTileMultiples = {{32, 32, 32}, {64, 64, 64}, {128, 96, 160}, {256, 256, 256}};
const std::vector<Shape> kRaggedEdges = {{1, 1, 1}, {17, 33, 65}, {33, 17, 65}, {31, 31, 31}, {33, 33, 33},
                                         {65, 100, 7}, {100, 65, 1}, {129, 130, 131}, {64, 64, 100}};
// Under racecheck a block's tile steps run one after another, so a long K in few blocks is what costs: 64 x 64
// x 3000 (4 blocks, 94 steps each) took ~12 of the lab's 52 s on an H100, and x 1000 still ~4 s in each suite.
// 64 x 64 x 512 still runs 16 steps (64 of the register-blocked kernel's 8), and 1 x 1000 x 300 a single row
// of 32 tiles, past every barrier a missing one would break.
const std::vector<Shape> kRectangles = {{1000, 17, 64}, {17, 1000, 64}, {1, 1000, 300},
                                        {1000, 1, 300}, {64, 64, 512}, {300, 700, 50}};
// Several blocks each way, ragged on every side (9 x 8 tiles of 32, 3 x 2 blocks of the register-blocked
// kernel's 128), K too (7 tile steps of 32, not a multiple of the register-blocked kernel's 8). Not 1000^3, nor
// 400 x 360 x 333: under racecheck those cost ~60 s and ~6 s (with the register-blocked one) on an H100, and a
// missing barrier or a guard that skips a ragged edge shows at this size as well.
const std::vector<Shape> kLarge = {{288, 232, 201}};
const std::vector<Shape> kGuarded = {{1, 1, 1}, {17, 33, 65}, {100, 1, 10}, {1, 100, 10}, {130, 129, 8},
                                     {17, 100, 12}};

}  // namespace

TEST_SUITE("gemm_tiled")
{
    TEST_CASE("multiplies a 2 x 3 by a 3 x 2 matrix exactly (hand-computed)" * cml::needs_gpu())
    {
        check_hand_computed(kTiled);
    }

    TEST_CASE("matches the CPU reference when M, N and K are multiples of the tile (32^3 to 256^3)" *
              cml::needs_gpu())
    {
        check_shapes(kTiled, kTileMultiples);
    }

    TEST_CASE("matches the CPU reference when M, N and K are not multiples of the tile (1 x 1 x 1, 17 x 33 x 65, ...)" *
              cml::needs_gpu())
    {
        check_shapes(kTiled, kRaggedEdges);
    }

    TEST_CASE("matches the CPU reference for tall, wide and long-K rectangles" * cml::needs_gpu())
    {
        check_shapes(kTiled, kRectangles);
    }

    TEST_CASE("matches the CPU reference at a large ragged shape (288 x 232 x 201)" * cml::needs_gpu())
    {
        check_shapes(kTiled, kLarge);
    }

    TEST_CASE("writes zeros when K = 0 (an empty sum), and accepts M = 0 or N = 0" * cml::needs_gpu())
    {
        check_empty_inner_dimension(kTiled);
        check_empty_output(kTiled);
    }

    TEST_CASE("writes every element of C and nothing past the last" * cml::needs_gpu())
    {
        for (Shape s : kGuarded) check_c_and_nothing_past_it(kTiled, s);
    }

    TEST_CASE("matches the CPU reference at the shapes the grader drew for this run" * cml::needs_grader_sizes())
    {
        for (const std::vector<int>& size : cml::grader_sizes(3, "M x N x K"))
            check_c_and_nothing_past_it(kTiled, {size[0], size[1], size[2]});
    }
}

TEST_SUITE("stretch: gemm_register_blocked")
{
    TEST_CASE("register-blocked: multiplies a 2 x 3 by a 3 x 2 matrix exactly (hand-computed)" *
              cml::needs_gpu(gemm_register_blocked_attempted))
    {
        check_hand_computed(kRegisterBlocked);
    }

    TEST_CASE("register-blocked: matches the CPU reference at multiples and non-multiples of the block" *
              cml::needs_gpu(gemm_register_blocked_attempted))
    {
        check_shapes(kRegisterBlocked, kTileMultiples);
        check_shapes(kRegisterBlocked, kRaggedEdges);
    }

    TEST_CASE("register-blocked: matches the CPU reference for rectangles and at 288 x 232 x 201" *
              cml::needs_gpu(gemm_register_blocked_attempted))
    {
        check_shapes(kRegisterBlocked, kRectangles);
        check_shapes(kRegisterBlocked, kLarge);
    }

    TEST_CASE("register-blocked: writes zeros when K = 0, every element of C, and nothing past it" *
              cml::needs_gpu(gemm_register_blocked_attempted))
    {
        check_empty_inner_dimension(kRegisterBlocked);
        for (Shape s : kGuarded) check_c_and_nothing_past_it(kRegisterBlocked, s);
        check_empty_output(kRegisterBlocked);
    }
}
