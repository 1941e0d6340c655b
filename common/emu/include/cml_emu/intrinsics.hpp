// The intrinsics of device code on the CPU emulator: reinterpretation of bits, integer and bit intrinsics,
// SIMD on the bytes and half-words of a 32-bit value, sm_90's DPX minima and maxima, arithmetic and conversions
// rounded in a chosen direction (cml_emu/rounding.hpp), the fast approximations of the math functions (here
// the accurate ones), and the cached loads and stores (plain accesses here, which the emulator checks and counts
// as any other). Static, so that no definition of them is left in a kernel's object for the linker to choose.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include <device_types.h>
#include <vector_types.h>

#include "cml_emu/rounding.hpp"

#define CML_EMU_INTRINSIC static inline __attribute__((always_inline))

namespace cml_emu {
template <class To, class From>
CML_EMU_INTRINSIC To bit_cast(From from)
{
    static_assert(sizeof(To) == sizeof(From), "the same size");
    To to;
    std::memcpy(&to, &from, sizeof to);
    return to;
}
}  // namespace cml_emu

// ---- reinterpretation ----

CML_EMU_INTRINSIC int __float_as_int(float x) { return cml_emu::bit_cast<int>(x); }
CML_EMU_INTRINSIC unsigned __float_as_uint(float x) { return cml_emu::bit_cast<unsigned>(x); }
CML_EMU_INTRINSIC float __int_as_float(int x) { return cml_emu::bit_cast<float>(x); }
CML_EMU_INTRINSIC float __uint_as_float(unsigned x) { return cml_emu::bit_cast<float>(x); }
CML_EMU_INTRINSIC long long __double_as_longlong(double x) { return cml_emu::bit_cast<long long>(x); }
CML_EMU_INTRINSIC double __longlong_as_double(long long x) { return cml_emu::bit_cast<double>(x); }
CML_EMU_INTRINSIC int __double2hiint(double x) { return int(cml_emu::bit_cast<unsigned long long>(x) >> 32); }
CML_EMU_INTRINSIC int __double2loint(double x) { return int(unsigned(cml_emu::bit_cast<unsigned long long>(x))); }
CML_EMU_INTRINSIC double __hiloint2double(int hi, int lo)
{
    return cml_emu::bit_cast<double>((unsigned long long)(unsigned(hi)) << 32 | unsigned(lo));
}

// ---- integers and bits ----

CML_EMU_INTRINSIC int __popc(unsigned x) { return __builtin_popcount(x); }
CML_EMU_INTRINSIC int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
CML_EMU_INTRINSIC int __clz(int x) { return x == 0 ? 32 : __builtin_clz(unsigned(x)); }
CML_EMU_INTRINSIC int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
CML_EMU_INTRINSIC int __ffs(int x) { return __builtin_ffs(x); }
CML_EMU_INTRINSIC int __ffsll(long long x) { return __builtin_ffsll(x); }
CML_EMU_INTRINSIC unsigned __brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; ++i, x >>= 1) r = (r << 1) | (x & 1u);
    return r;
}
CML_EMU_INTRINSIC unsigned long long __brevll(unsigned long long x)
{
    return (unsigned long long)(__brev(unsigned(x))) << 32 | __brev(unsigned(x >> 32));
}
// Byte i of the result is byte (s >> 4i) & 7 of the 8 bytes y:x (x's bytes are 0 to 3).
CML_EMU_INTRINSIC unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
    const unsigned long long bytes = (unsigned long long)y << 32 | x;
    unsigned r = 0;
    for (int i = 0; i < 4; ++i) r |= unsigned(bytes >> (8 * ((s >> (4 * i)) & 7u)) & 0xffu) << (8 * i);
    return r;
}
// The 64 bits hi:lo shifted left (the high word kept) or right (the low word kept); the shift is taken modulo 32,
// or (the c variants) clamped to 32.
CML_EMU_INTRINSIC unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned shift)
{
    return unsigned(((unsigned long long)hi << 32 | lo) << (shift & 31u) >> 32);
}
CML_EMU_INTRINSIC unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift)
{
    return shift >= 32 ? lo : __funnelshift_l(lo, hi, shift);
}
CML_EMU_INTRINSIC unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned shift)
{
    return unsigned(((unsigned long long)hi << 32 | lo) >> (shift & 31u));
}
CML_EMU_INTRINSIC unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift)
{
    return shift >= 32 ? hi : __funnelshift_r(lo, hi, shift);
}
CML_EMU_INTRINSIC int __mulhi(int x, int y) { return int((long long)x * y >> 32); }
CML_EMU_INTRINSIC unsigned __umulhi(unsigned x, unsigned y) { return unsigned((unsigned long long)x * y >> 32); }
CML_EMU_INTRINSIC long long __mul64hi(long long x, long long y) { return (long long)((__int128)x * y >> 64); }
CML_EMU_INTRINSIC unsigned long long __umul64hi(unsigned long long x, unsigned long long y)
{
    return (unsigned long long)((unsigned __int128)x * y >> 64);
}
// The product of the low 24 bits of each (signed for __mul24), its low 32 bits.
CML_EMU_INTRINSIC int __mul24(int x, int y)
{
    const auto low = [](int v) { return (long long)(int(unsigned(v) << 8) >> 8); };
    return int((unsigned long long)(low(x) * low(y)));
}
CML_EMU_INTRINSIC unsigned __umul24(unsigned x, unsigned y) { return (x & 0xffffffu) * (y & 0xffffffu); }
CML_EMU_INTRINSIC unsigned __sad(int x, int y, unsigned z) { return unsigned(x > y ? (long long)x - y : (long long)y - x) + z; }
CML_EMU_INTRINSIC unsigned __usad(unsigned x, unsigned y, unsigned z) { return (x > y ? x - y : y - x) + z; }
// Averages with no overflow of the sum: (x + y) >> 1, and rounded, (x + y + 1) >> 1.
CML_EMU_INTRINSIC int __hadd(int x, int y) { return int(((long long)x + y) >> 1); }
CML_EMU_INTRINSIC int __rhadd(int x, int y) { return int(((long long)x + y + 1) >> 1); }
CML_EMU_INTRINSIC unsigned __uhadd(unsigned x, unsigned y) { return unsigned(((unsigned long long)x + y) >> 1); }
CML_EMU_INTRINSIC unsigned __urhadd(unsigned x, unsigned y) { return unsigned(((unsigned long long)x + y + 1) >> 1); }

namespace cml_emu {
// Part `i` of `bits` bits of x, sign-extended when Signed.
template <int Bits, bool Signed>
CML_EMU_INTRINSIC long long part(unsigned x, int i)
{
    const unsigned field = x >> (i * Bits) & ((1u << Bits) - 1u);
    return Signed && field >> (Bits - 1) ? (long long)field - (1ll << Bits) : (long long)field;
}
}  // namespace cml_emu

// Dot products of the bytes (and half-words) of 32-bit values, added to c.
CML_EMU_INTRINSIC int __dp4a(int a, int b, int c)
{
    long long sum = c;
    for (int i = 0; i < 4; ++i) sum += cml_emu::part<8, true>(unsigned(a), i) * cml_emu::part<8, true>(unsigned(b), i);
    return int((unsigned long long)sum);
}
CML_EMU_INTRINSIC unsigned __dp4a(unsigned a, unsigned b, unsigned c)
{
    unsigned long long sum = c;
    for (int i = 0; i < 4; ++i)
        sum += (unsigned long long)(cml_emu::part<8, false>(a, i) * cml_emu::part<8, false>(b, i));
    return unsigned(sum);
}
CML_EMU_INTRINSIC int __dp4a(char4 a, char4 b, int c)
{
    return __dp4a(cml_emu::bit_cast<int>(a), cml_emu::bit_cast<int>(b), c);
}
CML_EMU_INTRINSIC unsigned __dp4a(uchar4 a, uchar4 b, unsigned c)
{
    return __dp4a(cml_emu::bit_cast<unsigned>(a), cml_emu::bit_cast<unsigned>(b), c);
}
// a's two half-words times two bytes of b: its low two (lo) or high two (hi).
CML_EMU_INTRINSIC int __dp2a_lo(int a, int b, int c)
{
    const auto x = unsigned(a), y = unsigned(b);
    return int((unsigned long long)(c + cml_emu::part<16, true>(x, 0) * cml_emu::part<8, true>(y, 0) +
                                    cml_emu::part<16, true>(x, 1) * cml_emu::part<8, true>(y, 1)));
}
CML_EMU_INTRINSIC int __dp2a_hi(int a, int b, int c)
{
    const auto x = unsigned(a), y = unsigned(b);
    return int((unsigned long long)(c + cml_emu::part<16, true>(x, 0) * cml_emu::part<8, true>(y, 2) +
                                    cml_emu::part<16, true>(x, 1) * cml_emu::part<8, true>(y, 3)));
}
CML_EMU_INTRINSIC unsigned __dp2a_lo(unsigned a, unsigned b, unsigned c)
{
    return unsigned(c + cml_emu::part<16, false>(a, 0) * cml_emu::part<8, false>(b, 0) +
                    cml_emu::part<16, false>(a, 1) * cml_emu::part<8, false>(b, 1));
}
CML_EMU_INTRINSIC unsigned __dp2a_hi(unsigned a, unsigned b, unsigned c)
{
    return unsigned(c + cml_emu::part<16, false>(a, 0) * cml_emu::part<8, false>(b, 2) +
                    cml_emu::part<16, false>(a, 1) * cml_emu::part<8, false>(b, 3));
}
CML_EMU_INTRINSIC int __dp2a_lo(short2 a, char4 b, int c)
{
    return __dp2a_lo(cml_emu::bit_cast<int>(a), cml_emu::bit_cast<int>(b), c);
}
CML_EMU_INTRINSIC int __dp2a_hi(short2 a, char4 b, int c)
{
    return __dp2a_hi(cml_emu::bit_cast<int>(a), cml_emu::bit_cast<int>(b), c);
}
CML_EMU_INTRINSIC unsigned __dp2a_lo(ushort2 a, uchar4 b, unsigned c)
{
    return __dp2a_lo(cml_emu::bit_cast<unsigned>(a), cml_emu::bit_cast<unsigned>(b), c);
}
CML_EMU_INTRINSIC unsigned __dp2a_hi(ushort2 a, uchar4 b, unsigned c)
{
    return __dp2a_hi(cml_emu::bit_cast<unsigned>(a), cml_emu::bit_cast<unsigned>(b), c);
}

#include "cml_emu/simd.hpp"

// ---- floating point: rounded in a chosen direction ----

#define CML_EMU_ROUNDINGS(define) define(rn, nearest) define(rz, zero) define(ru, up) define(rd, down)

#define CML_EMU_ROUNDED_ARITHMETIC(suffix, mode)                                                                 \
    CML_EMU_INTRINSIC float __fadd_##suffix(float a, float b) { return cml_emu::add(a, b, cml_emu::Rounding::mode); } \
    CML_EMU_INTRINSIC float __fsub_##suffix(float a, float b)                                                    \
    {                                                                                                            \
        return cml_emu::subtract(a, b, cml_emu::Rounding::mode);                                                 \
    }                                                                                                            \
    CML_EMU_INTRINSIC float __fmul_##suffix(float a, float b)                                                    \
    {                                                                                                            \
        return cml_emu::multiply(a, b, cml_emu::Rounding::mode);                                                 \
    }                                                                                                            \
    CML_EMU_INTRINSIC float __fdiv_##suffix(float a, float b) { return cml_emu::divide(a, b, cml_emu::Rounding::mode); } \
    CML_EMU_INTRINSIC float __frcp_##suffix(float a) { return cml_emu::divide(1.0f, a, cml_emu::Rounding::mode); } \
    CML_EMU_INTRINSIC float __fsqrt_##suffix(float a) { return cml_emu::square_root(a, cml_emu::Rounding::mode); } \
    CML_EMU_INTRINSIC float __fmaf_##suffix(float a, float b, float c)                                           \
    {                                                                                                            \
        return cml_emu::fused_multiply_add(a, b, c, cml_emu::Rounding::mode);                                    \
    }                                                                                                            \
    CML_EMU_INTRINSIC float __fmaf_ieee_##suffix(float a, float b, float c) { return __fmaf_##suffix(a, b, c); }  \
    CML_EMU_INTRINSIC double __dadd_##suffix(double a, double b) { return cml_emu::add(a, b, cml_emu::Rounding::mode); } \
    CML_EMU_INTRINSIC double __dsub_##suffix(double a, double b)                                                 \
    {                                                                                                            \
        return cml_emu::subtract(a, b, cml_emu::Rounding::mode);                                                 \
    }                                                                                                            \
    CML_EMU_INTRINSIC double __dmul_##suffix(double a, double b)                                                 \
    {                                                                                                            \
        return cml_emu::multiply(a, b, cml_emu::Rounding::mode);                                                 \
    }                                                                                                            \
    CML_EMU_INTRINSIC double __ddiv_##suffix(double a, double b)                                                 \
    {                                                                                                            \
        return cml_emu::divide(a, b, cml_emu::Rounding::mode);                                                   \
    }                                                                                                            \
    CML_EMU_INTRINSIC double __drcp_##suffix(double a) { return cml_emu::divide(1.0, a, cml_emu::Rounding::mode); } \
    CML_EMU_INTRINSIC double __dsqrt_##suffix(double a) { return cml_emu::square_root(a, cml_emu::Rounding::mode); } \
    CML_EMU_INTRINSIC double __fma_##suffix(double a, double b, double c)                                        \
    {                                                                                                            \
        return cml_emu::fused_multiply_add(a, b, c, cml_emu::Rounding::mode);                                    \
    }
CML_EMU_ROUNDINGS(CML_EMU_ROUNDED_ARITHMETIC)
#undef CML_EMU_ROUNDED_ARITHMETIC

// 1 / sqrt(x), rounded once: in long double, whose 64 bits of significand leave a second rounding to float
// exact but for ties no float operand reaches.
CML_EMU_INTRINSIC float __frsqrt_rn(float x) { return float(1.0L / std::sqrt((long double)x)); }

// ---- conversions ----

namespace cml_emu {
// A floating point value as an integer of type I, rounded as `mode` says, clamped to I's range (NaN: 0), as
// the GPU's conversion instructions do.
template <class I, class F>
CML_EMU_INTRINSIC I to_integer(F x, Rounding mode)
{
    if (std::isnan(x)) return 0;
    const F rounded = mode == Rounding::zero ? std::trunc(x) : mode == Rounding::up ? std::ceil(x)
                      : mode == Rounding::down ? std::floor(x) : std::nearbyint(x);
    // The bounds as F, both exact: the lowest (0, or -2^(bits-1)) and one past the highest (2^(bits-1) or 2^bits).
    const F lowest = F(std::numeric_limits<I>::min());
    const F past = std::is_signed<I>::value ? -lowest : F(2) * F((std::numeric_limits<I>::max() >> 1) + 1);
    if (rounded < lowest) return std::numeric_limits<I>::min();
    if (rounded >= past) return std::numeric_limits<I>::max();
    return I(rounded);
}
}  // namespace cml_emu

#define CML_EMU_CONVERSIONS(suffix, mode)                                                                          \
    CML_EMU_INTRINSIC int __float2int_##suffix(float x) { return cml_emu::to_integer<int>(x, cml_emu::Rounding::mode); } \
    CML_EMU_INTRINSIC unsigned __float2uint_##suffix(float x)                                                      \
    {                                                                                                              \
        return cml_emu::to_integer<unsigned>(x, cml_emu::Rounding::mode);                                          \
    }                                                                                                              \
    CML_EMU_INTRINSIC long long __float2ll_##suffix(float x)                                                       \
    {                                                                                                              \
        return cml_emu::to_integer<long long>(x, cml_emu::Rounding::mode);                                         \
    }                                                                                                              \
    CML_EMU_INTRINSIC unsigned long long __float2ull_##suffix(float x)                                             \
    {                                                                                                              \
        return cml_emu::to_integer<unsigned long long>(x, cml_emu::Rounding::mode);                                \
    }                                                                                                              \
    CML_EMU_INTRINSIC int __double2int_##suffix(double x) { return cml_emu::to_integer<int>(x, cml_emu::Rounding::mode); } \
    CML_EMU_INTRINSIC unsigned __double2uint_##suffix(double x)                                                    \
    {                                                                                                              \
        return cml_emu::to_integer<unsigned>(x, cml_emu::Rounding::mode);                                          \
    }                                                                                                              \
    CML_EMU_INTRINSIC long long __double2ll_##suffix(double x)                                                     \
    {                                                                                                              \
        return cml_emu::to_integer<long long>(x, cml_emu::Rounding::mode);                                         \
    }                                                                                                              \
    CML_EMU_INTRINSIC unsigned long long __double2ull_##suffix(double x)                                           \
    {                                                                                                              \
        return cml_emu::to_integer<unsigned long long>(x, cml_emu::Rounding::mode);                                \
    }                                                                                                              \
    CML_EMU_INTRINSIC float __int2float_##suffix(int x) { return cml_emu::to_float((long long)x, cml_emu::Rounding::mode); } \
    CML_EMU_INTRINSIC float __uint2float_##suffix(unsigned x)                                                      \
    {                                                                                                              \
        return cml_emu::to_float((long long)x, cml_emu::Rounding::mode);                                           \
    }                                                                                                              \
    CML_EMU_INTRINSIC float __ll2float_##suffix(long long x) { return cml_emu::to_float(x, cml_emu::Rounding::mode); } \
    CML_EMU_INTRINSIC float __ull2float_##suffix(unsigned long long x)                                             \
    {                                                                                                              \
        return cml_emu::to_float(x, cml_emu::Rounding::mode);                                                      \
    }                                                                                                              \
    CML_EMU_INTRINSIC float __double2float_##suffix(double x) { return cml_emu::to_float(x, cml_emu::Rounding::mode); } \
    CML_EMU_INTRINSIC double __ll2double_##suffix(long long x) { return cml_emu::to_double(x, cml_emu::Rounding::mode); } \
    CML_EMU_INTRINSIC double __ull2double_##suffix(unsigned long long x)                                           \
    {                                                                                                              \
        return cml_emu::to_double(x, cml_emu::Rounding::mode);                                                     \
    }
CML_EMU_ROUNDINGS(CML_EMU_CONVERSIONS)
#undef CML_EMU_CONVERSIONS
CML_EMU_INTRINSIC double __int2double_rn(int x) { return double(x); }  // exact
CML_EMU_INTRINSIC double __uint2double_rn(unsigned x) { return double(x); }

// The older forms that take the rounding as an argument (device_double_functions.h).
namespace cml_emu {
CML_EMU_INTRINSIC Rounding rounding_of(cudaRoundMode mode)
{
    return mode == cudaRoundZero ? Rounding::zero : mode == cudaRoundPosInf ? Rounding::up
           : mode == cudaRoundMinInf ? Rounding::down : Rounding::nearest;
}
}  // namespace cml_emu
CML_EMU_INTRINSIC double fma(double a, double b, double c, enum cudaRoundMode mode)
{
    return cml_emu::fused_multiply_add(a, b, c, cml_emu::rounding_of(mode));
}
CML_EMU_INTRINSIC double dmul(double a, double b, enum cudaRoundMode mode = cudaRoundNearest)
{
    return cml_emu::multiply(a, b, cml_emu::rounding_of(mode));
}
CML_EMU_INTRINSIC double dadd(double a, double b, enum cudaRoundMode mode = cudaRoundNearest)
{
    return cml_emu::add(a, b, cml_emu::rounding_of(mode));
}
CML_EMU_INTRINSIC double dsub(double a, double b, enum cudaRoundMode mode = cudaRoundNearest)
{
    return cml_emu::subtract(a, b, cml_emu::rounding_of(mode));
}
CML_EMU_INTRINSIC int double2int(double a, enum cudaRoundMode mode = cudaRoundZero)
{
    return cml_emu::to_integer<int>(a, cml_emu::rounding_of(mode));
}
CML_EMU_INTRINSIC unsigned double2uint(double a, enum cudaRoundMode mode = cudaRoundZero)
{
    return cml_emu::to_integer<unsigned>(a, cml_emu::rounding_of(mode));
}
CML_EMU_INTRINSIC long long double2ll(double a, enum cudaRoundMode mode = cudaRoundZero)
{
    return cml_emu::to_integer<long long>(a, cml_emu::rounding_of(mode));
}
CML_EMU_INTRINSIC unsigned long long double2ull(double a, enum cudaRoundMode mode = cudaRoundZero)
{
    return cml_emu::to_integer<unsigned long long>(a, cml_emu::rounding_of(mode));
}
CML_EMU_INTRINSIC double ll2double(long long a, enum cudaRoundMode mode = cudaRoundNearest)
{
    return cml_emu::to_double(a, cml_emu::rounding_of(mode));
}
CML_EMU_INTRINSIC double ull2double(unsigned long long a, enum cudaRoundMode mode = cudaRoundNearest)
{
    return cml_emu::to_double(a, cml_emu::rounding_of(mode));
}
CML_EMU_INTRINSIC double int2double(int a, enum cudaRoundMode = cudaRoundNearest) { return double(a); }
CML_EMU_INTRINSIC double uint2double(unsigned a, enum cudaRoundMode = cudaRoundNearest) { return double(a); }
CML_EMU_INTRINSIC double float2double(float a, enum cudaRoundMode = cudaRoundNearest) { return double(a); }

// ---- the fast approximations, here as accurate as the functions they stand for ----

// The C library declares these names itself (its internal ones): defined here with its C linkage, inline.
#define CML_EMU_C_INTRINSIC extern "C" inline __attribute__((always_inline))
CML_EMU_C_INTRINSIC float __expf(float x) noexcept { return std::exp(x); }
CML_EMU_C_INTRINSIC float __exp10f(float x) noexcept { return std::pow(10.0f, x); }
CML_EMU_C_INTRINSIC float __logf(float x) noexcept { return std::log(x); }
CML_EMU_C_INTRINSIC float __log2f(float x) noexcept { return std::log2(x); }
CML_EMU_C_INTRINSIC float __log10f(float x) noexcept { return std::log10(x); }
CML_EMU_C_INTRINSIC float __sinf(float x) noexcept { return std::sin(x); }
CML_EMU_C_INTRINSIC float __cosf(float x) noexcept { return std::cos(x); }
CML_EMU_C_INTRINSIC float __tanf(float x) noexcept { return std::tan(x); }
CML_EMU_C_INTRINSIC float __tanhf(float x) noexcept { return std::tanh(x); }
CML_EMU_C_INTRINSIC void __sincosf(float x, float* sine, float* cosine) noexcept
{
    *sine = std::sin(x);
    *cosine = std::cos(x);
}
CML_EMU_C_INTRINSIC float __powf(float x, float y) noexcept { return std::pow(x, y); }
CML_EMU_C_INTRINSIC int __finitef(float x) noexcept { return __builtin_isfinite(x); }
CML_EMU_C_INTRINSIC int __finite(double x) noexcept { return __builtin_isfinite(x); }
CML_EMU_C_INTRINSIC int __finitel(long double x) noexcept { return __builtin_isfinite(x); }
CML_EMU_C_INTRINSIC int __isinff(float x) noexcept { return __builtin_isinf_sign(x); }
CML_EMU_C_INTRINSIC int __isinf(double x) noexcept { return __builtin_isinf_sign(x); }
CML_EMU_C_INTRINSIC int __isinfl(long double x) noexcept { return __builtin_isinf_sign(x); }
CML_EMU_C_INTRINSIC int __isnanf(float x) noexcept { return __builtin_isnan(x); }
CML_EMU_C_INTRINSIC int __isnan(double x) noexcept { return __builtin_isnan(x); }
CML_EMU_C_INTRINSIC int __isnanl(long double x) noexcept { return __builtin_isnan(x); }
CML_EMU_C_INTRINSIC int __signbitf(float x) noexcept { return __builtin_signbit(x) != 0; }
CML_EMU_C_INTRINSIC int __signbit(double x) noexcept { return __builtin_signbit(x) != 0; }
CML_EMU_C_INTRINSIC int __signbitl(long double x) noexcept { return __builtin_signbit(x) != 0; }
#undef CML_EMU_C_INTRINSIC
// x / y, but 0 for 2^126 < |y| < 2^128 (NaN if x is infinite), as the GPU's approximate division gives.
CML_EMU_INTRINSIC float __fdividef(float x, float y)
{
    const float magnitude = std::fabs(y);
    if (magnitude > 0x1p126f && magnitude < std::numeric_limits<float>::infinity())
        return std::isinf(x) ? std::numeric_limits<float>::quiet_NaN() : 0.0f;
    return x / y;
}
CML_EMU_INTRINSIC float fdividef(float x, float y) { return x / y; }
CML_EMU_INTRINSIC double fdivide(double x, double y) { return x / y; }
// Clamped to [0, 1]; NaN gives 0.
CML_EMU_INTRINSIC float __saturatef(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }

// ---- cached loads and stores: plain accesses here ----

#define CML_EMU_LOAD(name)                                                                                      \
    template <class T>                                                                                          \
    CML_EMU_INTRINSIC T name(const T* address)                                                                  \
    {                                                                                                           \
        return *address;                                                                                        \
    }
CML_EMU_LOAD(__ldg)
CML_EMU_LOAD(__ldcg)
CML_EMU_LOAD(__ldca)
CML_EMU_LOAD(__ldcs)
CML_EMU_LOAD(__ldlu)
CML_EMU_LOAD(__ldcv)
#undef CML_EMU_LOAD
#define CML_EMU_STORE(name)                                                                                     \
    template <class T>                                                                                          \
    CML_EMU_INTRINSIC void name(T* address, T value)                                                            \
    {                                                                                                           \
        *address = value;                                                                                       \
    }
CML_EMU_STORE(__stwb)
CML_EMU_STORE(__stcg)
CML_EMU_STORE(__stcs)
CML_EMU_STORE(__stwt)
#undef CML_EMU_STORE
