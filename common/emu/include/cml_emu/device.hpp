// What a kernel sees on the GPU, emulated on the CPU: memory spaces, built-in variables, barriers, warp-level
// functions, atomics and a few intrinsics. Each thread of a block runs as a fiber; the blocking calls here
// (__syncthreads, __syncwarp, shuffles, votes) switch to the next thread of the block.
#pragma once

#include <cstdint>
#include <cstring>
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

enum class WarpOp { sync, shfl, shfl_up, shfl_down, shfl_xor, ballot, any, all };

// One warp-level call by the current lane: waits for the lanes of `mask`, returns this lane's result.
std::uint64_t warp_collective(WarpOp op, unsigned mask, std::uint64_t value, int argument, int width);

template <class T>
T shuffle(WarpOp op, unsigned mask, T value, int argument, int width)
{
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "shuffles move values of up to 8 bytes");
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    bits = warp_collective(op, mask, bits, argument, width);
    std::memcpy(&value, &bits, sizeof(T));
    return value;
}

int block_barrier(int predicate, int reduction);  // reduction: 0 none, 1 count, 2 and, 3 or

// A use of CUDA that the emulator does not provide, found when the kernel runs: says what, and aborts.
[[noreturn]] void unsupported(const char* what);

}  // namespace cml_emu

// ---- barriers and warp-level functions ----

inline void __syncthreads() { cml_emu::block_barrier(0, 0); }
inline int __syncthreads_count(int predicate) { return cml_emu::block_barrier(predicate, 1); }
inline int __syncthreads_and(int predicate) { return cml_emu::block_barrier(predicate, 2); }
inline int __syncthreads_or(int predicate) { return cml_emu::block_barrier(predicate, 3); }
inline void __syncwarp(unsigned mask = 0xffffffffu) { cml_emu::warp_collective(cml_emu::WarpOp::sync, mask, 0, 0, 32); }
unsigned __activemask();
void __threadfence();
void __threadfence_block();
void __threadfence_system();

inline unsigned __ballot_sync(unsigned mask, int predicate)
{
    return unsigned(cml_emu::warp_collective(cml_emu::WarpOp::ballot, mask, predicate != 0, 0, 32));
}
inline int __any_sync(unsigned mask, int predicate)
{
    return int(cml_emu::warp_collective(cml_emu::WarpOp::any, mask, predicate != 0, 0, 32));
}
inline int __all_sync(unsigned mask, int predicate)
{
    return int(cml_emu::warp_collective(cml_emu::WarpOp::all, mask, predicate != 0, 0, 32));
}
template <class T>
T __shfl_sync(unsigned mask, T value, int source_lane, int width = warpSize)
{
    return cml_emu::shuffle(cml_emu::WarpOp::shfl, mask, value, source_lane, width);
}
template <class T>
T __shfl_up_sync(unsigned mask, T value, unsigned delta, int width = warpSize)
{
    return cml_emu::shuffle(cml_emu::WarpOp::shfl_up, mask, value, int(delta), width);
}
template <class T>
T __shfl_down_sync(unsigned mask, T value, unsigned delta, int width = warpSize)
{
    return cml_emu::shuffle(cml_emu::WarpOp::shfl_down, mask, value, int(delta), width);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T value, int lane_mask, int width = warpSize)
{
    return cml_emu::shuffle(cml_emu::WarpOp::shfl_xor, mask, value, lane_mask, width);
}

// ---- atomics (defined in src/atomics.cpp, where memcheck sees their addresses) ----

int atomicAdd(int* address, int value);
unsigned atomicAdd(unsigned* address, unsigned value);
unsigned long long atomicAdd(unsigned long long* address, unsigned long long value);
float atomicAdd(float* address, float value);
double atomicAdd(double* address, double value);
int atomicSub(int* address, int value);
unsigned atomicSub(unsigned* address, unsigned value);
int atomicExch(int* address, int value);
unsigned atomicExch(unsigned* address, unsigned value);
unsigned long long atomicExch(unsigned long long* address, unsigned long long value);
float atomicExch(float* address, float value);
int atomicMin(int* address, int value);
unsigned atomicMin(unsigned* address, unsigned value);
long long atomicMin(long long* address, long long value);
unsigned long long atomicMin(unsigned long long* address, unsigned long long value);
int atomicMax(int* address, int value);
unsigned atomicMax(unsigned* address, unsigned value);
long long atomicMax(long long* address, long long value);
unsigned long long atomicMax(unsigned long long* address, unsigned long long value);
int atomicCAS(int* address, int compare, int value);
unsigned atomicCAS(unsigned* address, unsigned compare, unsigned value);
unsigned long long atomicCAS(unsigned long long* address, unsigned long long compare, unsigned long long value);
int atomicAnd(int* address, int value);
unsigned atomicAnd(unsigned* address, unsigned value);
int atomicOr(int* address, int value);
unsigned atomicOr(unsigned* address, unsigned value);
int atomicXor(int* address, int value);
unsigned atomicXor(unsigned* address, unsigned value);
unsigned atomicInc(unsigned* address, unsigned limit);
unsigned atomicDec(unsigned* address, unsigned limit);

// ---- intrinsics ----

template <class T>
T __ldg(const T* address)
{
    return *address;
}
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline unsigned __brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; ++i, x >>= 1) r = (r << 1) | (x & 1u);
    return r;
}
inline float __fdividef(float x, float y) { return x / y; }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
inline float __fmaf_rn(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
inline float rsqrtf(float x) { return 1.0f / __builtin_sqrtf(x); }
inline int min(int a, int b) { return a < b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline float min(float a, float b) { return __builtin_fminf(a, b); }
inline double min(double a, double b) { return __builtin_fmin(a, b); }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline float max(float a, float b) { return __builtin_fmaxf(a, b); }
inline double max(double a, double b) { return __builtin_fmax(a, b); }
long long clock64();
