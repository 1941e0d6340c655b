// Atomic functions of device code, on host memory: GCC's __atomic built-ins, with a compare-and-swap loop
// where the hardware has an instruction the CPU lacks (float and double add, min, max, inc, dec). Each
// reports its address to the access checks, which the instrumentation of loads and stores does not see.
#include <cstdint>
#include <cstring>
#include <mutex>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cml_emu/atomics.hpp"
#include "cml_emu/device.hpp"

namespace cml_emu {
void note_atomic(const void* address, unsigned size, const void* pc);
}  // namespace cml_emu

namespace {

// `pc` null: the caller reported the address already (one field of a vector's atomic).
template <class T, class Update>
T update(T* address, Update f, const void* pc)
{
    if (pc) cml_emu::note_atomic(address, sizeof(T), pc);
    T old = __atomic_load_n(address, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(address, &old, f(old), true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) {
    }
    return old;
}

template <class F, class Bits, class Update>
F update_float(F* address, Update f, const void* pc)
{
    static_assert(sizeof(F) == sizeof(Bits), "same width");
    auto* bits = reinterpret_cast<Bits*>(address);
    const Bits old = update(bits, [&](Bits b) {
        F value;
        std::memcpy(static_cast<void*>(&value), &b, sizeof value);
        value = f(value);
        std::memcpy(&b, &value, sizeof value);
        return b;
    }, pc);
    F result;
    std::memcpy(static_cast<void*>(&result), &old, sizeof result);
    return result;
}

}  // namespace

#define CML_EMU_PC __builtin_return_address(0)
using ull = unsigned long long;
using ll = long long;

// One function per scope (atomicAdd, atomicAdd_block, atomicAdd_system): the CPU's atomics hold for the
// whole program, whatever scope the kernel asked for.
#define CML_EMU_INTEGER(scope, name, T, expression) \
    T name##scope(T* a, T v) { return update(a, [v](T o) { (void)o; return T(expression); }, CML_EMU_PC); }
#define CML_EMU_FLOATING(scope, name, F, Bits, expression) \
    F name##scope(F* a, F v) { return update_float<F, Bits>(a, [v](F o) { (void)o; return F(expression); }, CML_EMU_PC); }
#define CML_EMU_VECTOR_ADD(scope, V, fields) \
    V atomicAdd##scope(V* a, V v)                                                                             \
    {                                                                                                         \
        cml_emu::note_atomic(a, sizeof(V), CML_EMU_PC);                                                       \
        V old;                                                                                                \
        fields;                                                                                               \
        return old;                                                                                           \
    }
#define CML_EMU_FIELD(f) old.f = update_float<float, std::uint32_t>(&a->f, [&](float o) { return o + v.f; }, nullptr)
#define CML_EMU_CAS(scope, T)                                                                                  \
    T atomicCAS##scope(T* a, T compare, T value)                                                              \
    {                                                                                                         \
        cml_emu::note_atomic(a, sizeof(T), CML_EMU_PC);                                                       \
        __atomic_compare_exchange_n(a, &compare, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);             \
        return compare;                                                                                       \
    }

#define CML_EMU_DEFINE_ATOMICS(scope)                                                                           \
    CML_EMU_INTEGER(scope, atomicAdd, int, unsigned(o) + unsigned(v))                                           \
    CML_EMU_INTEGER(scope, atomicAdd, unsigned, o + v)                                                          \
    CML_EMU_INTEGER(scope, atomicAdd, ull, o + v)                                                               \
    CML_EMU_FLOATING(scope, atomicAdd, float, std::uint32_t, o + v)                                             \
    CML_EMU_FLOATING(scope, atomicAdd, double, std::uint64_t, o + v)                                            \
    CML_EMU_VECTOR_ADD(scope, float2, CML_EMU_FIELD(x); CML_EMU_FIELD(y))                                       \
    CML_EMU_VECTOR_ADD(scope, float4, CML_EMU_FIELD(x); CML_EMU_FIELD(y); CML_EMU_FIELD(z); CML_EMU_FIELD(w))   \
    CML_EMU_INTEGER(scope, atomicSub, int, unsigned(o) - unsigned(v))                                           \
    CML_EMU_INTEGER(scope, atomicSub, unsigned, o - v)                                                          \
    CML_EMU_INTEGER(scope, atomicExch, int, v)                                                                  \
    CML_EMU_INTEGER(scope, atomicExch, unsigned, v)                                                             \
    CML_EMU_INTEGER(scope, atomicExch, ull, v)                                                                  \
    CML_EMU_FLOATING(scope, atomicExch, float, std::uint32_t, v)                                                \
    CML_EMU_INTEGER(scope, atomicMin, int, o < v ? o : v)                                                       \
    CML_EMU_INTEGER(scope, atomicMin, unsigned, o < v ? o : v)                                                  \
    CML_EMU_INTEGER(scope, atomicMin, ll, o < v ? o : v)                                                        \
    CML_EMU_INTEGER(scope, atomicMin, ull, o < v ? o : v)                                                       \
    CML_EMU_INTEGER(scope, atomicMax, int, o > v ? o : v)                                                       \
    CML_EMU_INTEGER(scope, atomicMax, unsigned, o > v ? o : v)                                                  \
    CML_EMU_INTEGER(scope, atomicMax, ll, o > v ? o : v)                                                        \
    CML_EMU_INTEGER(scope, atomicMax, ull, o > v ? o : v)                                                       \
    CML_EMU_INTEGER(scope, atomicInc, unsigned, o >= v ? 0u : o + 1)                                            \
    CML_EMU_INTEGER(scope, atomicDec, unsigned, o == 0 || o > v ? v : o - 1)                                    \
    CML_EMU_CAS(scope, int)                                                                                     \
    CML_EMU_CAS(scope, unsigned)                                                                                \
    CML_EMU_CAS(scope, ull)                                                                                     \
    CML_EMU_INTEGER(scope, atomicAnd, int, o & v)                                                               \
    CML_EMU_INTEGER(scope, atomicAnd, unsigned, o & v)                                                          \
    CML_EMU_INTEGER(scope, atomicAnd, ll, o & v)                                                                \
    CML_EMU_INTEGER(scope, atomicAnd, ull, o & v)                                                               \
    CML_EMU_INTEGER(scope, atomicOr, int, o | v)                                                                \
    CML_EMU_INTEGER(scope, atomicOr, unsigned, o | v)                                                           \
    CML_EMU_INTEGER(scope, atomicOr, ll, o | v)                                                                 \
    CML_EMU_INTEGER(scope, atomicOr, ull, o | v)                                                                \
    CML_EMU_INTEGER(scope, atomicXor, int, o ^ v)                                                               \
    CML_EMU_INTEGER(scope, atomicXor, unsigned, o ^ v)                                                          \
    CML_EMU_INTEGER(scope, atomicXor, ll, o ^ v)                                                                \
    CML_EMU_INTEGER(scope, atomicXor, ull, o ^ v)

CML_EMU_ATOMIC_SCOPES(CML_EMU_DEFINE_ATOMICS)
CML_EMU_CAS(, unsigned short)

// Half and bfloat16 additions, in float, rounded to the type: one 16-bit value, or a pair added as one 32-bit
// word (the GPU makes the pair's two additions one atomic).
#define CML_EMU_HALF_ADD(H, H2, to_float, from_float, pair, low, high)                                        \
    H atomicAdd(H* a, H v)                                                                                    \
    {                                                                                                         \
        cml_emu::note_atomic(a, sizeof(H), CML_EMU_PC);                                                       \
        return update_float<H, std::uint16_t>(a, [v](H o) { return from_float(to_float(o) + to_float(v)); }, nullptr); \
    }                                                                                                         \
    H2 atomicAdd(H2* a, H2 v)                                                                                 \
    {                                                                                                         \
        cml_emu::note_atomic(a, sizeof(H2), CML_EMU_PC);                                                      \
        return update_float<H2, std::uint32_t>(a, [v](H2 o) {                                                 \
            return pair(from_float(to_float(low(o)) + to_float(low(v))),                                      \
                        from_float(to_float(high(o)) + to_float(high(v))));                                   \
        }, nullptr);                                                                                          \
    }
CML_EMU_HALF_ADD(__half, __half2, __half2float, __float2half_rn, __halves2half2, __low2half, __high2half)
CML_EMU_HALF_ADD(__nv_bfloat16, __nv_bfloat162, __bfloat162float, __float2bfloat16_rn, __halves2bfloat162,
                 __low2bfloat16, __high2bfloat16)
#undef CML_EMU_HALF_ADD

namespace cml_emu {

void exchange_16(void* address, const void* compare, const void* value, void* old)
{
    note_atomic(address, 16, CML_EMU_PC);
    static std::mutex lock;
    std::lock_guard<std::mutex> hold(lock);
    std::memcpy(old, address, 16);
    if (!compare || std::memcmp(old, compare, 16) == 0) std::memcpy(address, value, 16);
}

}  // namespace cml_emu
