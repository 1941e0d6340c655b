#include "worst_request.hpp"

#include <algorithm>
#include <sstream>
#include <tuple>

#include "profile.hpp"

namespace cml_emu {
namespace {

constexpr int kLanes = 32;
constexpr std::uintptr_t kLineBytes = 128;  // a multiple of a sector (32 bytes) and of the 32 banks' row (128)

// What makes one request worse than another: its sectors or addresses, or the wavefronts its bank conflicts add.
unsigned long long cost_of(const LineCounters& c)
{
    return c.space == Space::shared ? c.units - c.ideal : c.units;
}

bool earlier(const WorstRequest& a, const WorstRequest& b)
{
    return std::tie(a.block, a.warp, a.execution) < std::tie(b.block, b.warp, b.execution);
}

}  // namespace

void WorstRequest::offer(const LineCounters& counted, const std::uintptr_t* addresses,
                         unsigned long long block_linear, const unsigned* block_xyz, unsigned warp_in_block,
                         unsigned long long execution_number)
{
    const unsigned long long offered = cost_of(counted);
    if (found()) {
        if (offered < cost) return;
        if (offered == cost && std::tie(block, warp, execution) <=
                                   std::tie(block_linear, warp_in_block, execution_number)) return;
    }
    cost = offered;
    block = block_linear;
    std::copy(block_xyz, block_xyz + 3, block_index);
    warp = warp_in_block;
    execution = execution_number;
    space = counted.space;
    size = counted.size;
    units = counted.units;
    ideal = counted.ideal;
    max_units = counted.max_units;
    lanes.assign(addresses, addresses + kLanes);
}

void WorstRequest::keep_worse(const WorstRequest& other)
{
    if (!other.found()) return;
    if (!found() || other.cost > cost || (other.cost == cost && earlier(other, *this))) *this = other;
}

std::string worst_request_json(const WorstRequest& worst)
{
    std::uintptr_t lowest = UINTPTR_MAX;
    for (std::uintptr_t address : worst.lanes)
        if (address) lowest = std::min(lowest, address);
    const std::uintptr_t base = lowest / kLineBytes * kLineBytes;
    std::ostringstream json;
    json << "{\"block\": [" << worst.block_index[0] << ", " << worst.block_index[1] << ", " << worst.block_index[2]
         << "], \"warp\": " << worst.warp << ", \"execution\": " << worst.execution
         << ", \"bytes_per_lane\": " << worst.size << ", \"units\": " << worst.units << ", \"ideal\": " << worst.ideal;
    if (worst.space == Space::shared) json << ", \"max_ways\": " << worst.max_units;
    json << ", \"lanes\": [";
    for (std::size_t lane = 0; lane < worst.lanes.size(); ++lane) {
        json << (lane ? ", " : "");
        if (worst.lanes[lane])
            json << worst.lanes[lane] - base;
        else
            json << "null";
    }
    json << "]}";
    return json.str();
}

}  // namespace cml_emu
