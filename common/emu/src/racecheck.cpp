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
SharedShadow::SharedShadow()
{
    void* memory = mmap(nullptr, SharedMemory::kCapacity * sizeof(Byte), PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED) fatal("out of memory for racecheck's shadow of shared memory");
    bytes_ = static_cast<Byte*>(memory);
}

SharedShadow::~SharedShadow() { munmap(bytes_, SharedMemory::kCapacity * sizeof(Byte)); }

void SharedShadow::access(const Block& block, const ThreadState& thread, std::uintptr_t block_base, std::size_t offset,
                          unsigned size, bool store, const void* pc, Findings& findings)
{
    const Options& o = options();
    const Access now{pc, block.epoch, thread.clock[thread.lane], std::int16_t(thread.rank), store};
    // The bytes of one access race with an earlier access once, however many of them it touched.
    struct Reported {
        FindingKind kind;
        Access earlier;
    };
    Reported reported[8];
    int reported_count = 0;
    auto report = [&](FindingKind kind, const Access& earlier) {
        for (int k = 0; k < reported_count; ++k) {
            const Access& a = reported[k].earlier;
            if (reported[k].kind == kind && a.pc == earlier.pc && a.rank == earlier.rank && a.clock == earlier.clock &&
                a.epoch == earlier.epoch)
                return;
        }
        if (reported_count < 8) reported[reported_count++] = Reported{kind, earlier};
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
    bool uninitialized_reported = false;
    const std::size_t end = std::min<std::size_t>(offset + (size ? size : 1), SharedMemory::kCapacity);
    for (std::size_t b = offset; b < end; ++b) {
        Byte& byte = bytes_[b];
        if (byte.generation != generation_) {
            byte = Byte{};
            byte.generation = generation_;
        }
        const bool foreign_write = byte.written && byte.write.rank != thread.rank &&
                                   !ordered(block, thread, byte.write.rank, byte.write.clock, byte.write.epoch);
        if (!store) {
            if (!byte.written && o.initcheck && !uninitialized_reported) {
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
                f.shared_offset = b;
                f.address = block_base + b;
                return f;
                });
            }
            if (foreign_write && o.racecheck) report(FindingKind::race_raw, byte.write);
            // Keep this thread's latest read, and one other thread's.
            Access* slot = &byte.reads[1];
            if (byte.reads[0].rank == thread.rank || byte.reads[0].rank < 0 || byte.reads[0].epoch != block.epoch)
                slot = &byte.reads[0];
            *slot = now;
            continue;
        }
        if (o.racecheck) {
            if (foreign_write) report(FindingKind::race_waw, byte.write);
            for (const Access& read : byte.reads)
                if (read.rank >= 0 && read.rank != thread.rank &&
                    !ordered(block, thread, read.rank, read.clock, read.epoch))
                    report(FindingKind::race_war, read);
        }
        byte.written = true;
        byte.write = now;
        byte.reads[0] = byte.reads[1] = Access{};
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
