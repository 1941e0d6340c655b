#include "profile.hpp"

#include <cstdint>

// NVTX ranges (nvtxRangePushA/Pop) reach the emulator as a statically linked injection (nvtxInit.h): this
// symbol, declared before the header (which reads it) and defined at the end of this file.
#define NVTX_STATIC_INJECTION_IMPL
extern "C" int (*InitializeInjectionNvtx2_fnptr)(const void* (*)(std::uint32_t));
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <string>
#include <tuple>

#include "options.hpp"
#include "profile_report.hpp"
#include "schedule.hpp"
#include "symbolize.hpp"

namespace cml_emu {
namespace {

constexpr unsigned kSectorBytes = 32;
constexpr unsigned kBanks = 32;

struct Group {
    const void* kernel;
    std::string range;
    unsigned long long launches;
    LaunchShapes shapes;
};

struct Session {
    std::mutex mutex;
    std::vector<Group> groups;  // in the order of their first launch
    std::vector<std::string> ranges;  // the NVTX ranges open now, outermost first
    LineTotals totals;
};

Session& session()
{
    static Session* s = new Session;
    return *s;
}

LineCounters count_request(Space space, bool store, bool atomic, unsigned size, const std::uintptr_t* lanes)
{
    LineCounters c;
    c.space = space;
    c.store = store;
    c.atomic = atomic;
    c.size = size;
    c.requests = 1;
    std::uintptr_t units[64];
    int n = 0;
    if (space == Space::global) {
        for (int lane = 0; lane < 32; ++lane) {
            if (!lanes[lane]) continue;
            for (std::uintptr_t s = lanes[lane] / kSectorBytes; s <= (lanes[lane] + size - 1) / kSectorBytes && n < 64; ++s)
                units[n++] = s;
        }
        std::sort(units, units + n);
        c.units = std::size_t(std::unique(units, units + n) - units);
        c.max_units = unsigned(c.units);
    } else if (space == Space::constant) {
        for (int lane = 0; lane < 32; ++lane)
            if (lanes[lane]) units[n++] = lanes[lane] / 4;
        std::sort(units, units + n);
        c.units = std::size_t(std::unique(units, units + n) - units);
        c.max_units = unsigned(c.units);
        c.serialised = c.units > 1;
    } else {
        // Shared memory serves 128 bytes per wavefront: 32 lanes of 4 bytes, 16 of 8 or 8 of 16 (a phase).
        // In a phase, a bank holding k different words takes k wavefronts; lanes reading one word share it.
        const int per_phase = size <= 4 ? 32 : size == 8 ? 16 : 8;
        for (int phase = 0; phase < 32; phase += per_phase) {
            std::uintptr_t words[32 * 4];
            int m = 0;
            for (int lane = phase; lane < phase + per_phase; ++lane) {
                if (!lanes[lane]) continue;
                for (std::uintptr_t w = lanes[lane] / 4; w <= (lanes[lane] + size - 1) / 4; ++w) words[m++] = w;
            }
            if (m == 0) continue;
            std::sort(words, words + m);
            m = int(std::unique(words, words + m) - words);
            unsigned per_bank[kBanks] = {};
            unsigned ways = 0;
            for (int i = 0; i < m; ++i) ways = std::max(ways, ++per_bank[words[i] % kBanks]);
            c.units += ways;
            c.ideal += 1;
            c.max_units = std::max(c.max_units, ways);
        }
        c.serialised = c.units > c.ideal;
    }
    return c;
}

int push_range(const char* message)
{
    schedule::range_pushed(message);
    Session& s = session();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.ranges.emplace_back(message ? message : "");
    return int(s.ranges.size()) - 1;
}

int pop_range()
{
    schedule::range_popped();
    Session& s = session();
    std::lock_guard<std::mutex> lock(s.mutex);
    if (s.ranges.empty()) return -1;
    s.ranges.pop_back();
    return int(s.ranges.size());
}

int initialize_nvtx(NvtxGetExportTableFunc_t export_table)
{
    const auto* callbacks = static_cast<const NvtxExportTableCallbacks*>(export_table(NVTX_ETID_CALLBACKS));
    NvtxFunctionTable table = nullptr;
    unsigned size = 0;
    if (!callbacks || !callbacks->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &table, &size) || !table) return 0;
    if (size > NVTX_CBID_CORE_RangePop) {
        *table[NVTX_CBID_CORE_RangePushA] = reinterpret_cast<NvtxFunctionPointer>(&push_range);
        *table[NVTX_CBID_CORE_RangePop] = reinterpret_cast<NvtxFunctionPointer>(&pop_range);
    }
    return 1;
}

// Per kernel group, a row per source line, space and direction: several instructions of a line add up.
std::vector<KernelReport> kernel_reports()
{
    Session& s = session();
    std::lock_guard<std::mutex> lock(s.mutex);
    std::vector<const void*> pcs, kernel_addresses;
    for (const auto& [key, counters] : s.totals) pcs.push_back(key.second);
    for (const Group& g : s.groups) kernel_addresses.push_back(g.kernel);
    const std::vector<SourceLocation> lines = symbolize(pcs, true);
    const std::vector<SourceLocation> names = symbolize(kernel_addresses, false);

    std::vector<std::map<std::tuple<std::string, int, int, bool, bool>, LineRow>> rows(s.groups.size());
    std::size_t i = 0;
    for (const auto& [key, counters] : s.totals) {
        const SourceLocation& where = lines[i++];
        LineRow& row = rows[std::size_t(key.first)][{where.file, where.line, int(counters.space), counters.store, counters.atomic}];
        row.file = where.file;
        row.line = where.line;
        row.counters.add(counters);
    }
    std::vector<KernelReport> kernels;
    for (std::size_t k = 0; k < s.groups.size(); ++k) {
        KernelReport& kernel = kernels.emplace_back();
        kernel.name = names[k].function;
        kernel.range = s.groups[k].range;
        kernel.launches = s.groups[k].launches;
        kernel.shapes = s.groups[k].shapes;
        for (const auto& [key, row] : rows[k]) kernel.rows.push_back(row);
    }
    return kernels;
}

}  // namespace

void LineCounters::add(const LineCounters& other)
{
    space = other.space;
    store = other.store;
    atomic = other.atomic;
    size = other.size;
    requests += other.requests;
    units += other.units;
    ideal += other.ideal;
    serialised += other.serialised;
    max_units = std::max(max_units, other.max_units);
    worst.keep_worse(other.worst);
}

void BlockProfile::begin_block(int warps, unsigned long long block, const unsigned* block_index)
{
    block_ = block;
    for (int axis = 0; axis < 3; ++axis) block_index_[axis] = block_index ? block_index[axis] : 0;
    warps_.resize(std::size_t(warps));
    for (auto& w : warps_) w.clear();
}

void BlockProfile::record(const void* pc, int warp, int lane, Space space, bool store, bool atomic,
                          std::uintptr_t address, unsigned size)
{
    Instruction& in = warps_[std::size_t(warp)][pc];
    in.space = space;
    in.store = store;
    in.atomic = atomic;
    in.size = size;
    const std::size_t slot = std::size_t(in.executed[lane]++) * 32 + std::size_t(lane);
    if (in.slots.size() <= slot) in.slots.resize((slot / 32 + 1) * 32, 0);
    in.slots[slot] = address;
}

void BlockProfile::end_block(int group, LineTotals& totals)
{
    for (std::size_t w = 0; w < warps_.size(); ++w) {
        for (auto& [pc, in] : warps_[w]) {
            LineCounters& line = totals[{group, pc}];
            for (std::size_t request = 0; request * 32 < in.slots.size(); ++request) {
                const std::uintptr_t* lanes = &in.slots[request * 32];
                const LineCounters counted = count_request(in.space, in.store, in.atomic, in.size, lanes);
                line.add(counted);
                line.worst.offer(counted, lanes, block_, block_index_, unsigned(w), request);
            }
        }
        warps_[w].clear();
    }
}

int note_launch(const void* kernel, const LaunchShapes& shape)
{
    Session& s = session();
    std::lock_guard<std::mutex> lock(s.mutex);
    std::string range;
    for (const std::string& r : s.ranges) range += (range.empty() ? "" : "/") + r;
    for (std::size_t g = 0; g < s.groups.size(); ++g) {
        if (s.groups[g].kernel == kernel && s.groups[g].range == range) {
            ++s.groups[g].launches;
            s.groups[g].shapes.add(shape);
            return int(g);
        }
    }
    s.groups.push_back(Group{kernel, range, 1, shape});
    return int(s.groups.size()) - 1;
}

void merge_profile(LineTotals& worker_totals)
{
    Session& s = session();
    std::lock_guard<std::mutex> lock(s.mutex);
    for (const auto& [key, counters] : worker_totals) s.totals[key].add(counters);
    worker_totals.clear();
}

void write_profile()
{
    const Options& o = options();
    const std::vector<KernelReport> kernels = kernel_reports();
    std::fputs(table_report(kernels).c_str(), stderr);
    if (o.profile != "-" && o.profile != "1") std::ofstream(o.profile) << json_report(kernels);
}

}  // namespace cml_emu

NvtxInitializeInjectionNvtxFunc_t InitializeInjectionNvtx2_fnptr = cml_emu::initialize_nvtx;
