// The callbacks that clang's SanitizerCoverage (-fsanitize-coverage=func,trace-loads,trace-stores) puts
// before every load and store of the kernels' translation units. Each names the address and, by its return
// address, the instruction. Every access of a GPU thread is checked against what it may touch, as
// compute-sanitizer checks it against the allocations: its block's shared memory, the launch's allocations
// and __device__ and __constant__ variables, and what is no memory space of CUDA's but where the compiled
// kernel reads and writes (its stack, the built-in variables, the launch's arguments). An access outside all
// of them is never made: memcheck reports it and the thread stops there, or without memcheck the launch fails
// as on a GPU (cudaErrorIllegalAddress). The same callbacks feed memcheck's other findings, racecheck and the
// counters when they are asked for. Atomics (atomics.cpp) come here too: racecheck sees them as writes that race
// with another thread's plain accesses but not with its atomics, and the counters count them apart from loads
// and stores, as Nsight Compute does.
#include <link.h>

#include <algorithm>
#include <cstdint>
#include <utility>

#include "options.hpp"
#include "worker.hpp"

namespace cml_emu {
namespace {

const bool g_watching = options().watching();

enum class Op : std::uint8_t { load, store, atomic };

// The program's own image: its code and constants. A kernel may read there what the compiler put there (a
// switch's table, a local array's initial values), never write.
Region program_image()
{
    Region image{UINTPTR_MAX, 0, Space::other};
    dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* out) {
            Region& r = *static_cast<Region*>(out);
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const ElfW(Phdr)& segment = info->dlpi_phdr[i];
                if (segment.p_type != PT_LOAD) continue;
                r.start = std::min<std::uintptr_t>(r.start, info->dlpi_addr + segment.p_vaddr);
                r.end = std::max<std::uintptr_t>(r.end, info->dlpi_addr + segment.p_vaddr + segment.p_memsz);
            }
            return 1;  // the program comes first, the libraries after it
        },
        &image);
    return image;
}

const Region g_image = program_image();

void memory_error(Worker& worker, const ThreadState& thread, FindingKind kind, Space space, std::uintptr_t address,
                  unsigned size, bool store, const void* pc, const Allocation* nearest)
{
    worker.findings.add(Site{kind, store, worker.block().launch->kernel, pc, nullptr}, [&] {
    Finding f;
    f.kind = kind;
    f.space = space;
    f.kernel = worker.block().launch->kernel;
    f.store = store;
    f.size = size;
    f.pc = pc;
    f.thread = thread.index;
    f.block = worker.block().index;
    f.address = address;
    if (nearest) {
        f.nearest = *nearest;
        f.has_nearest = true;
    }
    if (space == Space::shared) {
        f.shared_offset = std::ptrdiff_t(address - worker.shared().base());
        f.detail = std::to_string(worker.shared().static_bytes()) + " bytes of __shared__ variables and " +
                   std::to_string(worker.shared().dynamic_bytes()) + " of extern __shared__ (at the end of " +
                   std::to_string(SharedMemory::kCapacity) + ")";
    }
    return f;
    });
}

// An access outside everything the thread may touch: memcheck reports it, and it is not made.
[[noreturn]] void refuse(Worker& worker, const ThreadState& thread, FindingKind kind, Space space,
                         std::uintptr_t address, unsigned size, bool store, const void* pc)
{
    const bool memcheck = options().memcheck;
    if (memcheck) {
        const Allocation* nearest = kind == FindingKind::invalid_global ? worker.block().launch->global.nearest(address)
                                                                        : nullptr;
        memory_error(worker, thread, kind, space, address, size, store, pc, nearest);
    }
    stop_at_fault(!memcheck);
}

// The global region (an allocation, the __device__ or the __constant__ variables) that holds the access, or
// null: the last two found first, then a look-up.
const Region* global_region(Worker& worker, std::uintptr_t address, unsigned size)
{
    if (worker.found[0].holds(address, size)) return &worker.found[0];
    if (!worker.found[1].holds(address, size)) {
        const Region* region = worker.block().launch->global.find(address, size);
        if (!region) return nullptr;
        worker.found[1] = *region;
    }
    std::swap(worker.found[0], worker.found[1]);
    return &worker.found[0];
}

// The part of the block's shared memory (its static variables, or the dynamic part) that holds the access.
Region shared_region(const SharedMemory& shared, std::uintptr_t address)
{
    const auto dynamic = std::uintptr_t(shared.dynamic());
    if (address >= dynamic) return Region{dynamic, dynamic + shared.dynamic_bytes(), Space::shared};
    return Region{shared.base(), shared.base() + shared.static_bytes(), Space::shared};
}

// Every access of a GPU thread that the fast path below did not settle.
__attribute__((noinline)) void check_access(std::uintptr_t address, unsigned size, Op op, const void* pc)
{
    ThreadState* thread = t_thread;
    if (!thread) return;  // host code of the kernel's file
    Worker& worker = *t_worker;
    const bool store = op != Op::load;
    Space space;
    if (worker.shared().contains(address)) {
        space = Space::shared;
        if (!worker.shared().holds(address, size))
            refuse(worker, *thread, FindingKind::invalid_shared, space, address, size, store, pc);
        if (!g_watching) t_fast.add(shared_region(worker.shared(), address), address);
        if (worker.resident->shadow)
            worker.resident->shadow->access(worker.block(), *thread, worker.shared().base(), address - worker.shared().base(), size,
                                  store, op == Op::atomic, pc, worker.findings);
    } else if (thread->stack.holds(address, size)) {
        return;  // local memory: no memory space that a check or counter looks at
    } else if (worker.builtins.holds(address, size) || worker.arguments.holds(address, size)) {
        if (!g_watching) t_fast.add(worker.builtins.holds(address, size) ? worker.builtins : worker.arguments, address);
        return;  // what the compiled kernel uses besides CUDA's memory spaces
    } else if (const Region* region = global_region(worker, address, size)) {
        if (!g_watching) t_fast.add(*region, address);
        space = region->space;
    } else if (op == Op::load && g_image.holds(address, size)) {
        return;  // the program's constants (a switch's table, say); asked after its __constant__ variables
    } else {
        refuse(worker, *thread, FindingKind::invalid_global, Space::global, address, size, store, pc);
    }
    if (!g_watching) return;
    const Options& o = options();
    if (o.memcheck && address % size != 0)
        memory_error(worker, *thread, FindingKind::misaligned, space, address, size, store, pc, nullptr);
    if (!o.profile.empty())
        worker.resident->profile.record(pc, thread->warp, thread->lane, space, store, op == Op::atomic, address, size);
}

// With no check nor counter asked for, an access to what the block touched last needs nothing more: this
// part is inlined into each callback, and the call of check_access is made only past it (the return address
// is read there, so that the common path needs no stack frame). The regions are empty for host code of the
// kernel's file (check_access sees it is the host's), and stay empty while a check or the counters are on.
inline bool settled(const void* pointer, unsigned size)
{
    return !__builtin_expect(g_watching, false) && t_fast.settle(std::uintptr_t(pointer), size);
}

}  // namespace

void note_atomic(const void* address, unsigned size, const void* pc)
{
    if (!settled(address, size)) check_access(std::uintptr_t(address), size, Op::atomic, pc);
}

}  // namespace cml_emu

#define CML_EMU_PC __builtin_return_address(0)  // in the kernel, just after its load or store
#define CML_EMU_CALLBACK(bytes)                                                                         \
    extern "C" void __sanitizer_cov_load##bytes(void* address)                                         \
    {                                                                                                  \
        if (!cml_emu::settled(address, bytes))                                                         \
            cml_emu::check_access(std::uintptr_t(address), bytes, cml_emu::Op::load, CML_EMU_PC);      \
    }                                                                                                  \
    extern "C" void __sanitizer_cov_store##bytes(void* address)                                        \
    {                                                                                                  \
        if (!cml_emu::settled(address, bytes))                                                         \
            cml_emu::check_access(std::uintptr_t(address), bytes, cml_emu::Op::store, CML_EMU_PC);     \
    }

CML_EMU_CALLBACK(1)
CML_EMU_CALLBACK(2)
CML_EMU_CALLBACK(4)
CML_EMU_CALLBACK(8)
CML_EMU_CALLBACK(16)
