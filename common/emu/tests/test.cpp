// The emulator's own tests: what CUDA promises for warp-level functions, votes, barrier reductions, shared
// memory (down to its bytes), atomics, cooperative groups and mapped host memory. The cases skipped by default
// are planted bugs, each run alone by grader/tests/emulator/test_emulator.py: a deadlock reported rather than hung (it
// leaves the runtime failed), and accesses and races that memcheck, initcheck and racecheck must report
// (CML_EMU_CHECK).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cml/device_buffer.hpp"
#include "kernels.hpp"

namespace {

// What the launch of a planted access outside every allocation returns: with memcheck, success (memcheck
// reported the access, which was not made, and the thread stopped there); without, what a GPU returns.
cudaError_t after_a_bad_access()
{
    const char* checks = std::getenv("CML_EMU_CHECK");
    const bool memcheck = checks && (std::strstr(checks, "memcheck") || std::strstr(checks, "all"));
    return memcheck ? cudaSuccess : cudaErrorIllegalAddress;
}

}  // namespace

TEST_CASE("shuffles read the lane they name, and their own value where none is in range")
{
    cml::DeviceBuffer<int> out(5 * 32);
    out.poison();
    shuffles(out.data());
    CML_CHECK(cudaDeviceSynchronize());
    const std::vector<int> got = out.download();
    for (int lane = 0; lane < 32; ++lane) {
        CAPTURE(lane);
        CHECK(got[0 * 32 + lane] == (31 - lane) * 10);
        CHECK(got[1 * 32 + lane] == (lane >= 3 ? lane - 3 : lane) * 10);
        CHECK(got[2 * 32 + lane] == (lane + 5 < 32 ? lane + 5 : lane) * 10);
        CHECK(got[3 * 32 + lane] == (lane ^ 1) * 10);
        CHECK(got[4 * 32 + lane] == (lane % 8 < 7 ? lane + 1 : lane) * 10);
    }
}

TEST_CASE("cooperative groups: tiles are consecutive ranks, and reduce, shuffle, ballot and sync act within them")
{
    cml::DeviceBuffer<int> out(7 * 64);
    out.poison();
    cooperative_groups_in_a_block(out.data());
    CML_CHECK(cudaDeviceSynchronize());
    const std::vector<int> got = out.download();
    for (int t = 0; t < 64; ++t) {
        CAPTURE(t);
        const int warp = t / 32, eighth = t / 8;
        CHECK(got[0 * 64 + t] == 32 * (32 * warp) + 31 * 32 / 2);
        CHECK(got[1 * 64 + t] == 8 * (8 * eighth) + 7 * 8 / 2);
        CHECK(got[2 * 64 + t] == warp * 100 + t % 32);
        CHECK(got[3 * 64 + t] == eighth * 100 + t % 8);
        CHECK(got[4 * 64 + t] == (t % 8 < 7 ? t + 1 : t));
        CHECK(got[5 * 64 + t] == 0x55);
        CHECK(got[6 * 64 + t] == 63 - t);
    }
}

TEST_CASE("votes and barrier reductions count the lanes and threads they should")
{
    cml::DeviceBuffer<unsigned> out(7);
    out.poison();
    votes(out.data());
    CML_CHECK(cudaDeviceSynchronize());
    const std::vector<unsigned> got = out.download();
    unsigned every_third = 0;
    for (int lane = 0; lane < 32; lane += 3) every_third |= 1u << lane;
    CHECK(got[0] == every_third);
    CHECK(got[1] == 1);
    CHECK(got[2] == 1);
    CHECK(got[3] == 0);
    CHECK(got[4] == 32);
    CHECK(got[5] == 1);
    CHECK(got[6] == 0);
}

TEST_CASE("static and dynamic shared memory: one copy per block, written before the barrier, read after")
{
    for (int threads : {32, 100, 1024}) {
        constexpr int kBlocks = 7;
        cml::DeviceBuffer<int> out(kBlocks * threads);
        out.poison();
        shared_reversal(out.data(), kBlocks, threads);
        CML_CHECK(cudaDeviceSynchronize());
        const std::vector<int> got = out.download();
        for (int b = 0; b < kBlocks; ++b)
            for (int t = 0; t < threads; ++t) REQUIRE(got[b * threads + t] == 3 * (threads - 1 - t) + b);
    }
}

TEST_CASE("atomics from every thread of every block, on several cores")
{
    constexpr int kBlocks = 64;
    cml::DeviceBuffer<int> count(std::vector<int>{0}), most(std::vector<int>{-1}), flag(std::vector<int>{0}),
        winners(std::vector<int>{0});
    cml::DeviceBuffer<float> sum(std::vector<float>{0.0f});
    atomics(count.data(), sum.data(), most.data(), flag.data(), winners.data(), kBlocks);
    CML_CHECK(cudaDeviceSynchronize());
    CHECK(count.download()[0] == kBlocks * 256);
    CHECK(sum.download()[0] == kBlocks * 256 * 0.5f);  // exact: multiples of 0.5 up to 8192
    CHECK(most.download()[0] == kBlocks * 256 - 1);
    CHECK(flag.download()[0] == 1);
    CHECK(winners.download()[0] == 1);
}

TEST_CASE("atomics on shared memory from every thread of a block")
{
    constexpr int kBlocks = 5, kThreads = 1000;
    cml::DeviceBuffer<int> out(kBlocks);
    out.poison();
    shared_atomics(out.data(), kBlocks, kThreads);
    CML_CHECK(cudaDeviceSynchronize());
    for (int count : out.download()) CHECK(count == kThreads);
}

TEST_CASE("cooperative groups: tiles of 32, 16, 8 and 4 rank, shuffle, vote, reduce and sync as CUDA says")
{
    cml::DeviceBuffer<int> out(4 * kCooperativeThreads * kTileFacts), block_facts(kCooperativeThreads * 4);
    out.poison();
    block_facts.poison();
    cooperative_group_facts(out.data(), block_facts.data());
    CML_CHECK(cudaDeviceSynchronize());
    const std::vector<int> got = out.download(), block = block_facts.download();
    int k = 0;
    for (int size : {32, 16, 8, 4}) {
        for (int r = 0; r < kCooperativeThreads; ++r) {
            CAPTURE(size);
            CAPTURE(r);
            const int* f = &got[std::size_t((k * kCooperativeThreads + r) * kTileFacts)];
            const int rank = r % size, first = r - rank;
            unsigned even = 0;
            for (int lane = 0; lane < size; lane += 2) even |= 1u << lane;
            CHECK(f[0] == rank);
            CHECK(f[1] == size);
            CHECK(f[2] == r / size);
            CHECK(f[3] == kCooperativeThreads / size);
            CHECK(f[4] == first);
            CHECK(f[5] == (rank < size - 1 ? r + 1 : r));
            CHECK(f[6] == (r ^ size / 2));
            CHECK(f[7] == size * first + size * (size - 1) / 2);
            CHECK(unsigned(f[8]) == even);
            CHECK(f[9] == 1);  // any: yes; all: no
            CHECK(f[10] == 2 * (first + (rank + 1) % size));
        }
        ++k;
    }
    for (int r = 0; r < kCooperativeThreads; ++r) {
        CAPTURE(r);
        CHECK(block[std::size_t(r * 4 + 0)] == kCooperativeThreads);
        CHECK(block[std::size_t(r * 4 + 1)] == r % 16);
        CHECK(block[std::size_t(r * 4 + 2)] == 16);
        CHECK(block[std::size_t(r * 4 + 3)] == 3 * (kCooperativeThreads - 1 - r));
    }
}

TEST_CASE("threads of different warps may write the bytes of one shared word, one byte or two each")
{
    cml::DeviceBuffer<int> out(3 * kByteThreads);
    out.poison();
    bytes_of_one_word(out.data());
    CML_CHECK(cudaDeviceSynchronize());
    const std::vector<int> got = out.download();
    for (int i = 0; i < kByteThreads; ++i) {
        CAPTURE(i);
        const int byte_writer = i % 4 * 32 + i / 4, half_writer = i % 2 * 64 + i / 2;
        CHECK(got[std::size_t(i)] == byte_writer + 1000 * half_writer);
        if (i < kByteThreads / 4) CHECK(got[std::size_t(kByteThreads + i)] == 32 + i);  // byte 4 i + 1
        CHECK(got[std::size_t(2 * kByteThreads + i)] == (kByteThreads - 1 - i) / 4);
    }
}

namespace {

// A 2 x 2 float texture of `texels` (0, 1 in row 0 and 2, 3 in row 1 unless given) in a CUDA array, sampled with
// `filter` and `address` at the points (x[k], y[k]), in texels or (normalized) in [0, 1).
std::vector<float> fetched(cudaTextureFilterMode filter, cudaTextureAddressMode address, bool normalized,
                           const std::vector<float>& x, const std::vector<float>& y,
                           const std::vector<float>& texels = {0.0f, 1.0f, 2.0f, 3.0f})
{
    const cudaChannelFormatDesc format = cudaCreateChannelDesc<float>();
    cudaArray_t array = nullptr;
    CML_CHECK(cudaMallocArray(&array, &format, 2, 2));
    CML_CHECK(cudaMemcpy2DToArray(array, 0, 0, texels.data(), 8, 8, 2, cudaMemcpyHostToDevice));
    cudaResourceDesc source{};
    source.resType = cudaResourceTypeArray;
    source.res.array.array = array;
    cudaTextureDesc how{};
    how.addressMode[0] = how.addressMode[1] = address;
    how.filterMode = filter;
    how.readMode = cudaReadModeElementType;
    how.normalizedCoords = normalized;
    cudaTextureObject_t texture = 0;
    CML_CHECK(cudaCreateTextureObject(&texture, &source, &how, nullptr));
    cml::DeviceBuffer<float> x_dev(x), y_dev(y), out(x.size());
    fetch_points(texture, x_dev.data(), y_dev.data(), out.data(), int(x.size()));
    CML_CHECK(cudaDeviceSynchronize());
    CML_CHECK(cudaDestroyTextureObject(texture));
    CML_CHECK(cudaFreeArray(array));
    return out.download();
}

}  // namespace

TEST_CASE("textures: linear filtering blends the four texels with weights in steps of 1/256, as the hardware's")
{
    // Between texel centres 0.5 and 1.5 of row 0 (values 0 and 1) the blend is the weight itself: 0.25 is a step,
    // 0.1 is not (26/256), and 1/1024 rounds to 0. Centres and the middle of all four are exact.
    const std::vector<float> got = fetched(cudaFilterModeLinear, cudaAddressModeClamp, false,
                                           {0.75f, 0.6f, 0.5f + 1.0f / 1024, 1.0f, 1.5f}, {0.5f, 0.5f, 0.5f, 1.0f, 1.5f});
    CHECK(got[0] == 0.25f);
    CHECK(got[1] == 26.0f / 256);
    CHECK(got[2] == 0.0f);
    CHECK(got[3] == 1.5f);
    CHECK(got[4] == 3.0f);
}

TEST_CASE("textures: the far texel's weight is the two weights' product rounded to a step again, halves up, as an "
          "H100's")
{
    // Texels 0, 0, 0, 1: inside, the blend is the far corner's weight alone. At fractions 0.3 and 0.7 the weights
    // are 77 and 179 steps, and their product 53.84 steps, held as 54; 128 steps by 1 step is half a step, held as
    // 1. Along the last row (the rows past it clamped to it) the blend is the weight across, and a fraction of half
    // a step is a whole one.
    const std::vector<float> corner = {0.0f, 0.0f, 0.0f, 1.0f};
    const std::vector<float> got = fetched(cudaFilterModeLinear, cudaAddressModeClamp, false,
                                           {0.8f, 1.0f, 0.5f + 0.5f / 256}, {1.2f, 0.5f + 1.0f / 256, 1.5f}, corner);
    CHECK(got[0] == 54.0f / 256);
    CHECK(got[1] == 1.0f / 256);
    CHECK(got[2] == 1.0f / 256);
}

TEST_CASE("textures: clamp repeats the edge texel, border reads 0, point filtering takes the texel under the point")
{
    const std::vector<float> x = {-3.0f, 5.0f, 1.2f}, y = {0.5f, 1.5f, 1.9f};
    const std::vector<float> clamped = fetched(cudaFilterModeLinear, cudaAddressModeClamp, false, x, y);
    // (1.2, 1.9): weight 0.7 across (rounded to 179/256), and both rows clamped to row 1, which holds 2 and 3.
    CHECK(clamped == std::vector<float>{0.0f, 3.0f, 2.0f + 179.0f / 256});
    const std::vector<float> border = fetched(cudaFilterModePoint, cudaAddressModeBorder, false, x, y);
    CHECK(border == std::vector<float>{0.0f, 0.0f, 3.0f});
    // Normalized: (0.75, 0.25) is texel (1, 0)'s centre on a 2 x 2 texture.
    CHECK(fetched(cudaFilterModePoint, cudaAddressModeClamp, true, {0.75f}, {0.25f}) == std::vector<float>{1.0f});
}

TEST_CASE("counted accesses: aggregates copied whole, library copies and fills, __constant__ reads and GCC atomics")
{
    std::vector<float> in(256);
    for (std::size_t i = 0; i < in.size(); ++i) in[i] = float(i);
    cml::DeviceBuffer<float> in_dev(in), out(256);
    out.poison();
    aggregate_copies(in_dev.data(), out.data());
    CML_CHECK(cudaDeviceSynchronize());
    std::vector<float> got = out.download();
    CHECK(std::equal(in.begin(), in.begin() + 224, got.begin()));  // 32 float4s, then 32 structs of 3 floats

    out.poison();
    library_copies(in_dev.data(), out.data(), 4 * sizeof(float));
    CML_CHECK(cudaDeviceSynchronize());
    got = out.download();
    CHECK(std::equal(in.begin(), in.begin() + 128, got.begin()));
    CHECK(std::all_of(got.begin() + 128, got.end(), [](float v) { return v == 0.0f; }));

    const std::vector<float> table = {1.0f, 2.0f, 4.0f, 8.0f};
    set_counted_table(table.data());
    cml::DeviceBuffer<float> sums(32);
    constant_reads(sums.data());
    CML_CHECK(cudaDeviceSynchronize());
    const std::vector<float> summed = sums.download();
    for (int t = 0; t < 32; ++t) CHECK(summed[t] == 2 * table[t % kCountedEntries]);

    cml::DeviceBuffer<unsigned> counter(1);
    CML_CHECK(cudaMemset(counter.data(), 0, sizeof(unsigned)));
    builtin_atomics(counter.data());
    CML_CHECK(cudaDeviceSynchronize());
    CHECK(counter.download()[0] == 32u);
}

TEST_CASE("mapped host memory: kernels write it at the address cudaHostGetDevicePointer gives, until it is freed")
{
    constexpr std::size_t kBytes = 32 * sizeof(int);
    int* mapped = nullptr;
    int* on_device = nullptr;
    CHECK(cudaHostAlloc(&mapped, kBytes, cudaHostAllocMapped) == cudaSuccess);
    std::fill(mapped, mapped + 32, 7);
    CHECK(cudaHostGetDevicePointer(&on_device, mapped, 0) == cudaSuccess);
    write_to_host_memory(on_device);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(std::vector<int>(mapped, mapped + 32) == std::vector<int>(32, -1));
    cudaPointerAttributes attributes{};
    CHECK(cudaPointerGetAttributes(&attributes, mapped) == cudaSuccess);
    CHECK(attributes.type == cudaMemoryTypeHost);
    CHECK(attributes.devicePointer == on_device);
    CHECK(cudaFreeHost(mapped) == cudaSuccess);

    // Pinned without the mapped flag: CUDA promises no device pointer for it.
    int* pinned = nullptr;
    CHECK(cudaMallocHost(&pinned, kBytes) == cudaSuccess);
    CHECK(cudaHostGetDevicePointer(&on_device, pinned, 0) == cudaErrorInvalidValue);
    CHECK(cudaFreeHost(pinned) == cudaSuccess);
    CHECK(cudaFreeHost(pinned) == cudaErrorInvalidValue);
    cudaGetLastError();
}

TEST_CASE("mapped host memory: the caller's memory registered with the mapped flag, once, until unregistered")
{
    constexpr std::size_t kBytes = 32 * sizeof(int);
    std::vector<int> host(32, 7);
    int* on_device = nullptr;
    CHECK(cudaHostRegister(host.data(), kBytes, cudaHostRegisterMapped) == cudaSuccess);
    CHECK(cudaHostRegister(host.data() + 8, 4, cudaHostRegisterMapped) == cudaErrorHostMemoryAlreadyRegistered);
    CHECK(cudaHostGetDevicePointer(&on_device, host.data(), 0) == cudaSuccess);
    write_to_host_memory(on_device);
    CHECK(cudaDeviceSynchronize() == cudaSuccess);
    CHECK(host == std::vector<int>(32, -1));
    CHECK(cudaHostUnregister(host.data()) == cudaSuccess);
    cudaPointerAttributes attributes{};
    CHECK(cudaPointerGetAttributes(&attributes, host.data()) == cudaSuccess);
    CHECK(attributes.type == cudaMemoryTypeUnregistered);
    CHECK(cudaHostUnregister(host.data()) == cudaErrorHostMemoryNotRegistered);
    CHECK(cudaHostGetDevicePointer(&on_device, host.data(), 0) == cudaErrorInvalidValue);
    cudaGetLastError();
}

TEST_CASE("a cooperative launch keeps every block across grid.sync(), more blocks than workers")
{
    constexpr int kBlocks = 9;
    cml::DeviceBuffer<int> out(2 * kBlocks);
    grid_sync_neighbours(out.data(), kBlocks);
    const std::vector<int> got = out.download();
    for (int b = 0; b < kBlocks; ++b) CHECK(got[std::size_t(kBlocks + b)] == b + 1 + (b + 1) % kBlocks + 1);
}

TEST_CASE("a grid.sync() that waits for a block that returned fails its launch instead of hanging" * doctest::skip())
{
    cml::DeviceBuffer<int> out(4);
    grid_sync_without_block_zero(out.data(), 4);
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
}

TEST_CASE("grid.sync() in a launch that is not cooperative fails it" * doctest::skip())
{
    cml::DeviceBuffer<int> out(2);
    grid_sync_not_cooperative(out.data());
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
}

TEST_CASE("a block whose threads wait for each other fails its launch instead of hanging" * doctest::skip())
{
    cml::DeviceBuffer<int> out(32);
    deadlock(out.data());
    CHECK(cudaDeviceSynchronize() == cudaErrorLaunchFailure);
}

TEST_CASE("planted: a read one element past the end of an allocation" * doctest::skip())
{
    cml::DeviceBuffer<int> in(100), out(1);
    read_past_the_end(in.data(), 100, out.data());
    CHECK(cudaDeviceSynchronize() == after_a_bad_access());
}

TEST_CASE("planted: writes 64 KB past the end of an allocation" * doctest::skip())
{
    cml::DeviceBuffer<int> out(100);
    write_far_past_the_end(out.data(), 100);
    CHECK(cudaDeviceSynchronize() == after_a_bad_access());
}

TEST_CASE("planted: reads 4 GB past the end of an allocation where nothing is" * doctest::skip())
{
    cml::DeviceBuffer<int> in(100), out(32);
    out.poison();
    wild_read(in.data(), out.data());
    CHECK(cudaDeviceSynchronize() == after_a_bad_access());
}

TEST_CASE("planted: writes to the host's memory are not made" * doctest::skip())
{
    std::vector<int> host(32, 7);
    write_to_host_memory(host.data());
    CHECK(cudaDeviceSynchronize() == after_a_bad_access());
    CHECK(host == std::vector<int>(32, 7));
}

TEST_CASE("planted: reads past the end of a __shared__ array" * doctest::skip())
{
    cml::DeviceBuffer<int> out(32);
    shared_past_the_end(out.data());
    CHECK(cudaDeviceSynchronize() == after_a_bad_access());
}

TEST_CASE("planted: an atomic before the start of a __shared__ array" * doctest::skip())
{
    cml::DeviceBuffer<int> out(32);
    shared_before_the_start(out.data());
    CHECK(cudaDeviceSynchronize() == after_a_bad_access());
}

TEST_CASE("planted: two tiles of one warp read each other's slots after each synced alone" * doctest::skip())
{
    cml::DeviceBuffer<int> out(32);
    tiles_of_one_warp_race(out.data());
    CML_CHECK(cudaDeviceSynchronize());
}

TEST_CASE("planted: two threads write one byte, and one reads a byte the other wrote" * doctest::skip())
{
    cml::DeviceBuffer<int> out(1);
    byte_races(out.data());
    CML_CHECK(cudaDeviceSynchronize());
}

TEST_CASE("planted: a shared bin zeroed by one thread while another adds to it" * doctest::skip())
{
    cml::DeviceBuffer<int> out(1);
    zeroed_while_added_to(out.data());
    CML_CHECK(cudaDeviceSynchronize());
    CHECK(out.download()[0] == 64);
}

TEST_CASE("planted: reads of __shared__ memory no thread wrote" * doctest::skip())
{
    cml::DeviceBuffer<int> out(32);
    unwritten_shared(out.data());
    CML_CHECK(cudaDeviceSynchronize());
}
