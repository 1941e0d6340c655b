#include "racecheck.hpp"

#include <sys/mman.h>

#include <algorithm>

#include "options.hpp"
#include "runtime_state.hpp"
#include "shared_memory.hpp"

namespace cml_emu {
namespace {

// True when `earlier` (by another thread) happened before the current access of `thread` in this epoch.
bool ordered(const Block& block, const ThreadState& thread, std::int32_t earlier_rank, std::uint32_t clock,
             std::uint32_t epoch)
{
    if (epoch != block.epoch) return true;  // a __syncthreads() lies between
    const ThreadState& other = block.threads[std::size_t(earlier_rank)];
    return other.warp == thread.warp && thread.clock[other.lane] > clock;
}

}  // namespace

// Mapped, not allocated: the pages stay untouched, and cost nothing, until a block's accesses reach them.
template <class T>
T* mapped_zeros(std::size_t count)
{
    void* memory = mmap(nullptr, count * sizeof(T), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                        -1, 0);
    if (memory == MAP_FAILED) fatal("out of memory for racecheck's shadow of shared memory");
    return static_cast<T*>(memory);
}

SharedShadow::SharedShadow()
    : words_(mapped_zeros<State>(SharedMemory::kCapacity / 4)), bytes_(mapped_zeros<State>(SharedMemory::kCapacity))
{
}

SharedShadow::~SharedShadow()
{
    munmap(words_, SharedMemory::kCapacity / 4 * sizeof(State));
    munmap(bytes_, SharedMemory::kCapacity * sizeof(State));
}

// One access `now` of the bytes `state` describes: what it races with, then what it leaves.
template <class Report, class Uninitialized>
inline __attribute__((always_inline)) void SharedShadow::touch(State& state, const Access& now, const Block& block,
                                                               const ThreadState& thread, const Options& o,
                                                               Report& report, Uninitialized& uninitialized)
{
    // Two atomics never race: only a plain access on either side makes a hazard.
    const bool foreign_write = state.written && state.write.rank != thread.rank && !(now.atomic && state.write.atomic) &&
                               !ordered(block, thread, state.write.rank, state.write.clock, state.write.epoch);
    if (!now.store) {
        if (!state.written && o.initcheck) uninitialized();
        if (foreign_write && o.racecheck) report(FindingKind::race_raw, state.write);
        // Keep this thread's latest read, and one other thread's.
        Access* slot = &state.reads[1];
        if (state.reads[0].rank == thread.rank || state.reads[0].rank < 0 || state.reads[0].epoch != block.epoch)
            slot = &state.reads[0];
        *slot = now;
        return;
    }
    if (o.racecheck) {
        if (foreign_write) report(FindingKind::race_waw, state.write);
        for (const Access& read : state.reads)
            if (read.rank >= 0 && read.rank != thread.rank &&
                !ordered(block, thread, read.rank, read.clock, read.epoch))
                report(FindingKind::race_war, read);
    }
    state.written = true;
    state.write = now;
    state.reads[0] = state.reads[1] = Access{};
}

void SharedShadow::access(const Block& block, const ThreadState& thread, std::uintptr_t block_base, std::size_t offset,
                          unsigned size, bool store, bool atomic, const void* pc, Findings& findings)
{
    const Options& o = options();
    const Access now{pc, block.epoch, thread.clock[thread.lane], std::int16_t(thread.rank), store, atomic};
    // The bytes of one access race with an earlier access once, however many of them it touched.
    struct Reported {  // no initialisers: set before it is read
        FindingKind kind;
        const void* pc;
        std::uint32_t epoch, clock;
        std::int16_t rank;
    };
    Reported reported[8];
    int reported_count = 0;
    auto report = [&](FindingKind kind, const Access& earlier) {
        for (int k = 0; k < reported_count; ++k) {
            const Reported& r = reported[k];
            if (r.kind == kind && r.pc == earlier.pc && r.rank == earlier.rank && r.clock == earlier.clock &&
                r.epoch == earlier.epoch)
                return;
        }
        if (reported_count < 8)
            reported[reported_count++] = {kind, earlier.pc, earlier.epoch, earlier.clock, earlier.rank};
        const ThreadState& other = block.threads[std::size_t(earlier.rank)];
        const bool warning = other.warp == thread.warp;
        findings.add(Site{kind, store, block.launch->kernel, pc, earlier.pc, warning}, [&] {
        Finding f;
        f.kind = kind;
        f.space = Space::shared;
        f.kernel = block.launch->kernel;
        f.store = store;
        f.first_store = earlier.store;
        f.size = size;
        f.pc = pc;
        f.first_pc = earlier.pc;
        f.thread = thread.index;
        f.first_thread = other.index;
        f.block = block.index;
        f.warning = warning;
        f.shared_offset = std::ptrdiff_t(offset);
        f.address = block_base + offset;
        return f;
        });
    };
    bool uninitialized_reported = false;
    auto uninitialized = [&] {
        if (uninitialized_reported) return;
        uninitialized_reported = true;
        findings.add(Site{FindingKind::uninitialized_shared, false, block.launch->kernel, pc, nullptr}, [&] {
        Finding f;
        f.kind = FindingKind::uninitialized_shared;
        f.space = Space::shared;
        f.kernel = block.launch->kernel;
        f.size = size;
        f.pc = pc;
        f.thread = thread.index;
        f.block = block.index;
        f.shared_offset = std::ptrdiff_t(offset);
        f.address = block_base + offset;
        return f;
        });
    };
    const std::size_t end = std::min<std::size_t>(offset + (size ? size : 1), SharedMemory::kCapacity);
    for (std::size_t w = offset / 4; w * 4 < end; ++w) {
        State& word = words_[w];
        if (word.generation != generation_) {
            word = State{};
            word.generation = generation_;
        }
        const std::size_t first = std::max(offset, w * 4), last = std::min(end, w * 4 + 4);
        const bool covers = first == w * 4 && last == w * 4 + 4;
        if (!word.split && covers) {
            touch(word, now, block, thread, o, report, uninitialized);
            continue;
        }
        if (!word.split) {
            std::fill(bytes_ + w * 4, bytes_ + w * 4 + 4, word);
            word.split = true;
        }
        for (std::size_t b = first; b < last; ++b) touch(bytes_[b], now, block, thread, o, report, uninitialized);
        if (covers && store) {  // its bytes are alike again
            word = bytes_[w * 4];
            word.split = false;
        }
    }
}

void join_clocks(Block& block, int warp, unsigned lanes)
{
    std::uint32_t joined[kWarpSize] = {};
    for (int lane = 0; lane < kWarpSize; ++lane) {
        if (!(lanes >> lane & 1u)) continue;
        ThreadState& t = block.threads[std::size_t(warp * kWarpSize + lane)];
        ++t.clock[lane];
        for (int k = 0; k < kWarpSize; ++k) joined[k] = joined[k] > t.clock[k] ? joined[k] : t.clock[k];
    }
    for (int lane = 0; lane < kWarpSize; ++lane)
        if (lanes >> lane & 1u)
            std::copy(joined, joined + kWarpSize, block.threads[std::size_t(warp * kWarpSize + lane)].clock);
}

}  // namespace cml_emu
