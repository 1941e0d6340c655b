// What a kernel sees on the GPU, emulated on the CPU: memory spaces, built-in variables, barriers, clusters (of
// one block), address spaces. Each thread of a block runs as a fiber; the blocking calls (__syncthreads, and in
// warp.hpp __syncwarp, shuffles, votes) switch to the next thread of the block. The rest of what device code
// calls: warp.hpp, atomics.hpp, intrinsics.hpp, math.hpp, textures.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>  // before __noinline__ is defined below: its header spells __attribute__((__noinline__))
#include <type_traits>

#include <vector_types.h>

// Memory spaces. __constant__ variables go to a section whose bounds the emulator knows; rewrite.py marks
// __device__ variables the same way, and turns each __shared__ declaration into a per-block variable. A
// __shared__ left as it is means the file skipped rewrite.py: a compile error says so.
#undef __constant__
#define __constant__ __attribute__((section("cml_emu_constant")))
#define CML_EMU_DEVICE_VARIABLE __attribute__((section("cml_emu_device")))
#undef __shared__
#define __shared__ __shared___needs_common_emu_rewrite_py
#undef __launch_bounds__
#define __launch_bounds__(...)
#undef __forceinline__
#define __forceinline__ inline __attribute__((always_inline))
#undef __noinline__
#define __noinline__ __attribute__((noinline))

// What the CPU emulator cannot run, said where a kernel uses it: the build fails with a message that starts
// with CML_EMU_LIMIT and says the limit is the emulator's, not the kernel's, so that a grader can tell the
// two apart. A use found only when the kernel runs (a tile size chosen then) says the same, and aborts.
#define CML_EMU_LIMIT "cml_emu limit:"
#define CML_EMU_LIMIT_WHY " on the CPU emulator (a limit of the grader's CPU emulator, not a mistake in the kernel: grade it on a GPU)"
#define CML_EMU_NOT_EMULATED(what) __attribute__((unavailable(CML_EMU_LIMIT " " what " is not emulated" CML_EMU_LIMIT_WHY)))

// Set by the emulator for the thread it runs (threadIdx) and the block (the others).
extern __thread uint3 threadIdx;
extern __thread uint3 blockIdx;
extern __thread dim3 blockDim;
extern __thread dim3 gridDim;
constexpr int warpSize = 32;

namespace cml_emu {

// A __shared__ variable of a kernel: one slot per declaration, one copy per block, in the block's shared memory.
struct SharedSlot {
    char unused = 0;
};
void* shared_memory(SharedSlot& slot, std::size_t bytes, std::size_t alignment);
void* dynamic_shared_memory();

template <class T>
T& shared_variable(SharedSlot& slot, std::size_t alignment)
{
    return *static_cast<T*>(shared_memory(slot, sizeof(T), alignment > alignof(T) ? alignment : alignof(T)));
}

template <class T>
T* dynamic_shared()
{
    return static_cast<T*>(dynamic_shared_memory());
}

// A warp-level call: active is __activemask(), whose lanes are those that reached the same call site together.
enum class WarpOp {
    sync, shfl, shfl_up, shfl_down, shfl_xor, ballot, any, all, match_any, match_all,
    reduce_add, reduce_min, reduce_max, reduce_umin, reduce_umax, reduce_and, reduce_or, reduce_xor, active
};

// One warp-level call by the current lane: waits for the lanes of `mask`, returns this lane's result.
std::uint64_t warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int argument, int width);

// A shuffle of a value of any size: 8 bytes at a time, as a GPU moves one of more than 4 in 4-byte pieces.
template <class T>
T shuffle(WarpOp op, unsigned mask, T value, int argument, int width)
{
    // Bits, as a GPU moves them: __half2 and its like have a copy assignment of their own, which copies the bits.
    static_assert(std::is_trivially_destructible<T>::value, "shuffles move values of plain bits");
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (std::size_t at = 0; at < sizeof(T); at += 8) {
        const std::size_t piece = sizeof(T) - at < 8 ? sizeof(T) - at : 8;
        std::uint64_t bits = 0;
        std::memcpy(&bits, bytes + at, piece);
        bits = warp_collective(op, mask, bits, argument, width);
        std::memcpy(bytes + at, &bits, piece);
    }
    std::memcpy(static_cast<void*>(&value), bytes, sizeof(T));
    return value;
}

int block_barrier(int predicate, int reduction);  // reduction: 0 none, 1 count, 2 and, 3 or

// A barrier of `expected` threads of the block, those that call it with `key` (a named barrier with a count, a
// tile of more than 32 threads). Returns the `value` given by the thread of block rank `source_rank` (its own
// for -1), and sets `predicate` to how many of them gave a true one.
std::uint64_t partial_barrier(std::uint64_t key, int expected, std::uint64_t value, int source_rank, int& predicate);
// grid.sync(): every thread of the grid, in a cooperative launch; in another, the launch fails.
void grid_barrier();
bool cooperative_launch();
// Lets the other threads of the block run first (__nanosleep: a thread that polls lets the others get on).
void yield_thread();
// __trap(): the kernel stops, and the launch fails with cudaErrorLaunchFailure.
[[noreturn]] void trap();

// A use of CUDA that the emulator does not provide, found when the kernel runs: says what, and aborts.
[[noreturn]] void unsupported(const char* what);

// cooperative_groups::memcpy_async: the calling thread's share of a copy, made when the group waits for it.
struct AsyncCopy {
    void* destination;
    const void* source;
    std::size_t bytes;
    unsigned rank, threads;  // the thread copies words rank, rank + threads, ... of the copy
};
void add_async_copy(const AsyncCopy& copy);
// The calling thread's oldest copy not yet made, taken from its list when more than `keep` are there: true,
// and `copy` is it. (The list is the emulator's, whose accesses a kernel's code must not make.)
bool next_async_copy(std::size_t keep, AsyncCopy& copy);

}  // namespace cml_emu

// ---- barriers ----

inline void __syncthreads() { cml_emu::block_barrier(0, 0); }
inline int __syncthreads_count(int predicate) { return cml_emu::block_barrier(predicate, 1); }
inline int __syncthreads_and(int predicate) { return cml_emu::block_barrier(predicate, 2); }
inline int __syncthreads_or(int predicate) { return cml_emu::block_barrier(predicate, 3); }
// The older names, of a bool.
inline int syncthreads_count(bool predicate) { return __syncthreads_count(predicate); }
inline bool syncthreads_and(bool predicate) { return __syncthreads_and(predicate) != 0; }
inline bool syncthreads_or(bool predicate) { return __syncthreads_or(predicate) != 0; }

namespace cml_emu {
constexpr std::uint64_t kNamedBarrier = 1ull << 40;  // keys of named barriers, apart from those of tiles
inline int block_threads() { return int(blockDim.x * blockDim.y * blockDim.z); }
}  // namespace cml_emu

// Named barriers (bar.sync id, count): barrier 0 of the whole block is __syncthreads(); another, or one with a
// count, holds the threads that call it until `count` of them (or the whole block) have.
inline void __barrier_sync(unsigned id)
{
    if (id == 0) return __syncthreads();
    int none = 0;
    cml_emu::partial_barrier(cml_emu::kNamedBarrier | id, cml_emu::block_threads(), 0, -1, none);
}
inline void __barrier_sync_count(unsigned id, unsigned count)
{
    int none = 0;
    cml_emu::partial_barrier(cml_emu::kNamedBarrier | id, int(count), 0, -1, none);
}

void __threadfence();
void __threadfence_block();
void __threadfence_system();
void __threadfence_cluster();

// ---- clusters: a launch without __cluster_dims__ has clusters of one block ----

dim3 __clusterDim();
dim3 __clusterIdx();
dim3 __clusterGridDimInClusters();
dim3 __clusterRelativeBlockIdx();
unsigned __clusterDimIsSpecified();
unsigned __clusterRelativeBlockRank();
unsigned __clusterSizeInBlocks();
void __cluster_barrier_arrive();
void __cluster_barrier_arrive_relaxed();
void __cluster_barrier_wait();
void* __cluster_map_shared_rank(const void* pointer, unsigned target_block_rank);
unsigned __cluster_query_shared_rank(const void* pointer);
CML_EMU_NOT_EMULATED("__cluster_map_shared_multicast")
uint2 __cluster_map_shared_multicast(const void* pointer, unsigned cluster_cta_mask);
#undef __cluster_dims__
#define __cluster_dims__(...) CML_EMU_NOT_EMULATED("a kernel with __cluster_dims__ (clusters of more than one block)")

// ---- where an address points, and its address in another space (cvta) ----

unsigned __isGlobal(const void* pointer);
unsigned __isShared(const void* pointer);
unsigned __isConstant(const void* pointer);
unsigned __isLocal(const void* pointer);
unsigned __isGridConstant(const void* pointer);
unsigned __isClusterShared(const void* pointer);
unsigned __isCtaShared(const void* pointer);
std::size_t __cvta_generic_to_global(const void* pointer);
std::size_t __cvta_generic_to_shared(const void* pointer);
std::size_t __cvta_generic_to_constant(const void* pointer);
std::size_t __cvta_generic_to_local(const void* pointer);
std::size_t __cvta_generic_to_grid_constant(const void* pointer);
void* __cvta_global_to_generic(std::size_t address);
void* __cvta_shared_to_generic(std::size_t address);
void* __cvta_constant_to_generic(std::size_t address);
void* __cvta_local_to_generic(std::size_t address);
void* __cvta_grid_constant_to_generic(std::size_t address);

// ---- the rest of what a thread may call ----

long long clock64();
inline void __nanosleep(unsigned) { cml_emu::yield_thread(); }
[[noreturn]] inline void __trap() { cml_emu::trap(); }
[[noreturn]] inline void __brkpt() { cml_emu::trap(); }  // with no debugger attached, a GPU stops as at a trap
inline void __prof_trigger(int) {}  // a profiler's event: nothing counts it here
// The performance monitor counters, which nothing here advances.
inline unsigned __pm0() { return 0; }
inline unsigned __pm1() { return 0; }
inline unsigned __pm2() { return 0; }
inline unsigned __pm3() { return 0; }
