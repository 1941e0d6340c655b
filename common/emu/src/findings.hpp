// What the checks find, printed the way compute-sanitizer prints it ("=========" lines, one summary per
// tool), and the exit status that says a check found something.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>

#include <vector_types.h>

#include "memory.hpp"

namespace cml_emu {

enum class FindingKind : std::uint8_t {
    invalid_global,        // memcheck: in a red zone of an allocation
    misaligned,            // memcheck: an access of N bytes at an address not a multiple of N
    invalid_shared,        // memcheck: outside the block's shared variables
    uninitialized_shared,  // initcheck: a read of shared memory that no thread of the block wrote
    race_raw,              // racecheck: a read of what another thread wrote, with no barrier between
    race_war,              // racecheck: a write over what another thread read, with no barrier between
    race_waw,              // racecheck: two threads' writes, with no barrier between
    barrier,               // a barrier or warp-level call that some threads can never reach
};

struct Finding {
    FindingKind kind = FindingKind::invalid_global;
    bool warning = false;  // racecheck: both threads in one warp (what a lock-step warp idiom gives)
    bool store = false;    // the (second) access is a write
    bool first_store = false;
    unsigned size = 0;
    Space space = Space::global;
    const void* kernel = nullptr;
    const void* pc = nullptr;        // the access (the second one of a race)
    const void* first_pc = nullptr;  // a race's first access
    uint3 thread{}, block{}, first_thread{};
    std::uintptr_t address = 0;
    Allocation nearest{};
    bool has_nearest = false;
    std::ptrdiff_t shared_offset = 0;  // below 0: before the block's first shared byte
    std::string detail;
    unsigned long long count = 1;
};

// Where a finding is: the same kind at the same instructions is one finding, counted. A race between threads
// of one warp (a warning) and one between warps (an error) at the same instructions are two hazards.
struct Site {
    FindingKind kind;
    bool store;
    const void* kernel;
    const void* pc;
    const void* first_pc;
    bool warning = false;
    bool operator==(const Site& o) const
    {
        return kind == o.kind && store == o.store && kernel == o.kernel && pc == o.pc && first_pc == o.first_pc &&
               warning == o.warning;
    }
};

struct SiteHash {
    std::size_t operator()(const Site& s) const
    {
        std::size_t h = std::hash<const void*>()(s.pc) * 31 + std::hash<const void*>()(s.first_pc);
        return ((h * 31 + std::hash<const void*>()(s.kernel)) * 31 + std::size_t(s.kind) * 2 + s.store) * 2 + s.warning;
    }
};

// Per worker: findings of the current launch, one per site, counted.
class Findings {
public:
    void add(const Finding& finding);
    // Counts one more at `site`; `make()` describes it only the first time (most findings repeat).
    template <class Make>
    void add(const Site& site, Make make)
    {
        auto it = by_site_.find(site);
        if (it != by_site_.end()) {
            ++it->second.count;
            return;
        }
        by_site_.emplace(site, make());
    }
    void merge_into(Findings& other);
    bool empty() const { return by_site_.empty(); }
    std::unordered_map<Site, Finding, SiteHash>& by_site() { return by_site_; }

private:
    std::unordered_map<Site, Finding, SiteHash> by_site_;
};

// After a launch: prints the new findings of every worker and counts them for the summary.
void publish_findings(Findings& launch_findings);
// A launch's barrier error, printed at once (with or without checks: the kernel could not finish).
void report_barrier_error(const void* kernel, uint3 block, const std::string& detail);
// Once, at the first launch with a check on: which tools run.
void print_banner();
// At exit: each tool's summary line; true when a check found anything.
bool print_summaries();

}  // namespace cml_emu
