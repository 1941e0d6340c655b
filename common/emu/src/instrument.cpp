// The callbacks that clang's SanitizerCoverage (-fsanitize-coverage=func,trace-loads,trace-stores) puts
// before every load and store of the kernels' translation units. Each names the address and, by its return
// address, the instruction; here they feed memcheck, racecheck and the counters. With none of those asked
// for, they return at once. Atomics (atomics.cpp) are seen by memcheck only: compute-sanitizer's racecheck
// does not report them as hazards, and Nsight Compute counts them apart from loads and stores.
#include <cstdint>

#include "options.hpp"
#include "worker.hpp"

namespace cml_emu {
namespace {

const bool g_watching = options().watching();

void memory_error(Worker& worker, const ThreadState& thread, FindingKind kind, Space space, std::uintptr_t address,
                  unsigned size, bool store, const void* pc, const Allocation* nearest)
{
    worker.findings.add(Site{kind, store, worker.block.launch->kernel, pc, nullptr}, [&] {
    Finding f;
    f.kind = kind;
    f.space = space;
    f.kernel = worker.block.launch->kernel;
    f.store = store;
    f.size = size;
    f.pc = pc;
    f.thread = thread.index;
    f.block = worker.block.index;
    f.address = address;
    if (nearest) {
        f.nearest = *nearest;
        f.has_nearest = true;
    }
    if (space == Space::shared) {
        f.shared_offset = address - worker.shared.base();
        f.detail = std::to_string(worker.shared.static_bytes()) + " bytes of __shared__ variables and " +
                   std::to_string(worker.shared.dynamic_bytes()) + " of extern __shared__ (at the end of " +
                   std::to_string(SharedMemory::kCapacity) + ")";
    }
    return f;
    });
}

enum class Op : std::uint8_t { load, store, atomic };

void on_access(const void* pointer, unsigned size, Op op, const void* pc)
{
    const bool store = op != Op::load;
    ThreadState* thread = t_thread;
    if (!thread) return;  // host code of the kernel's file
    Worker& worker = *t_worker;
    const Options& o = options();
    const auto address = std::uintptr_t(pointer);
    Space space;
    if (worker.shared.contains(address)) {
        space = Space::shared;
        if (!worker.shared.valid(address, size)) {
            if (o.memcheck)
                memory_error(worker, *thread, FindingKind::invalid_shared, space, address, size, store, pc, nullptr);
            return;
        }
        if (worker.shadow && op != Op::atomic)
            worker.shadow->access(worker.block, *thread, worker.shared.base(), address - worker.shared.base(), size, store, pc,
                                  worker.findings);
    } else {
        const GlobalAccess where = classify_global(worker.block.launch->allocations, address, size);
        space = where.space;
        if (space == Space::other) return;  // a stack, the built-in variables, the host's memory
        if (where.out_of_bounds) {
            if (o.memcheck)
                memory_error(worker, *thread, FindingKind::invalid_global, space, address, size, store, pc, where.nearest);
            return;
        }
    }
    if (o.memcheck && address % size != 0)
        memory_error(worker, *thread, FindingKind::misaligned, space, address, size, store, pc, nullptr);
    if (!o.profile.empty() && op != Op::atomic)
        worker.profile.record(pc, thread->warp, thread->lane, space, store, address, size);
}

}  // namespace

void note_atomic(const void* address, unsigned size, const void* pc)
{
    if (g_watching) on_access(address, size, Op::atomic, pc);
}

}  // namespace cml_emu

#define CML_EMU_PC __builtin_return_address(0)  // in the kernel, just after its load or store
#define CML_EMU_CALLBACK(bytes)                                                      \
    extern "C" void __sanitizer_cov_load##bytes(void* address)                      \
    {                                                                               \
        if (cml_emu::g_watching)                                                    \
            cml_emu::on_access(address, bytes, cml_emu::Op::load, CML_EMU_PC);      \
    }                                                                               \
    extern "C" void __sanitizer_cov_store##bytes(void* address)                     \
    {                                                                               \
        if (cml_emu::g_watching)                                                    \
            cml_emu::on_access(address, bytes, cml_emu::Op::store, CML_EMU_PC);     \
    }

CML_EMU_CALLBACK(1)
CML_EMU_CALLBACK(2)
CML_EMU_CALLBACK(4)
CML_EMU_CALLBACK(8)
CML_EMU_CALLBACK(16)
