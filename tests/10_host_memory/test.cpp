// Correctness of Lab 10: each pipeline, host to host, against the CPU reference at awkward and random sizes, with
// its input compared to a pristine copy after every call and a guard zone after its output.
#include <doctest/doctest.h>

#include <numeric>
#include <random>
#include <vector>

#include "cml/compare.hpp"
#include "cml/device_buffer.hpp"
#include "cml/gpu_test.hpp"
#include "cml/grader_sizes.hpp"
#include "cml/random.hpp"
#include "cml/watched_call.hpp"
#include "host_memory.hpp"
#include "reference.hpp"

namespace {

// A part's function, its name, and what the schedule check expects of each call (cml/watched_call.hpp).
struct Pipeline {
    void (*function)(const float*, float*, int);
    const char* name;
    unsigned expects;
};

const Pipeline kPinned = {pipeline_pinned, "pipeline_pinned", cml::kExpectPinnedCopies};
const Pipeline kOverlapped = {pipeline_overlapped, "pipeline_overlapped",
                              cml::kExpectPinnedCopies | cml::kExpectTwoStreams};
const Pipeline kManaged = {pipeline_managed, "pipeline_managed", cml::kExpectPrefetched};

// Host memory as the pipeline left it, through the device and back: the checker, which runs none of kernel.cu,
// reads these values from the record (cml/record.hpp).
std::vector<float> recorded(const std::vector<float>& values)
{
    cml::DeviceBuffer<float> on_device(values);
    return on_device.download();
}

constexpr int kGuard = 1024;
constexpr float kSentinel = 12345.0f;

// The places a case compares after its call: all n, or `sampled` of them drawn from the run's seed, which the
// checker draws the same, so that only those cross the record.
std::vector<std::size_t> places(int n, std::size_t sampled)
{
    std::vector<std::size_t> at;
    if (sampled == 0) {
        at.resize(std::size_t(n));
        std::iota(at.begin(), at.end(), std::size_t(0));
        return at;
    }
    std::uniform_int_distribution<std::size_t> place(0, std::size_t(n) - 1);
    for (std::size_t i = 0; i < sampled; ++i) at.push_back(place(cml::rng()));
    return at;
}

std::vector<float> gathered(const std::vector<float>& values, const std::vector<std::size_t>& at)
{
    std::vector<float> picked;
    picked.reserve(at.size());
    for (std::size_t j : at) picked.push_back(values[j]);
    return picked;
}

// One call on n random floats, `call(in, out)`, watched as `name` with what it `expects`: its output must match
// `passes` times the reference, not one of the kGuard floats after out[n - 1] may change, and its input must be
// exactly what it was given; at every place, or at `sampled` places drawn after the call.
template <class Call>
void check_output(const char* name, unsigned expects, int n, int passes, Call call, std::size_t sampled = 0)
{
    CAPTURE(n);
    CAPTURE(sampled);
    const std::vector<float> pristine = cml::random_floats(std::size_t(n));
    std::vector<float> in = pristine;
    std::vector<float> out(std::size_t(n) + kGuard, kSentinel);
    const std::size_t bytes = std::size_t(n) * sizeof(float);
    cml::watched_call(name, expects, {in.data(), bytes, out.data(), bytes}, [&] { call(in.data(), out.data()); });

    const std::vector<std::size_t> at = places(n, sampled);
    std::vector<float> looked_at = gathered(out, at);
    looked_at.insert(looked_at.end(), out.begin() + n, out.end());
    const std::vector<float> after = recorded(looked_at);
    int overwritten = 0;
    for (std::size_t i = at.size(); i < after.size(); ++i) overwritten += after[i] != kSentinel;
    CHECK_MESSAGE(overwritten == 0, overwritten << " of the " << kGuard << " floats after out[n-1] were written");
    const std::vector<float> written(after.begin(), after.begin() + std::ptrdiff_t(at.size()));
    const std::vector<float> given = gathered(pristine, at);
    const cml::Comparison result = cml::compare(written, passes_reference(given, passes), polynomial_tolerance(passes));
    CHECK_MESSAGE(result.ok, result.describe());

    const std::vector<float> input_after = recorded(gathered(in, at));
    std::size_t changed = 0;
    for (std::size_t i = 0; i < given.size(); ++i) changed += input_after[i] != given[i];
    CHECK_MESSAGE(changed == 0, changed << " of the " << given.size() << " input floats looked at were changed");
}

void check_call(const Pipeline& pipeline, int n, std::size_t sampled = 0)
{
    // A single float is a single chunk: no second stream has anything to do.
    const unsigned expects = n < 2 ? pipeline.expects & ~cml::kExpectTwoStreams : pipeline.expects;
    check_output(pipeline.name, expects, n, 1, [&](const float* in, float* out) { pipeline.function(in, out, n); },
                 sampled);
}

// The benchmark's size, 64 MB each way: at the other cases' sizes each chunk's copy takes microseconds, too short
// to run beside a kernel, and the overlap figure, which weighs the calls by their time, reads mostly this call.
// Its output and input are compared at a sample of places, so that the record stays small.
constexpr std::size_t kSampledPlaces = std::size_t(1) << 16;

// 1 where the runtime still knows `pointer` as pinned or mapped memory, 0 where it is the caller's pageable memory
// again: a float, so that it reaches the checker through the record as results do.
float still_pinned(const void* pointer)
{
    cudaPointerAttributes attributes{};
    CML_CHECK(cudaPointerGetAttributes(&attributes, pointer));
    return attributes.type == cudaMemoryTypeUnregistered ? 0.0f : 1.0f;
}

// The zero-copy stretch at n floats over `passes` passes: what every pipeline is checked for, and the caller's
// buffers neither pinned nor mapped any more when it returns (the schedule check, which judges the graded parts'
// calls, leaves the stretch's out).
void check_zero_copy(int n, int passes)
{
    CAPTURE(passes);
    std::vector<float> left = {0.0f, 0.0f};
    check_output("pipeline_zero_copy", 0, n, passes, [&](const float* in, float* out) {
        pipeline_zero_copy(in, out, n, passes);
        if (n > 0) left = {still_pinned(in), still_pinned(out)};
    });
    const std::vector<float> seen = recorded(left);
    CHECK_MESSAGE(seen[0] == 0.0f, "in is still pinned or mapped after the call: cudaHostUnregister what you register");
    CHECK_MESSAGE(seen[1] == 0.0f, "out is still pinned or mapped after the call: cudaHostUnregister what you register");
}

// Sizes at the edges of blocks and of Part B's chunks: fewer elements than chunks, one more than a multiple.
const std::vector<int> kEdges = {0, 1, 3, kChunks - 1, kChunks + 1, 255, 257, 4097, 65'537, 1'000'003};

std::vector<int> random_sizes(int count, int largest)
{
    std::uniform_int_distribution<int> size(1, largest);
    std::vector<int> sizes;
    for (int i = 0; i < count; ++i) sizes.push_back(size(cml::rng()));
    return sizes;
}

// Two calls in a row, the second on different data: a result kept from the first call is wrong in the second.
void check_two_calls(const Pipeline& pipeline)
{
    for (int n : {4097, 4097, 100'003}) check_call(pipeline, n);
}

}  // namespace

TEST_SUITE("A: pinned")
{
    TEST_CASE("pinned: matches the CPU reference for 0, 1, 3, 15, 17, 255, 257, 4097, 65537 and 1000003 floats, "
              "output and nothing past it, input untouched" *
              cml::needs_gpu())
    {
        for (int n : kEdges) check_call(kPinned, n);
    }

    TEST_CASE("pinned: matches the CPU reference at 6 random sizes up to 1000000" * cml::needs_gpu())
    {
        for (int n : random_sizes(6, 1'000'000)) check_call(kPinned, n);
    }

    TEST_CASE("pinned: each call computes its own inputs, none from the call before" * cml::needs_gpu())
    {
        check_two_calls(kPinned);
    }

    TEST_CASE("pinned: matches at the sizes the grader drew for this run" * cml::needs_grader_sizes())
    {
        for (const std::vector<int>& size : cml::grader_sizes(1, "n")) check_call(kPinned, size[0]);
    }
}

TEST_SUITE("B: overlapped")
{
    TEST_CASE("overlapped: matches the CPU reference for 0, 1, 3, 15, 17, 255, 257, 4097, 65537 and 1000003 "
              "floats, output and nothing past it, input untouched" *
              cml::needs_gpu())
    {
        for (int n : kEdges) check_call(kOverlapped, n);
    }

    TEST_CASE("overlapped: matches the CPU reference at 6 random sizes up to 1000000" * cml::needs_gpu())
    {
        for (int n : random_sizes(6, 1'000'000)) check_call(kOverlapped, n);
    }

    TEST_CASE("overlapped: each call computes its own inputs, none from the call before" * cml::needs_gpu())
    {
        check_two_calls(kOverlapped);
    }

    TEST_CASE("overlapped: matches at the sizes the grader drew for this run" * cml::needs_grader_sizes())
    {
        for (const std::vector<int>& size : cml::grader_sizes(1, "n")) check_call(kOverlapped, size[0]);
    }

    TEST_CASE("overlapped: matches at the benchmark's size, compared at places drawn from the run's seed" *
              cml::needs_gpu())
    {
        check_call(kOverlapped, kBenchFloats, kSampledPlaces);
    }
}

TEST_SUITE("C: managed")
{
    TEST_CASE("managed: matches the CPU reference for 0, 1, 3, 15, 17, 255, 257, 4097, 65537 and 1000003 floats, "
              "output and nothing past it, input untouched" *
              cml::needs_gpu())
    {
        for (int n : kEdges) check_call(kManaged, n);
    }

    TEST_CASE("managed: matches the CPU reference at 6 random sizes up to 1000000" * cml::needs_gpu())
    {
        for (int n : random_sizes(6, 1'000'000)) check_call(kManaged, n);
    }

    TEST_CASE("managed: each call computes its own inputs, none from the call before" * cml::needs_gpu())
    {
        check_two_calls(kManaged);
    }

    TEST_CASE("managed: matches at the sizes the grader drew for this run" * cml::needs_grader_sizes())
    {
        for (const std::vector<int>& size : cml::grader_sizes(1, "n")) check_call(kManaged, size[0]);
    }
}

TEST_SUITE("stretch: zero-copy")
{
    TEST_CASE("zero-copy: 1 and 2 passes match the CPU reference for 0, 1, 3, 15, 17, 255, 257, 4097, 65537 and "
              "1000003 floats, output and nothing past it, input untouched, nothing left pinned" *
              cml::needs_gpu(pipeline_zero_copy_attempted))
    {
        for (int passes = 1; passes <= kMostPasses; ++passes)
            for (int n : kEdges) check_zero_copy(n, passes);
    }

    TEST_CASE("zero-copy: 1 and 2 passes match the CPU reference at 6 random sizes up to 1000000" *
              cml::needs_gpu(pipeline_zero_copy_attempted))
    {
        for (int passes = 1; passes <= kMostPasses; ++passes)
            for (int n : random_sizes(6, 1'000'000)) check_zero_copy(n, passes);
    }

    TEST_CASE("zero-copy: each call computes its own inputs, none from the call before" *
              cml::needs_gpu(pipeline_zero_copy_attempted))
    {
        for (int n : {4097, 4097, 100'003}) check_zero_copy(n, 2);
    }
}
