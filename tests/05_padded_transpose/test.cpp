// Correctness of Lab 5: a hand-computed case, square and non-square matrices, sizes that are not multiples
// of the 32 x 32 tile, large ones, and a guard zone past the output. Inputs are random, outputs poisoned.
#include <doctest/doctest.h>

#include <functional>
#include <vector>

#include "cml/compare.hpp"
#include "cml/device_buffer.hpp"
#include "cml/gpu_test.hpp"
#include "cml/random.hpp"
#include "reference.hpp"
#include "transpose.hpp"

namespace {

using Launcher = std::function<void(const float*, float*, int, int)>;

const Launcher kTranspose = transpose;
const Launcher kSwizzled = transpose_swizzled;

struct Shape {
    int rows, cols;
};

std::vector<float> run_transpose(const Launcher& launch, const std::vector<float>& in, Shape s)
{
    cml::DeviceBuffer<float> in_dev(in), out_dev(in.size());
    out_dev.poison();
    launch(in_dev.data(), out_dev.data(), s.rows, s.cols);
    CML_CHECK(cudaDeviceSynchronize());
    return out_dev.download();
}

// A transpose moves floats without arithmetic: every element must match exactly.
void check_shapes(const Launcher& launch, const std::vector<Shape>& shapes)
{
    for (Shape s : shapes) {
        CAPTURE(s.rows);
        CAPTURE(s.cols);
        const std::vector<float> in = cml::random_floats(std::size_t(s.rows) * s.cols);
        const cml::Comparison result =
            cml::compare(run_transpose(launch, in, s), transpose_reference(in, s.rows, s.cols), {0.0, 0.0});
        CHECK_MESSAGE(result.ok, result.describe());
    }
}

void check_hand_computed(const Launcher& launch)
{
    const std::vector<float> in = {1, 2, 3,
                                   4, 5, 6};
    const std::vector<double> want = {1, 4,
                                      2, 5,
                                      3, 6};
    const cml::Comparison result = cml::compare(run_transpose(launch, in, {2, 3}), want, {0.0, 0.0});
    CHECK_MESSAGE(result.ok, result.describe());
}

// Floats past the output hold a sentinel; a kernel that forgets the edge of `out` writes some of them.
// The output itself is compared too.
void check_out_and_nothing_past_it(const Launcher& launch, Shape s)
{
    constexpr int kGuard = 4096;
    constexpr float kSentinel = 12345.0f;
    const std::size_t size = std::size_t(s.rows) * s.cols;
    const std::vector<float> in = cml::random_floats(size);
    cml::DeviceBuffer<float> in_dev(in);
    cml::DeviceBuffer<float> out_dev(std::vector<float>(size + kGuard, kSentinel));
    launch(in_dev.data(), out_dev.data(), s.rows, s.cols);
    CML_CHECK(cudaDeviceSynchronize());
    std::vector<float> after = out_dev.download();
    int overwritten = 0;
    for (std::size_t i = size; i < size + kGuard; ++i) overwritten += after[i] != kSentinel;
    CAPTURE(s.rows);
    CAPTURE(s.cols);
    CHECK_MESSAGE(overwritten == 0, overwritten << " of the " << kGuard << " floats after the output were written");
    after.resize(size);
    const cml::Comparison result = cml::compare(after, transpose_reference(in, s.rows, s.cols), {0.0, 0.0});
    CHECK_MESSAGE(result.ok, result.describe());
}

void check_empty(const Launcher& launch)
{
    cml::DeviceBuffer<float> in_dev(16), out_dev(16);
    for (Shape s : {Shape{0, 16}, Shape{16, 0}, Shape{0, 0}}) {
        launch(in_dev.data(), out_dev.data(), s.rows, s.cols);
        CHECK_NOTHROW(CML_CHECK(cudaDeviceSynchronize()));
    }
}

// rows x cols of the input. The tile is 32 x 32; the block has 8 rows of threads, each moving 4 elements.
const std::vector<Shape> kTileMultiples = {{32, 32}, {64, 64}, {1024, 1024}, {32, 256}, {256, 32}, {96, 160}};
const std::vector<Shape> kRaggedEdges = {{1, 1}, {33, 65}, {65, 33}, {1000, 17}, {17, 1000}, {31, 33},
                                         {1, 1000}, {1000, 1}, {7, 9}, {257, 255}};
const std::vector<Shape> kLarge = {{4096, 4096}, {3001, 4097}};
const std::vector<Shape> kGuarded = {{1, 1}, {33, 65}, {65, 33}, {1000, 17}, {17, 1000}, {100, 3}};

}  // namespace

TEST_SUITE("transpose")
{
    TEST_CASE("transposes a 2 x 3 matrix into a 3 x 2 one (hand-computed)" * cml::needs_gpu())
    {
        check_hand_computed(kTranspose);
    }

    TEST_CASE("matches the CPU reference for square and non-square multiples of the tile" * cml::needs_gpu())
    {
        check_shapes(kTranspose, kTileMultiples);
    }

    TEST_CASE("matches the CPU reference when rows and columns are not multiples of 32 (1 x 1, 33 x 65, ...), "
              "and accepts empty matrices" * cml::needs_gpu())
    {
        check_shapes(kTranspose, kRaggedEdges);
        check_empty(kTranspose);
    }

    TEST_CASE("matches the CPU reference for large matrices (4096 x 4096, 3001 x 4097)" * cml::needs_gpu())
    {
        check_shapes(kTranspose, kLarge);
    }

    TEST_CASE("writes every element of the output and nothing past the last" * cml::needs_gpu())
    {
        for (Shape s : kGuarded) check_out_and_nothing_past_it(kTranspose, s);
    }

    TEST_CASE("matches the CPU reference at the shapes the grader drew for this run" * cml::needs_grader_sizes())
    {
        for (const std::vector<int>& size : cml::grader_sizes(2, "rows x cols"))
            check_out_and_nothing_past_it(kTranspose, {size[0], size[1]});
    }
}

TEST_SUITE("stretch: transpose_swizzled")
{
    TEST_CASE("swizzled: transposes a 2 x 3 matrix into a 3 x 2 one (hand-computed)" *
              cml::needs_gpu(transpose_swizzled_attempted))
    {
        check_hand_computed(kSwizzled);
    }

    TEST_CASE("swizzled: matches the CPU reference at multiples and non-multiples of the tile, and large" *
              cml::needs_gpu(transpose_swizzled_attempted))
    {
        check_shapes(kSwizzled, kTileMultiples);
        check_shapes(kSwizzled, kRaggedEdges);
        check_shapes(kSwizzled, kLarge);
    }

    TEST_CASE("swizzled: writes every element of the output and nothing past it, and accepts empty matrices" *
              cml::needs_gpu(transpose_swizzled_attempted))
    {
        for (Shape s : kGuarded) check_out_and_nothing_past_it(kSwizzled, s);
        check_empty(kSwizzled);
    }
}
