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
#include <sstream>
#include <string>

#include "options.hpp"
#include "symbolize.hpp"

namespace cml_emu {
namespace {

constexpr unsigned kSectorBytes = 32;
constexpr unsigned kBanks = 32;

struct Group {
    const void* kernel;
    std::string range;
    unsigned long long launches;
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

LineCounters count_request(Space space, bool store, unsigned size, const std::uintptr_t* lanes)
{
    LineCounters c;
    c.space = space;
    c.store = store;
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

const char* space_name(Space space)
{
    return space == Space::global ? "global" : space == Space::shared ? "shared" : "constant";
}

std::string json_string(const std::string& text)
{
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

int push_range(const char* message)
{
    Session& s = session();
    std::lock_guard<std::mutex> lock(s.mutex);
    s.ranges.emplace_back(message ? message : "");
    return int(s.ranges.size()) - 1;
}

int pop_range()
{
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

}  // namespace

void LineCounters::add(const LineCounters& other)
{
    space = other.space;
    store = other.store;
    size = other.size;
    requests += other.requests;
    units += other.units;
    ideal += other.ideal;
    serialised += other.serialised;
    max_units = std::max(max_units, other.max_units);
}

void BlockProfile::begin_block(int warps)
{
    warps_.resize(std::size_t(warps));
    for (auto& w : warps_) w.clear();
}

void BlockProfile::record(const void* pc, int warp, int lane, Space space, bool store, std::uintptr_t address,
                          unsigned size)
{
    Instruction& in = warps_[std::size_t(warp)][pc];
    in.space = space;
    in.store = store;
    in.size = size;
    const std::size_t slot = std::size_t(in.executed[lane]++) * 32 + std::size_t(lane);
    if (in.slots.size() <= slot) in.slots.resize((slot / 32 + 1) * 32, 0);
    in.slots[slot] = address;
}

void BlockProfile::end_block(int group, LineTotals& totals)
{
    for (auto& warp : warps_) {
        for (auto& [pc, in] : warp) {
            LineCounters& line = totals[{group, pc}];
            for (std::size_t request = 0; request * 32 < in.slots.size(); ++request)
                line.add(count_request(in.space, in.store, in.size, &in.slots[request * 32]));
        }
        warp.clear();
    }
}

int note_launch(const void* kernel)
{
    Session& s = session();
    std::lock_guard<std::mutex> lock(s.mutex);
    std::string range;
    for (const std::string& r : s.ranges) range += (range.empty() ? "" : "/") + r;
    for (std::size_t g = 0; g < s.groups.size(); ++g) {
        if (s.groups[g].kernel == kernel && s.groups[g].range == range) {
            ++s.groups[g].launches;
            return int(g);
        }
    }
    s.groups.push_back(Group{kernel, range, 1});
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
    Session& s = session();
    std::lock_guard<std::mutex> lock(s.mutex);
    std::vector<const void*> pcs;
    for (const auto& [key, counters] : s.totals) pcs.push_back(key.second);
    const std::vector<SourceLocation> lines = symbolize(pcs, true);
    std::vector<const void*> kernel_addresses;
    for (const Group& g : s.groups) kernel_addresses.push_back(g.kernel);
    const std::vector<SourceLocation> kernels = symbolize(kernel_addresses, false);

    // Per kernel, per source line, space and direction: several instructions of one line add up.
    struct Row {
        std::string file;
        int line;
        LineCounters counters;
    };
    std::ostringstream json, table;
    json << "{\n  \"tool\": \"cml-emu\",\n  \"version\": 1,\n  \"kernels\": [";
    table << "========= CML-EMU counters per source line (requests are warp-wide executions of a memory instruction)\n";
    for (std::size_t k = 0; k < s.groups.size(); ++k) {
        const Group& group = s.groups[k];
        std::map<std::tuple<std::string, int, int, bool>, Row> rows;
        std::size_t i = 0;
        for (const auto& [key, counters] : s.totals) {
            const SourceLocation& where = lines[i++];
            if (key.first != int(k)) continue;
            Row& row = rows[{where.file, where.line, int(counters.space), counters.store}];
            row.file = where.file;
            row.line = where.line;
            row.counters.add(counters);
        }
        // Totals under the names of the Nsight Compute metrics they stand for.
        std::map<std::string, unsigned long long> metrics = {
            {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 0}, {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 0},
            {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 0}, {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", 0},
            {"smsp__inst_executed_op_shared_ld.sum", 0}, {"smsp__inst_executed_op_shared_st.sum", 0},
            {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 0},
            {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", 0},
            {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", 0},
            {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 0},
            {"cml_emu__constant_requests.sum", 0}, {"cml_emu__constant_addresses.sum", 0},
            {"cml_emu__constant_serialised_requests.sum", 0}};
        for (const auto& [key, row] : rows) {
            const LineCounters& c = row.counters;
            const char* op = c.store ? "st" : "ld";
            if (c.space == Space::global) {
                metrics[std::string("l1tex__t_requests_pipe_lsu_mem_global_op_") + op + ".sum"] += c.requests;
                metrics[std::string("l1tex__t_sectors_pipe_lsu_mem_global_op_") + op + ".sum"] += c.units;
            } else if (c.space == Space::shared) {
                metrics[std::string("smsp__inst_executed_op_shared_") + op + ".sum"] += c.requests;
                metrics[std::string("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_") + op + ".sum"] += c.units;
                metrics[std::string("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_") + op + ".sum"] += c.units - c.ideal;
            } else if (!c.store) {
                metrics["cml_emu__constant_requests.sum"] += c.requests;
                metrics["cml_emu__constant_addresses.sum"] += c.units;
                metrics["cml_emu__constant_serialised_requests.sum"] += c.serialised;
            }
        }
        json << (k ? "," : "") << "\n    {\n      \"name\": " << json_string(kernels[k].function)
             << ",\n      \"nvtx_range\": " << json_string(group.range) << ",\n      \"launches\": " << group.launches
             << ",\n      \"metrics\": {";
        bool first = true;
        for (const auto& [name, value] : metrics) {
            json << (first ? "" : ",") << "\n        " << json_string(name) << ": " << value;
            first = false;
        }
        json << "\n      },\n      \"lines\": [";
        table << "=========\n========= " << kernels[k].function << ", " << group.launches << " launch"
              << (group.launches == 1 ? "" : "es") << (group.range.empty() ? "" : " in NVTX range " + group.range)
              << "\n";
        first = true;
        for (const auto& [key, row] : rows) {
            const LineCounters& c = row.counters;
            const double per_request = c.requests ? double(c.units) / double(c.requests) : 0.0;
            json << (first ? "" : ",") << "\n        {\"file\": " << json_string(row.file) << ", \"line\": " << row.line
                 << ", \"space\": \"" << space_name(c.space) << "\", \"op\": \"" << (c.store ? "store" : "load")
                 << "\", \"bytes_per_lane\": " << c.size << ", \"requests\": " << c.requests;
            char text[256];
            const std::string file = row.file.substr(row.file.rfind('/') == std::string::npos ? 0 : row.file.rfind('/') + 1);
            if (c.space == Space::global) {
                json << ", \"sectors\": " << c.units << ", \"sectors_per_request\": " << per_request
                     << ", \"max_sectors\": " << c.max_units;
                std::snprintf(text, sizeof text, "%5.2f sectors per request (at most %u)", per_request, c.max_units);
            } else if (c.space == Space::shared) {
                const double conflicts = c.requests ? double(c.units - c.ideal) / double(c.requests) : 0.0;
                json << ", \"wavefronts\": " << c.units << ", \"bank_conflicts\": " << c.units - c.ideal
                     << ", \"bank_conflicts_per_request\": " << conflicts << ", \"max_ways\": " << c.max_units;
                std::snprintf(text, sizeof text, "%5.2f bank conflicts per request, %u-way at worst", conflicts,
                              c.max_units);
            } else {
                json << ", \"addresses\": " << c.units << ", \"addresses_per_request\": " << per_request
                     << ", \"serialised_requests\": " << c.serialised << ", \"max_addresses\": " << c.max_units;
                std::snprintf(text, sizeof text, "%5.2f addresses per request (at most %u)%s", per_request, c.max_units,
                              c.serialised ? ": serialised" : ": broadcast");
            }
            json << "}";
            char head[256];
            std::snprintf(head, sizeof head, "=========   %s:%-4d %-8s %-5s %10llu requests  ", file.c_str(), row.line,
                          space_name(c.space), c.store ? "store" : "load", c.requests);
            table << head << text << "\n";
            first = false;
        }
        json << "\n      ]\n    }";
    }
    json << "\n  ]\n}\n";
    std::fputs(table.str().c_str(), stderr);
    if (o.profile != "-" && o.profile != "1") std::ofstream(o.profile) << json.str();
}

}  // namespace cml_emu

NvtxInitializeInjectionNvtxFunc_t InitializeInjectionNvtx2_fnptr = cml_emu::initialize_nvtx;
