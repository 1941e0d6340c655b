// Atomic functions of device code, on host memory: GCC's __atomic built-ins, with a compare-and-swap loop
// where the hardware has an instruction the CPU lacks (float and double add, min, max, inc, dec). Each
// reports its address to the access checks, which the instrumentation of loads and stores does not see.
#include <cstdint>
#include <cstring>

#include "cml_emu/device.hpp"

namespace cml_emu {
void note_atomic(const void* address, unsigned size, const void* pc);
}  // namespace cml_emu

namespace {

template <class T, class Update>
T update(T* address, Update f, const void* pc)
{
    cml_emu::note_atomic(address, sizeof(T), pc);
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
        std::memcpy(&value, &b, sizeof value);
        value = f(value);
        std::memcpy(&b, &value, sizeof value);
        return b;
    }, pc);
    F result;
    std::memcpy(&result, &old, sizeof result);
    return result;
}

}  // namespace

#define CML_EMU_PC __builtin_return_address(0)
#define CML_EMU_ATOMIC_ALL(name, expression)                                                                          \
    int name(int* a, int v) { return update(a, [v](int o) { return expression; }, CML_EMU_PC); }                       \
    unsigned name(unsigned* a, unsigned v) { return update(a, [v](unsigned o) { return expression; }, CML_EMU_PC); }

CML_EMU_ATOMIC_ALL(atomicAdd, int(unsigned(o) + unsigned(v)))
CML_EMU_ATOMIC_ALL(atomicSub, int(unsigned(o) - unsigned(v)))
CML_EMU_ATOMIC_ALL(atomicExch, v)
CML_EMU_ATOMIC_ALL(atomicMin, o < v ? o : v)
CML_EMU_ATOMIC_ALL(atomicMax, o > v ? o : v)
CML_EMU_ATOMIC_ALL(atomicAnd, o & v)
CML_EMU_ATOMIC_ALL(atomicOr, o | v)
CML_EMU_ATOMIC_ALL(atomicXor, o ^ v)

using ull = unsigned long long;
ull atomicAdd(ull* a, ull v) { return update(a, [v](ull o) { return o + v; }, CML_EMU_PC); }
ull atomicExch(ull* a, ull v) { return update(a, [v](ull) { return v; }, CML_EMU_PC); }
ull atomicMin(ull* a, ull v) { return update(a, [v](ull o) { return o < v ? o : v; }, CML_EMU_PC); }
ull atomicMax(ull* a, ull v) { return update(a, [v](ull o) { return o > v ? o : v; }, CML_EMU_PC); }
long long atomicMin(long long* a, long long v) { return update(a, [v](long long o) { return o < v ? o : v; }, CML_EMU_PC); }
long long atomicMax(long long* a, long long v) { return update(a, [v](long long o) { return o > v ? o : v; }, CML_EMU_PC); }
float atomicAdd(float* a, float v)
{
    return update_float<float, std::uint32_t>(a, [v](float o) { return o + v; }, CML_EMU_PC);
}
double atomicAdd(double* a, double v)
{
    return update_float<double, std::uint64_t>(a, [v](double o) { return o + v; }, CML_EMU_PC);
}
float atomicExch(float* a, float v) { return update_float<float, std::uint32_t>(a, [v](float) { return v; }, CML_EMU_PC); }
unsigned atomicInc(unsigned* a, unsigned limit)
{
    return update(a, [limit](unsigned o) { return o >= limit ? 0u : o + 1; }, CML_EMU_PC);
}
unsigned atomicDec(unsigned* a, unsigned limit)
{
    return update(a, [limit](unsigned o) { return o == 0 || o > limit ? limit : o - 1; }, CML_EMU_PC);
}

#define CML_EMU_CAS(T)                                                                        \
    T atomicCAS(T* a, T compare, T value)                                                     \
    {                                                                                         \
        cml_emu::note_atomic(a, sizeof(T), CML_EMU_PC);                                       \
        __atomic_compare_exchange_n(a, &compare, value, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
        return compare;                                                                       \
    }
CML_EMU_CAS(int)
CML_EMU_CAS(unsigned)
CML_EMU_CAS(ull)

unsigned __activemask()
{
    return 0xffffffffu;
}
void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
long long clock64() { return static_cast<long long>(__builtin_ia32_rdtsc()); }
