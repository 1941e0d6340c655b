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
//
// The emulator's compile (compile.py, counted_accesses.py) calls the rest of this file's entry points where the
// coverage has no callback: a load of a __constant__ variable by its name (the constant bank on a GPU; any other
// load there is a global one), an access of a size the coverage leaves out, an atomic instruction, a copy, move
// or fill of memory, and the C library's functions that read or write memory. Each counts and checks the pieces
// a GPU would move, before the work is done.
#include <link.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#include "options.hpp"
#include "worker.hpp"

namespace cml_emu {
namespace {

const bool g_watching = options().watching();

// constant_load: a load that names a __constant__ variable; a plain load there goes through the global path.
enum class Op : std::uint8_t { load, constant_load, store, atomic };

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
    const bool store = op == Op::store || op == Op::atomic;
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
        // A GPU reads the constant bank only where the kernel names the __constant__ variable; through a pointer
        // (cudaGetSymbolAddress's, say) the same bytes are a global load.
        if (space == Space::constant && op != Op::constant_load) space = Space::global;
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

namespace {

constexpr unsigned kWidest = 16;  // bytes: a GPU thread's widest load or store

// [address, address + bytes) as a GPU thread moves it, each piece checked and counted as one access of `pc`: as
// wide as `alignment` allows, up to 16 bytes, each the next execution of the same instruction (so the k-th pieces
// of a warp's lanes are its k-th request), and narrower at the end.
void access_pieces(const void* address, std::uint64_t bytes, std::uint64_t alignment, Op op, const void* pc)
{
    unsigned width = kWidest;
    while (width > 1 && alignment % width != 0) width /= 2;
    const auto start = std::uintptr_t(address);
    for (std::uint64_t offset = 0; offset < bytes;) {
        unsigned piece = width;
        while (piece > bytes - offset) piece /= 2;
        if (!settled(reinterpret_cast<const void*>(start + offset), piece))
            check_access(start + offset, piece, op, pc);
        offset += piece;
    }
}

// The largest power of two (up to kWidest) that divides an address: how a piece there may be aligned.
std::uint64_t alignment_of(const void* address)
{
    const auto at = std::uintptr_t(address);
    return at == 0 ? kWidest : std::min<std::uint64_t>(kWidest, at & (~at + 1));
}

// A copy's loads and stores are the same instruction here; its stores are kept apart, one byte before its loads
// (still within the call, which the source line is read from).
const void* stores_of(const void* pc)
{
    return static_cast<const char*>(pc) - 1;
}

// Reads byte by byte until the terminating zero, each checked before it is read, as a GPU thread's loop would.
std::size_t counted_length(const char* text, const void* pc)
{
    std::size_t length = 0;
    while (true) {
        access_pieces(text + length, 1, 1, Op::load, pc);
        if (text[length] == '\0') return length;
        ++length;
    }
}

}  // namespace

}  // namespace cml_emu

using cml_emu::Op;

#define CML_EMU_PC __builtin_return_address(0)  // in the kernel, just after its load, store or call

namespace cml_emu {
namespace {

void copy_counted(void* to, const void* from, std::uint64_t bytes, std::uint64_t alignment, const void* pc)
{
    if (t_thread) {
        access_pieces(from, bytes, alignment, Op::load, pc);
        access_pieces(to, bytes, alignment, Op::store, stores_of(pc));
    }
}

void* fill_counted(void* to, int value, std::uint64_t bytes, std::uint64_t alignment, const void* pc)
{
    if (t_thread) access_pieces(to, bytes, alignment, Op::store, pc);
    return std::memset(to, value, bytes);
}

int compare_counted(const void* left, const void* right, std::size_t bytes, const void* pc)
{
    if (t_thread) {
        access_pieces(left, bytes, 1, Op::load, pc);
        access_pieces(right, bytes, 1, Op::load, pc);
    }
    return std::memcmp(left, right, bytes);
}

}  // namespace
}  // namespace cml_emu

// A copy, move or fill of memory that the compile left to the runtime (llvm.memcpy and its kin), `alignment` the
// least the compiler knows of both regions.
extern "C" void __cml_emu_copy(void* to, const void* from, std::uint64_t bytes, std::uint64_t alignment)
{
    cml_emu::copy_counted(to, from, bytes, alignment, CML_EMU_PC);
    std::memcpy(to, from, bytes);
}

extern "C" void __cml_emu_move(void* to, const void* from, std::uint64_t bytes, std::uint64_t alignment)
{
    cml_emu::copy_counted(to, from, bytes, alignment, CML_EMU_PC);
    std::memmove(to, from, bytes);
}

extern "C" void __cml_emu_fill(void* to, unsigned char value, std::uint64_t bytes, std::uint64_t alignment)
{
    cml_emu::fill_counted(to, value, bytes, alignment, CML_EMU_PC);
}

// An access of a size the coverage has no callback for (a long double, a vector of 32 bytes), in pieces.
extern "C" void __cml_emu_load(void* address, std::uint64_t bytes)
{
    if (cml_emu::t_thread) cml_emu::access_pieces(address, bytes, cml_emu::alignment_of(address), Op::load, CML_EMU_PC);
}

extern "C" void __cml_emu_store(void* address, std::uint64_t bytes)
{
    if (cml_emu::t_thread) cml_emu::access_pieces(address, bytes, cml_emu::alignment_of(address), Op::store, CML_EMU_PC);
}

// An atomic instruction of the kernel's own (__atomic_*, std::atomic), not one of CUDA's atomic functions.
extern "C" void __cml_emu_atomic(void* address, std::uint64_t bytes)
{
    if (cml_emu::t_thread) cml_emu::note_atomic(address, unsigned(bytes), CML_EMU_PC);
}

// The C library's functions that touch memory, as a kernel.cu's code calls them (however it names them): a GPU
// thread's accesses counted byte by byte, as the loop nvcc makes of them where it cannot know the alignment.
extern "C" void* __cml_emu_memcpy(void* to, const void* from, std::size_t bytes)
{
    cml_emu::copy_counted(to, from, bytes, 1, CML_EMU_PC);
    return std::memcpy(to, from, bytes);
}

extern "C" void* __cml_emu_memmove(void* to, const void* from, std::size_t bytes)
{
    cml_emu::copy_counted(to, from, bytes, 1, CML_EMU_PC);
    return std::memmove(to, from, bytes);
}

extern "C" void* __cml_emu_memset(void* to, int value, std::size_t bytes)
{
    return cml_emu::fill_counted(to, value, bytes, 1, CML_EMU_PC);
}

// glibc's checked forms, which end the program where the destination is too small, as these do.
extern "C" void* __cml_emu_memcpy_chk(void* to, const void* from, std::size_t bytes, std::size_t room)
{
    if (bytes > room) __builtin_trap();
    cml_emu::copy_counted(to, from, bytes, 1, CML_EMU_PC);
    return std::memcpy(to, from, bytes);
}

extern "C" void* __cml_emu_memmove_chk(void* to, const void* from, std::size_t bytes, std::size_t room)
{
    if (bytes > room) __builtin_trap();
    cml_emu::copy_counted(to, from, bytes, 1, CML_EMU_PC);
    return std::memmove(to, from, bytes);
}

extern "C" void* __cml_emu_memset_chk(void* to, int value, std::size_t bytes, std::size_t room)
{
    if (bytes > room) __builtin_trap();
    return cml_emu::fill_counted(to, value, bytes, 1, CML_EMU_PC);
}

extern "C" int __cml_emu_memcmp(const void* left, const void* right, std::size_t bytes)
{
    return cml_emu::compare_counted(left, right, bytes, CML_EMU_PC);
}

extern "C" int __cml_emu_bcmp(const void* left, const void* right, std::size_t bytes)
{
    return cml_emu::compare_counted(left, right, bytes, CML_EMU_PC) != 0;
}

extern "C" std::size_t __cml_emu_strlen(const char* text)
{
    return cml_emu::t_thread ? cml_emu::counted_length(text, CML_EMU_PC) : std::strlen(text);
}

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

// A load that names a __constant__ variable (counted_accesses.py tells them from the others).
#define CML_EMU_CONSTANT_CALLBACK(bytes)                                                                \
    extern "C" void __cml_emu_constant_load##bytes(void* address)                                      \
    {                                                                                                  \
        if (!cml_emu::settled(address, bytes))                                                         \
            cml_emu::check_access(std::uintptr_t(address), bytes, cml_emu::Op::constant_load, CML_EMU_PC); \
    }

CML_EMU_CONSTANT_CALLBACK(1)
CML_EMU_CONSTANT_CALLBACK(2)
CML_EMU_CONSTANT_CALLBACK(4)
CML_EMU_CONSTANT_CALLBACK(8)
CML_EMU_CONSTANT_CALLBACK(16)
