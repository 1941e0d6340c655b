// The worst request a line keeps (src/worst_request.hpp), against hand-worked cases: a 32 x 32 tile of floats
// read down a column (lane i reads tile[i][c]: 128 bytes apart, every lane in bank c, a 32-way conflict) and a
// warp reading floats 32 apart (32 sectors), the earliest request kept of equally bad ones, and the JSON's lanes
// as offsets from a 128-byte boundary.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "profile.hpp"
#include "worst_request.hpp"

namespace {

using cml_emu::LineCounters;
using cml_emu::Space;
using cml_emu::WorstRequest;

constexpr std::uintptr_t kTile = 0x7f0000001000;  // a tile's first byte, 128-byte aligned as shared memory is
constexpr unsigned kOrigin[3] = {0, 0, 0};

LineCounters counted(Space space, unsigned long long units, unsigned long long ideal, unsigned max_units)
{
    LineCounters c;
    c.space = space;
    c.size = 4;
    c.requests = 1;
    c.units = units;
    c.ideal = ideal;
    c.max_units = max_units;
    return c;
}

}  // namespace

TEST_CASE("a column of an unpadded tile is kept as 32 lanes 128 bytes apart, offsets from its 128-byte boundary")
{
    const int column = 5;
    std::uintptr_t lanes[32];
    for (int lane = 0; lane < 32; ++lane) lanes[lane] = kTile + 128 * lane + 4 * column;
    WorstRequest worst;
    worst.offer(counted(Space::shared, 32, 1, 32), lanes, 0, kOrigin, 0, 0);
    REQUIRE(worst.found());
    const std::string json = cml_emu::worst_request_json(worst);
    CHECK(json.find("\"units\": 32, \"ideal\": 1, \"max_ways\": 32") != std::string::npos);
    std::string expected = "\"lanes\": [";
    for (int lane = 0; lane < 32; ++lane) expected += (lane ? ", " : "") + std::to_string(128 * lane + 4 * column);
    CHECK(json.find(expected + "]") != std::string::npos);
}

TEST_CASE("of equally bad requests the first of the launch is kept, whichever worker offers it first")
{
    std::uintptr_t strided[32], coalesced[32];
    for (int lane = 0; lane < 32; ++lane) {
        strided[lane] = kTile + 128 * lane;
        coalesced[lane] = kTile + 4 * lane;
    }
    const unsigned later_block[3] = {3, 0, 0};
    WorstRequest from_block_3, from_block_0;
    from_block_3.offer(counted(Space::global, 32, 0, 32), strided, 3, later_block, 1, 0);
    from_block_0.offer(counted(Space::global, 4, 0, 4), coalesced, 0, kOrigin, 0, 0);
    from_block_0.offer(counted(Space::global, 32, 0, 32), strided, 0, kOrigin, 2, 7);
    from_block_0.offer(counted(Space::global, 32, 0, 32), strided, 0, kOrigin, 5, 0);  // as bad, later: not kept
    CHECK(from_block_0.warp == 2);
    CHECK(from_block_0.execution == 7);
    from_block_3.keep_worse(from_block_0);
    CHECK(from_block_3.block == 0);
    CHECK(from_block_3.warp == 2);
    CHECK(from_block_3.units == 32);
    from_block_0.keep_worse(WorstRequest{});  // nothing offered: nothing changes
    CHECK(from_block_0.units == 32);
}

TEST_CASE("an idle lane is written as null, and a global request has no ways of a bank")
{
    std::uintptr_t lanes[32] = {};
    lanes[1] = kTile + 64;
    lanes[2] = kTile + 68;
    WorstRequest worst;
    worst.offer(counted(Space::global, 1, 0, 1), lanes, 0, kOrigin, 0, 0);
    const std::string json = cml_emu::worst_request_json(worst);
    CHECK(json.find("\"lanes\": [null, 64, 68, null") != std::string::npos);
    CHECK(json.find("max_ways") == std::string::npos);
}
