#include "racecheck.hpp"

#include "options.hpp"
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

SharedShadow::SharedShadow() : words_(SharedMemory::kCapacity / 4) {}

void SharedShadow::access(const Block& block, const ThreadState& thread, std::uintptr_t block_base, std::size_t offset,
                          unsigned size, bool store, const void* pc, Findings& findings)
{
    const Options& o = options();
    const Access now{block.epoch, thread.clock[thread.lane], thread.rank, store, pc};
    auto report = [&](FindingKind kind, const Access& earlier) {
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
        f.shared_offset = offset;
        f.address = block_base + offset;
        return f;
        });
    };
    const std::size_t first = offset / 4, last = (offset + (size ? size : 1) - 1) / 4;
    for (std::size_t w = first; w <= last && w < words_.size(); ++w) {
        Word& word = words_[w];
        if (word.generation != generation_) {
            word = Word{};
            word.generation = generation_;
        }
        const bool foreign_write = word.written && word.write.rank != thread.rank &&
                                   !ordered(block, thread, word.write.rank, word.write.clock, word.write.epoch);
        if (!store) {
            if (!word.written && o.initcheck) {
                findings.add(Site{FindingKind::uninitialized_shared, false, block.launch->kernel, pc, nullptr}, [&] {
                Finding f;
                f.kind = FindingKind::uninitialized_shared;
                f.space = Space::shared;
                f.kernel = block.launch->kernel;
                f.size = size;
                f.pc = pc;
                f.thread = thread.index;
                f.block = block.index;
                f.shared_offset = w * 4;
                f.address = block_base + w * 4;
                return f;
                });
            }
            if (foreign_write && o.racecheck) report(FindingKind::race_raw, word.write);
            // Keep this thread's latest read, and one other thread's.
            Access* slot = &word.reads[1];
            if (word.reads[0].rank == thread.rank || word.reads[0].rank < 0 || word.reads[0].epoch != block.epoch)
                slot = &word.reads[0];
            *slot = now;
            continue;
        }
        if (o.racecheck) {
            if (foreign_write) report(FindingKind::race_waw, word.write);
            for (const Access& read : word.reads)
                if (read.rank >= 0 && read.rank != thread.rank &&
                    !ordered(block, thread, read.rank, read.clock, read.epoch))
                    report(FindingKind::race_war, read);
        }
        word.written = true;
        word.write = now;
        word.reads[0] = word.reads[1] = Access{};
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
