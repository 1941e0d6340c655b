// Correctness of Lab 9: the occupancy arithmetic against the calculator's rules (worked cases at the edge of each
// rule's granularity, then random blocks), a launch that fits enough blocks on an H100 and on a small GPU and is
// confirmed by the runtime, and the reversal at awkward sizes with every launch it may be given.
#include <doctest/doctest.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cml/compare.hpp"
#include "cml/device_buffer.hpp"
#include "cml/gpu_test.hpp"
#include "cml/random.hpp"
#include "cml/record.hpp"
#include "occupancy.hpp"
#include "occupancy_queries.hpp"
#include "reference.hpp"
#include "worked_cases.hpp"

namespace {

// What the kernel.cu's host functions returned, through the device and back: the checker, which runs none of
// them, reads these values from the record (cml/record.hpp).
std::vector<int> recorded(const std::vector<int>& values)
{
    cml::DeviceBuffer<int> on_device(values);
    return on_device.download();
}

std::string shown(const BlockUse& use)
{
    std::ostringstream text;
    text << use.threads << " threads, " << use.registers << " registers, " << use.shared << " B of shared memory";
    return text.str();
}

// resident_blocks for each worked case on `sm`, against the count the toolkit's calculator gives for it.
void check_blocks(const std::vector<WorkedCase>& cases, const SmLimits& sm)
{
    std::vector<int> got;
    for (const WorkedCase& c : cases) got.push_back(resident_blocks(c.use, sm));
    got = recorded(got);
    for (std::size_t i = 0; i < cases.size(); ++i)
        CHECK_MESSAGE(got[i] == cases[i].blocks,
                      shown(cases[i].use) << ": " << got[i] << " blocks per SM, not " << cases[i].blocks);
}

constexpr std::size_t kKB = 1024;

std::vector<float> run_reverse(const std::vector<float>& in, ReverseLaunch launch)
{
    cml::DeviceBuffer<float> in_dev(in), out_dev(in.size());
    out_dev.poison();
    reverse(in_dev.data(), out_dev.data(), int(in.size()), launch);
    CML_CHECK(cudaDeviceSynchronize());
    return out_dev.download();
}

// A copied float is exact: no tolerance.
void check_reverse(int n, ReverseLaunch launch)
{
    const std::vector<float> in = cml::random_floats(std::size_t(n));
    const cml::Comparison result = cml::compare(run_reverse(in, launch), reverse_reference(in), {0.0, 0.0});
    CHECK_MESSAGE(result.ok, result.describe());
}

// Runs `launch(n, out)` on an output of n elements followed by a guard zone, all holding a sentinel: no guard
// element may be overwritten, and the first n must be the reversed input.
template <class Launch>
void check_every_output_and_nothing_past_n(int n, Launch launch)
{
    constexpr int kGuard = 1024;
    constexpr float kSentinel = 12345.0f;
    const std::vector<float> in = cml::random_floats(std::size_t(n));
    cml::DeviceBuffer<float> in_dev(in), out_dev(std::vector<float>(std::size_t(n + kGuard), kSentinel));
    launch(in_dev.data(), out_dev.data(), n);
    CML_CHECK(cudaDeviceSynchronize());
    std::vector<float> after = out_dev.download();
    int overwritten = 0;
    for (int i = n; i < n + kGuard; ++i) overwritten += after[std::size_t(i)] != kSentinel;
    CHECK_MESSAGE(overwritten == 0, overwritten << " of the " << kGuard << " elements after out[n-1] were written");
    after.resize(std::size_t(n));
    const cml::Comparison written = cml::compare(after, reverse_reference(in), {0.0, 0.0});
    CHECK_MESSAGE(written.ok, written.describe());
}

// The launch a student's function chose, through the record, and whether it keeps the interface's promises.
ReverseLaunch recorded_launch(ReverseLaunch launch)
{
    const std::vector<int> values = recorded({launch.threads, launch.tile});
    return {values[0], values[1]};
}

void check_fits(ReverseLaunch launch, const SmLimits& sm, Capability capability, int registers, const std::string& gpu)
{
    CAPTURE(gpu);
    CAPTURE(registers);
    CHECK_MESSAGE((launch.threads >= 32 && launch.threads <= 1024),
                  launch.threads << " threads per block: 32 to 1024 are asked for");
    CHECK_MESSAGE(launch.tile >= launch.threads,
                  "a tile of " << launch.tile << " floats for " << launch.threads << " threads leaves some idle");
    const BlockUse use{launch.threads, registers, std::size_t(launch.tile) * sizeof(float)};
    const int blocks = calculator_resident_blocks(use, sm, capability);
    CHECK_MESSAGE(blocks >= kMinBlocksPerSm, shown(use) << ": " << blocks << " block(s) per SM, fewer than "
                                                        << kMinBlocksPerSm);
}

// The occupancy queries kernel.cu made since the last look (occupancy_queries.hpp), through the record: their
// count first, so that the checker, which has none of its own, reads as many as the test program saw.
std::vector<OccupancyQuery> recorded_queries()
{
    constexpr int kMostKept = 1000;  // a loop that asks more has asked enough
    std::vector<int> flat;
    for (const OccupancyQuery& query : take_occupancy_queries())
        if (flat.size() < 3 * kMostKept)
            flat.insert(flat.end(), {query.threads, int(query.dynamic_shared), query.blocks});
    const int count = std::clamp(recorded({int(flat.size())})[0], 0, 3 * kMostKept);
    flat.resize(std::size_t(count));
    if (count > 0) flat = recorded(flat);
    std::vector<OccupancyQuery> found;
    for (std::size_t i = 0; i + 2 < flat.size(); i += 3)
        found.push_back({flat[i], std::size_t(flat[i + 1]), flat[i + 2]});
    return found;
}

// This GPU's limits and compute capability, as its cudaDeviceProp gives them, through the record: the checker
// has no GPU to ask.
std::pair<SmLimits, Capability> limits_of_this_gpu()
{
    cudaDeviceProp p{};
    if (!cml::record::replaying()) {
        int device = 0;
        CML_CHECK(cudaGetDevice(&device));
        CML_CHECK(cudaGetDeviceProperties(&p, device));
    }
    const std::vector<int> v = recorded({p.maxThreadsPerMultiProcessor / 32, p.maxBlocksPerMultiProcessor,
                                         p.regsPerMultiprocessor, int(p.sharedMemPerMultiprocessor),
                                         int(p.sharedMemPerBlockOptin), int(p.reservedSharedMemPerBlock), p.major,
                                         p.minor});
    const SmLimits limits = {v[0], v[1], v[2], 256, 4, std::size_t(v[3]), std::size_t(v[4]), std::size_t(v[5]),
                             std::size_t(v[6] >= 8 ? 128 : 256)};
    return {limits, Capability{v[6], v[7]}};
}

const std::vector<int> kEdges = {0, 1, 31, 32, 33, 255, 257, 2047, 2048, 2049, 1'000'003};

}  // namespace

TEST_SUITE("A: resident blocks")
{
    TEST_CASE("warps decide for blocks of few registers: a partial warp takes a whole one, and 32 blocks at most "
              "(an H100)" *
              cml::needs_gpu())
    {
        check_blocks(kWarpCases, kH100);
    }

    TEST_CASE("registers go to warps in units of 256, each quarter of the SM holding whole warps (an H100)" *
              cml::needs_gpu())
    {
        check_blocks(kRegisterCases, kH100);
    }

    TEST_CASE("shared memory counts the 1 KB each block leaves the system, in units of 128 bytes (an H100)" *
              cml::needs_gpu())
    {
        check_blocks(kSharedCases, kH100);
    }

    TEST_CASE("a block that cannot fit gives 0, and one at the edge of each limit fits (an H100)" * cml::needs_gpu())
    {
        check_blocks(kFitCases, kH100);
    }

    TEST_CASE("a GPU with no reserve, units of 256 bytes and 32 warps (a T4)" * cml::needs_gpu())
    {
        check_blocks(kT4Cases, kT4);
    }

    TEST_CASE("agrees with the toolkit's occupancy calculator on 2000 random blocks, on an H100 and a T4" *
              cml::needs_gpu())
    {
        std::uniform_int_distribution<int> threads(1, 1024), registers(0, 255), kilobytes(0, 227), bytes(0, 1023);
        for (const auto& [sm, capability] : {std::pair{kH100, kH100Capability}, std::pair{kT4, kT4Capability}}) {
            std::vector<WorkedCase> drawn;
            for (int i = 0; i < 1000; ++i) {
                const std::size_t shared = std::size_t(kilobytes(cml::rng())) * kKB + std::size_t(bytes(cml::rng()));
                const BlockUse use{threads(cml::rng()), registers(cml::rng()), i % 4 == 0 ? 0 : shared};
                drawn.push_back({use, calculator_resident_blocks(use, sm, capability)});
            }
            check_blocks(drawn, sm);
        }
    }
}

TEST_SUITE("B: the launch")
{
    TEST_CASE("choose_launch fits at least kMinBlocksPerSm blocks on an H100 and on a T4, at 0 to 128 registers "
              "per thread" *
              cml::needs_gpu())
    {
        for (int registers : {0, 16, 32, 40, 64, 96, 128}) {
            check_fits(recorded_launch(choose_launch(kH100, registers)), kH100, kH100Capability, registers, "H100");
            check_fits(recorded_launch(choose_launch(kT4, registers)), kT4, kT4Capability, registers, "T4");
        }
    }

    TEST_CASE("launch_for_this_gpu confirms its launch with cudaOccupancyMaxActiveBlocksPerMultiprocessor, which "
              "finds at least kMinBlocksPerSm blocks of it on this GPU (TODO 3)" *
              cml::needs_gpu())
    {
        take_occupancy_queries();  // none of an earlier case's
        const ReverseLaunch launch = recorded_launch(launch_for_this_gpu());
        const std::vector<OccupancyQuery> queries = recorded_queries();
        REQUIRE_MESSAGE(!queries.empty(), "launch_for_this_gpu never asked "
                                          "cudaOccupancyMaxActiveBlocksPerMultiprocessor how many blocks of its "
                                          "launch fit (TODO 3)");
        const OccupancyQuery& last = queries.back();
        const std::size_t bytes = std::size_t(launch.tile) * sizeof(float);
        CHECK_MESSAGE((last.threads == launch.threads && last.dynamic_shared == bytes),
                      "the last query was of " << last.threads << " threads and " << last.dynamic_shared
                                               << " B of dynamic shared memory, not of the launch returned: "
                                               << launch.threads << " threads and " << bytes << " B");
        CHECK_MESSAGE(last.blocks >= kMinBlocksPerSm, "the runtime found " << last.blocks << " block(s) per SM of "
                                                                           << "the launch returned, fewer than "
                                                                           << kMinBlocksPerSm);
    }

    TEST_CASE("launch_for_this_gpu fits at least kMinBlocksPerSm blocks of a kernel of up to 32 registers on this "
              "GPU, and reverses correctly with it" *
              cml::needs_gpu())
    {
        const ReverseLaunch launch = recorded_launch(launch_for_this_gpu());
        const auto [limits, capability] = limits_of_this_gpu();
        check_fits(launch, limits, capability, 32, "this GPU");
        check_reverse(1'000'003, launch);
    }
}

TEST_SUITE("C: reverse")
{
    TEST_CASE("reverses arrays of 0, 1, 31, 32, 33, 255, 257, 2047, 2048, 2049 and 1000003 floats with the launch "
              "for this GPU" *
              cml::needs_gpu())
    {
        const ReverseLaunch launch = launch_for_this_gpu();
        for (int n : kEdges) {
            CAPTURE(n);
            check_reverse(n, launch);
        }
    }

    TEST_CASE("reverses with any launch it is given: 32 to 1024 threads, tiles of one float per thread to 115 KB" *
              cml::needs_gpu())
    {
        const std::vector<ReverseLaunch> launches = {{32, 32}, {96, 300}, {128, 4097}, {256, 2048},
                                                     {1024, 1024}, {1024, 3000}, kOneBlockPerSm};
        for (const ReverseLaunch& launch : launches) {
            CAPTURE(launch.threads);
            CAPTURE(launch.tile);
            for (int n : {1, 33, 4099, 100'003}) {
                CAPTURE(n);
                check_reverse(n, launch);
            }
        }
    }

    TEST_CASE("writes every element and nothing past n" * cml::needs_gpu())
    {
        for (const ReverseLaunch launch : {ReverseLaunch{256, 2048}, kOneBlockPerSm}) {
            for (int n : {1, 33, 2049, 40'000}) {
                CAPTURE(launch.tile);
                CAPTURE(n);
                check_every_output_and_nothing_past_n(
                    n, [&](const float* in, float* out, int size) { reverse(in, out, size, launch); });
            }
        }
    }

    TEST_CASE("reverses at the sizes the grader drew for this run" * cml::needs_grader_sizes())
    {
        const ReverseLaunch launch = launch_for_this_gpu();
        for (const std::vector<int>& size : cml::grader_sizes(1, "n")) {
            CAPTURE(size[0]);
            check_reverse(size[0], launch);
        }
    }
}

TEST_SUITE("stretch: reverse_in_flight")
{
    TEST_CASE("in flight: reverses arrays of 0, 1, 31, 32, 33, 255, 257, 2047, 2048, 2049 and 1000003 floats" *
              cml::needs_gpu(reverse_in_flight_attempted))
    {
        for (int n : kEdges) {
            CAPTURE(n);
            const std::vector<float> in = cml::random_floats(std::size_t(n));
            cml::DeviceBuffer<float> in_dev(in), out_dev(in.size());
            out_dev.poison();
            reverse_in_flight(in_dev.data(), out_dev.data(), n);
            CML_CHECK(cudaDeviceSynchronize());
            const cml::Comparison result = cml::compare(out_dev.download(), reverse_reference(in), {0.0, 0.0});
            CHECK_MESSAGE(result.ok, result.describe());
        }
    }

    TEST_CASE("in flight: writes every element and nothing past n, across tile edges (29441, 58883)" *
              cml::needs_gpu(reverse_in_flight_attempted))
    {
        for (int n : {1, 5, 29'441, 58'883}) {
            CAPTURE(n);
            check_every_output_and_nothing_past_n(n, reverse_in_flight);
        }
    }
}
