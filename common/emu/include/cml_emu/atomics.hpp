// Atomic functions of device code, in every scope the toolkit has (device, _block, _system) and on every type it
// defines them for. Defined in src/atomics.cpp, where memcheck and racecheck see their addresses. The CPU
// makes every one atomic for the whole program, so the three scopes are one function each: a kernel whose
// threads share data across blocks with _block atomics is wrong on a GPU and passes here (README: Limits).
#pragma once

#include <type_traits>

#include <vector_types.h>

#define CML_EMU_ATOMIC_SCOPES(declare) declare() declare(_block) declare(_system)

#define CML_EMU_DECLARE_ATOMICS(scope)                                                                           \
    int atomicAdd##scope(int* address, int value);                                                                \
    unsigned atomicAdd##scope(unsigned* address, unsigned value);                                                 \
    unsigned long long atomicAdd##scope(unsigned long long* address, unsigned long long value);                   \
    float atomicAdd##scope(float* address, float value);                                                          \
    double atomicAdd##scope(double* address, double value);                                                       \
    float2 atomicAdd##scope(float2* address, float2 value);                                                       \
    float4 atomicAdd##scope(float4* address, float4 value);                                                       \
    int atomicSub##scope(int* address, int value);                                                                \
    unsigned atomicSub##scope(unsigned* address, unsigned value);                                                 \
    int atomicExch##scope(int* address, int value);                                                               \
    unsigned atomicExch##scope(unsigned* address, unsigned value);                                                \
    unsigned long long atomicExch##scope(unsigned long long* address, unsigned long long value);                  \
    float atomicExch##scope(float* address, float value);                                                         \
    int atomicMin##scope(int* address, int value);                                                                \
    unsigned atomicMin##scope(unsigned* address, unsigned value);                                                 \
    long long atomicMin##scope(long long* address, long long value);                                              \
    unsigned long long atomicMin##scope(unsigned long long* address, unsigned long long value);                   \
    int atomicMax##scope(int* address, int value);                                                                \
    unsigned atomicMax##scope(unsigned* address, unsigned value);                                                 \
    long long atomicMax##scope(long long* address, long long value);                                              \
    unsigned long long atomicMax##scope(unsigned long long* address, unsigned long long value);                   \
    unsigned atomicInc##scope(unsigned* address, unsigned limit);                                                 \
    unsigned atomicDec##scope(unsigned* address, unsigned limit);                                                 \
    int atomicCAS##scope(int* address, int compare, int value);                                                   \
    unsigned atomicCAS##scope(unsigned* address, unsigned compare, unsigned value);                               \
    unsigned long long atomicCAS##scope(unsigned long long* address, unsigned long long compare,                  \
                                        unsigned long long value);                                                \
    int atomicAnd##scope(int* address, int value);                                                                \
    unsigned atomicAnd##scope(unsigned* address, unsigned value);                                                 \
    long long atomicAnd##scope(long long* address, long long value);                                              \
    unsigned long long atomicAnd##scope(unsigned long long* address, unsigned long long value);                   \
    int atomicOr##scope(int* address, int value);                                                                 \
    unsigned atomicOr##scope(unsigned* address, unsigned value);                                                  \
    long long atomicOr##scope(long long* address, long long value);                                               \
    unsigned long long atomicOr##scope(unsigned long long* address, unsigned long long value);                    \
    int atomicXor##scope(int* address, int value);                                                                \
    unsigned atomicXor##scope(unsigned* address, unsigned value);                                                 \
    long long atomicXor##scope(long long* address, long long value);                                              \
    unsigned long long atomicXor##scope(unsigned long long* address, unsigned long long value);

CML_EMU_ATOMIC_SCOPES(CML_EMU_DECLARE_ATOMICS)

unsigned short atomicCAS(unsigned short* address, unsigned short compare, unsigned short value);

namespace cml_emu {
// The 16-byte atomics of sm_90 on the CPU, which has no such instruction everywhere: under one lock. `old` gets
// what was there; `value` is written when `compare` (if any) is what was there.
void exchange_16(void* address, const void* compare, const void* value, void* old);

template <class T>
using if_16_bytes = std::enable_if_t<sizeof(T) == 16 && alignof(T) >= 16 && std::is_trivially_copyable<T>::value, T>;
}  // namespace cml_emu

// atomicCAS and atomicExch of any trivially copyable type of 16 bytes, aligned to 16 (sm_90).
#define CML_EMU_DEFINE_ATOMICS_16(scope)                                                                          \
    template <class T>                                                                                            \
    __attribute__((always_inline)) inline cml_emu::if_16_bytes<T> atomicCAS##scope(T* address, T compare, T value) \
    {                                                                                                             \
        union Old {                                                                                               \
            T value;                                                                                              \
            Old() {}                                                                                              \
        } old;                                                                                                    \
        cml_emu::exchange_16(address, &compare, &value, &old.value);                                              \
        return old.value;                                                                                         \
    }                                                                                                             \
    template <class T>                                                                                            \
    __attribute__((always_inline)) inline cml_emu::if_16_bytes<T> atomicExch##scope(T* address, T value)          \
    {                                                                                                             \
        union Old {                                                                                               \
            T value;                                                                                              \
            Old() {}                                                                                              \
        } old;                                                                                                    \
        cml_emu::exchange_16(address, nullptr, &value, &old.value);                                               \
        return old.value;                                                                                         \
    }

CML_EMU_ATOMIC_SCOPES(CML_EMU_DEFINE_ATOMICS_16)
