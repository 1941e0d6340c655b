#include "findings.hpp"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "options.hpp"
#include "symbolize.hpp"

namespace cml_emu {
namespace {

constexpr const char* kPrefix = "=========";

struct Totals {
    std::mutex mutex;
    unsigned long long errors = 0;  // occurrences, as compute-sanitizer's ERROR SUMMARY counts them
    int hazards = 0, hazard_errors = 0, hazard_warnings = 0;  // distinct races, as RACECHECK SUMMARY
    int printed_memcheck = 0, printed_racecheck = 0;
    std::unordered_map<Site, bool, SiteHash> seen;  // sites already counted in an earlier launch
};

Totals& totals()
{
    static Totals* t = new Totals;
    return *t;
}

Site site_of(const Finding& f) { return Site{f.kind, f.store, f.kernel, f.pc, f.first_pc, f.warning}; }

bool is_race(FindingKind kind)
{
    return kind == FindingKind::race_raw || kind == FindingKind::race_war || kind == FindingKind::race_waw;
}

std::string triple(uint3 v)
{
    return "(" + std::to_string(v.x) + "," + std::to_string(v.y) + "," + std::to_string(v.z) + ")";
}

const char* space_name(Space space)
{
    return space == Space::shared ? "__shared__" : space == Space::constant ? "__constant__" : "__global__";
}

std::string at(const void* pc)
{
    const SourceLocation where = symbolize({pc}, true)[0];
    return where.function + " in " + where.where();
}

void print_memory_error(const Finding& f)
{
    const char* access = f.store ? "write" : "read";
    std::string lines;
    auto line = [&](const std::string& text) { lines += std::string(kPrefix) + " " + text + "\n"; };
    if (f.kind == FindingKind::uninitialized_shared) {
        line("Uninitialized __shared__ memory read of size " + std::to_string(f.size) + " bytes");
    } else {
        line(std::string("Invalid ") + space_name(f.space) + " " + access + " of size " + std::to_string(f.size) +
             " bytes");
    }
    line("    at " + at(f.pc));
    line("    by thread " + triple(f.thread) + " in block " + triple(f.block));
    char address[64];
    std::snprintf(address, sizeof address, "0x%llx", static_cast<unsigned long long>(f.address));
    if (f.kind == FindingKind::misaligned) {
        line(std::string("    Address ") + address + " is misaligned");
    } else if (f.kind == FindingKind::uninitialized_shared) {
        line(std::string("    Address ") + address + " (byte " + std::to_string(f.shared_offset) +
             " of the block's shared memory) was written by no thread of the block before this read");
    } else if (f.kind == FindingKind::invalid_shared) {
        line(std::string("    Address ") + address + " is out of bounds: byte " + std::to_string(f.shared_offset) +
             " of the block's shared memory, which has " + f.detail);
    } else {
        line(std::string("    Address ") + address + " is out of bounds");
        if (f.has_nearest) {
            const long long distance = f.address < f.nearest.start
                                           ? static_cast<long long>(f.nearest.start - f.address)
                                           : static_cast<long long>(f.address - (f.nearest.start + f.nearest.size));
            const char* side = f.address < f.nearest.start ? "before" : "after";
            char nearest[160];
            std::snprintf(nearest, sizeof nearest, "and is %lld bytes %s the nearest allocation at 0x%llx of size %zu bytes",
                          distance, side, static_cast<unsigned long long>(f.nearest.start), f.nearest.size);
            line(std::string("    ") + nearest);
        }
    }
    if (f.count > 1) line("    (" + std::to_string(f.count) + " such accesses from this line in this launch)");
    line("");
    std::fputs(lines.c_str(), stderr);
}

void print_race(const Finding& f)
{
    const char* first = f.first_store ? "Write" : "Read";
    const char* second = f.store ? "Write" : "Read";
    std::string text = std::string(kPrefix) + " " + (f.warning ? "Warning" : "Error") + ": Race reported between " +
                       first + " access at " + at(f.first_pc) + "\n";
    text += std::string(kPrefix) + "     and " + second + " access at " + at(f.pc) + " [" + std::to_string(f.count) +
            " hazards]\n";
    text += std::string(kPrefix) + "     threads " + triple(f.first_thread) + " and " + triple(f.thread) +
            " of block " + triple(f.block) + (f.warning ? ", one warp with no __syncwarp() between" : "") + "\n";
    text += std::string(kPrefix) + "\n";
    std::fputs(text.c_str(), stderr);
}

}  // namespace

bool print_summaries()
{
    const Options& o = options();
    Totals& t = totals();
    std::lock_guard<std::mutex> lock(t.mutex);
    if (o.racecheck)
        std::fprintf(stderr, "%s RACECHECK SUMMARY: %d hazards displayed (%d errors, %d warnings)\n", kPrefix,
                     t.hazards, t.hazard_errors, t.hazard_warnings);
    std::fprintf(stderr, "%s ERROR SUMMARY: %llu error%s\n", kPrefix, t.errors, t.errors == 1 ? "" : "s");
    return t.errors > 0 || t.hazards > 0;
}


void Findings::add(const Finding& finding)
{
    auto [it, inserted] = by_site_.try_emplace(site_of(finding), finding);
    if (!inserted) it->second.count += finding.count;
}

void Findings::merge_into(Findings& other)
{
    for (auto& [key, f] : by_site_) {
        auto [it, inserted] = other.by_site_.try_emplace(key, f);
        if (!inserted) it->second.count += f.count;
    }
    by_site_.clear();
}

void publish_findings(Findings& launch_findings)
{
    const Options& o = options();
    Totals& t = totals();
    std::lock_guard<std::mutex> lock(t.mutex);
    for (auto& [site, f] : launch_findings.by_site()) {
        const bool race = is_race(f.kind);
        const bool first_time = t.seen.emplace(site, true).second;
        if (!race || !f.warning) t.errors += race ? 1 : f.count;
        if (race && first_time) {
            ++t.hazards;
            ++(f.warning ? t.hazard_warnings : t.hazard_errors);
        }
        if (!first_time) continue;
        int& printed = race ? t.printed_racecheck : t.printed_memcheck;
        if (printed >= o.print_limit) continue;
        ++printed;
        if (race) {
            print_race(f);
        } else {
            print_memory_error(f);
        }
    }
    launch_findings.by_site().clear();
}

void report_barrier_error(const void* kernel, uint3 block, const std::string& detail)
{
    const SourceLocation where = symbolize({kernel}, false)[0];
    std::string text = std::string(kPrefix) + " Barrier error detected. " + detail + "\n";
    text += std::string(kPrefix) + "     in " + where.function + ", block " + triple(block) + "\n";
    text += std::string(kPrefix) + "\n";
    std::fputs(text.c_str(), stderr);
    std::lock_guard<std::mutex> lock(totals().mutex);
    ++totals().errors;
}

void print_banner()
{
    static std::once_flag once;
    std::call_once(once, [] {
        const Options& o = options();
        std::string tools;
        for (auto [on, name] : {std::pair{o.memcheck, "memcheck"}, std::pair{o.racecheck, "racecheck"},
                                std::pair{o.initcheck, "initcheck"}})
            if (on) tools += std::string(tools.empty() ? "" : ",") + name;
        std::fprintf(stderr, "%s CML-EMU: kernels run on the CPU under emulation; tools: %s\n", kPrefix, tools.c_str());
    });
}

}  // namespace cml_emu
