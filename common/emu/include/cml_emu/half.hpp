// What cuda_fp16.h and cuda_bf16.h give device code alone, on the CPU emulator: the conversions to and from
// integers in the directions their host side lacks, the math functions (hexp, hsqrt, h2sin, ...), the fused
// multiply-adds and the atomics. Each of __half and __nv_bfloat16, once its header is in: the math in float,
// rounded once to the type, as the GPU's functions of these types are specified. Included by both headers;
// what one of them declares is defined once it is there (so this file has no include guard of its own).
#ifndef CML_EMU_HALF_COMMON
#define CML_EMU_HALF_COMMON

#include <cmath>

#include "cml_emu/intrinsics.hpp"
#include "cml_emu/rounding.hpp"

namespace cml_emu {

// The bfloat16 nearest to `value` in the direction asked: the 16 high bits of the float, kept (toward zero) or
// stepped away from zero when bits below them are set and the direction says so.
template <class Bfloat16>
Bfloat16 bfloat16_in(float value, Rounding rounding, Bfloat16 (*from_bits)(unsigned short))
{
    unsigned bits;
    std::memcpy(&bits, &value, 4);
    if (std::isnan(value)) return from_bits(0x7fff);
    const bool negative = bits >> 31, below = (bits & 0xffffu) != 0;
    unsigned high = bits >> 16;
    if (below && ((rounding == Rounding::up && !negative) || (rounding == Rounding::down && negative))) ++high;
    return from_bits((unsigned short)high);
}

}  // namespace cml_emu

// ---- for a type H (__half or __nv_bfloat16) and its pair H2, given their conversions to and from float ----

#define CML_EMU_HALF_MATH(H, H2, to_float, from_float, pair, low, high)                                      \
    CML_EMU_INTRINSIC H hceil(const H a) { return from_float(std::ceil(to_float(a))); }                       \
    CML_EMU_INTRINSIC H hfloor(const H a) { return from_float(std::floor(to_float(a))); }                     \
    CML_EMU_INTRINSIC H hrint(const H a) { return from_float(std::nearbyint(to_float(a))); }                  \
    CML_EMU_INTRINSIC H htrunc(const H a) { return from_float(std::trunc(to_float(a))); }                     \
    CML_EMU_INTRINSIC H hexp(const H a) { return from_float(std::exp(to_float(a))); }                         \
    CML_EMU_INTRINSIC H hexp2(const H a) { return from_float(std::exp2(to_float(a))); }                       \
    CML_EMU_INTRINSIC H hexp10(const H a) { return from_float(std::pow(10.0f, to_float(a))); }                \
    CML_EMU_INTRINSIC H hlog(const H a) { return from_float(std::log(to_float(a))); }                         \
    CML_EMU_INTRINSIC H hlog2(const H a) { return from_float(std::log2(to_float(a))); }                       \
    CML_EMU_INTRINSIC H hlog10(const H a) { return from_float(std::log10(to_float(a))); }                     \
    CML_EMU_INTRINSIC H hsin(const H a) { return from_float(std::sin(to_float(a))); }                         \
    CML_EMU_INTRINSIC H hcos(const H a) { return from_float(std::cos(to_float(a))); }                         \
    CML_EMU_INTRINSIC H hsqrt(const H a) { return from_float(std::sqrt(to_float(a))); }                       \
    CML_EMU_INTRINSIC H hrsqrt(const H a) { return from_float(float(1.0 / std::sqrt(double(to_float(a))))); } \
    CML_EMU_INTRINSIC H hrcp(const H a) { return from_float(1.0f / to_float(a)); }                            \
    CML_EMU_INTRINSIC H htanh(const H a) { return from_float(std::tanh(to_float(a))); }                       \
    CML_EMU_INTRINSIC H htanh_approx(const H a) { return htanh(a); }                                          \
    CML_EMU_INTRINSIC H __hfma(const H a, const H b, const H c)                                               \
    {                                                                                                         \
        return from_float(float(double(to_float(a)) * double(to_float(b)) + double(to_float(c))));            \
    }                                                                                                         \
    CML_EMU_INTRINSIC H __hfma_sat(const H a, const H b, const H c)                                           \
    {                                                                                                         \
        const float r = to_float(__hfma(a, b, c));                                                            \
        return from_float(r > 0.0f ? (r < 1.0f ? r : 1.0f) : 0.0f);                                           \
    }                                                                                                         \
    CML_EMU_INTRINSIC H __hfma_relu(const H a, const H b, const H c)                                          \
    {                                                                                                         \
        const H r = __hfma(a, b, c);                                                                          \
        return std::isnan(to_float(r)) || to_float(r) > 0.0f ? r : from_float(0.0f);                          \
    }                                                                                                         \
    CML_EMU_INTRINSIC H2 h2ceil(const H2 a) { return pair(hceil(low(a)), hceil(high(a))); }                   \
    CML_EMU_INTRINSIC H2 h2floor(const H2 a) { return pair(hfloor(low(a)), hfloor(high(a))); }                \
    CML_EMU_INTRINSIC H2 h2rint(const H2 a) { return pair(hrint(low(a)), hrint(high(a))); }                   \
    CML_EMU_INTRINSIC H2 h2trunc(const H2 a) { return pair(htrunc(low(a)), htrunc(high(a))); }                \
    CML_EMU_INTRINSIC H2 h2exp(const H2 a) { return pair(hexp(low(a)), hexp(high(a))); }                      \
    CML_EMU_INTRINSIC H2 h2exp2(const H2 a) { return pair(hexp2(low(a)), hexp2(high(a))); }                   \
    CML_EMU_INTRINSIC H2 h2exp10(const H2 a) { return pair(hexp10(low(a)), hexp10(high(a))); }                \
    CML_EMU_INTRINSIC H2 h2log(const H2 a) { return pair(hlog(low(a)), hlog(high(a))); }                      \
    CML_EMU_INTRINSIC H2 h2log2(const H2 a) { return pair(hlog2(low(a)), hlog2(high(a))); }                   \
    CML_EMU_INTRINSIC H2 h2log10(const H2 a) { return pair(hlog10(low(a)), hlog10(high(a))); }                \
    CML_EMU_INTRINSIC H2 h2sin(const H2 a) { return pair(hsin(low(a)), hsin(high(a))); }                      \
    CML_EMU_INTRINSIC H2 h2cos(const H2 a) { return pair(hcos(low(a)), hcos(high(a))); }                      \
    CML_EMU_INTRINSIC H2 h2sqrt(const H2 a) { return pair(hsqrt(low(a)), hsqrt(high(a))); }                   \
    CML_EMU_INTRINSIC H2 h2rsqrt(const H2 a) { return pair(hrsqrt(low(a)), hrsqrt(high(a))); }                \
    CML_EMU_INTRINSIC H2 h2rcp(const H2 a) { return pair(hrcp(low(a)), hrcp(high(a))); }                      \
    CML_EMU_INTRINSIC H2 h2tanh(const H2 a) { return pair(htanh(low(a)), htanh(high(a))); }                   \
    CML_EMU_INTRINSIC H2 h2tanh_approx(const H2 a) { return h2tanh(a); }                                      \
    CML_EMU_INTRINSIC H2 __hfma2(const H2 a, const H2 b, const H2 c)                                          \
    {                                                                                                         \
        return pair(__hfma(low(a), low(b), low(c)), __hfma(high(a), high(b), high(c)));                       \
    }                                                                                                         \
    CML_EMU_INTRINSIC H2 __hfma2_sat(const H2 a, const H2 b, const H2 c)                                      \
    {                                                                                                         \
        return pair(__hfma_sat(low(a), low(b), low(c)), __hfma_sat(high(a), high(b), high(c)));               \
    }                                                                                                         \
    CML_EMU_INTRINSIC H2 __hfma2_relu(const H2 a, const H2 b, const H2 c)                                     \
    {                                                                                                         \
        return pair(__hfma_relu(low(a), low(b), low(c)), __hfma_relu(high(a), high(b), high(c)));             \
    }                                                                                                         \
    /* a complex multiply-add, (a.x + i a.y)(b.x + i b.y) + (c.x + i c.y), each part one fused operation */   \
    CML_EMU_INTRINSIC H2 __hcmadd(const H2 a, const H2 b, const H2 c)                                         \
    {                                                                                                         \
        const double ar = to_float(low(a)), ai = to_float(high(a)), br = to_float(low(b)), bi = to_float(high(b)); \
        return pair(from_float(float(ar * br - ai * bi + to_float(low(c)))),                                  \
                    from_float(float(ar * bi + ai * br + to_float(high(c)))));                                \
    }

// The conversions to integers (in float, where each value of H is exact) and, for __nv_bfloat16, from them.
#define CML_EMU_HALF_TO_INTEGERS(H, prefix, to_float, suffix)                                                 \
    CML_EMU_INTRINSIC int prefix##2int_##suffix(const H h) { return __float2int_##suffix(to_float(h)); }       \
    CML_EMU_INTRINSIC unsigned prefix##2uint_##suffix(const H h) { return __float2uint_##suffix(to_float(h)); } \
    CML_EMU_INTRINSIC long long prefix##2ll_##suffix(const H h) { return __float2ll_##suffix(to_float(h)); }   \
    CML_EMU_INTRINSIC unsigned long long prefix##2ull_##suffix(const H h)                                     \
    {                                                                                                         \
        return __float2ull_##suffix(to_float(h));                                                             \
    }                                                                                                         \
    CML_EMU_INTRINSIC short prefix##2short_##suffix(const H h)                                                \
    {                                                                                                         \
        const int i = __float2int_##suffix(to_float(h));                                                      \
        return short(i < -32768 ? -32768 : i > 32767 ? 32767 : i);                                            \
    }                                                                                                         \
    CML_EMU_INTRINSIC unsigned short prefix##2ushort_##suffix(const H h)                                      \
    {                                                                                                         \
        const unsigned i = __float2uint_##suffix(to_float(h));                                                \
        return (unsigned short)(i > 65535u ? 65535u : i);                                                     \
    }

#endif  // CML_EMU_HALF_COMMON

#if defined(__CUDA_FP16_H__) && !defined(CML_EMU_HALF_DEFINED)
#define CML_EMU_HALF_DEFINED
namespace cml_emu {
CML_EMU_INTRINSIC __half2 half_pair(__half low, __half high) { return __halves2half2(low, high); }
}  // namespace cml_emu
CML_EMU_HALF_MATH(__half, __half2, __half2float, __float2half_rn, cml_emu::half_pair, __low2half, __high2half)
CML_EMU_HALF_TO_INTEGERS(__half, __half, __half2float, rn)
CML_EMU_HALF_TO_INTEGERS(__half, __half, __half2float, rd)
CML_EMU_HALF_TO_INTEGERS(__half, __half, __half2float, ru)
__half atomicAdd(__half* address, __half value);
__half2 atomicAdd(__half2* address, __half2 value);
#endif

#if defined(__CUDA_BF16_H__) && !defined(CML_EMU_BFLOAT16_DEFINED)
#define CML_EMU_BFLOAT16_DEFINED
namespace cml_emu {
CML_EMU_INTRINSIC __nv_bfloat162 bfloat16_pair(__nv_bfloat16 low, __nv_bfloat16 high)
{
    return __halves2bfloat162(low, high);
}
CML_EMU_INTRINSIC __nv_bfloat16 bfloat16_from_bits(unsigned short bits) { return __ushort_as_bfloat16(bits); }
}  // namespace cml_emu
CML_EMU_HALF_MATH(__nv_bfloat16, __nv_bfloat162, __bfloat162float, __float2bfloat16_rn, cml_emu::bfloat16_pair,
                  __low2bfloat16, __high2bfloat16)
CML_EMU_HALF_TO_INTEGERS(__nv_bfloat16, __bfloat16, __bfloat162float, rn)
CML_EMU_HALF_TO_INTEGERS(__nv_bfloat16, __bfloat16, __bfloat162float, rd)
CML_EMU_HALF_TO_INTEGERS(__nv_bfloat16, __bfloat16, __bfloat162float, ru)
// From integers, rounded in a direction: to float in that direction, then to bfloat16 in it, which together
// round once (the bfloat16 values are floats).
#define CML_EMU_INTEGER_TO_BFLOAT16(name, T, suffix, mode)                                                    \
    CML_EMU_INTRINSIC __nv_bfloat16 name##_##suffix(const T i)                                                \
    {                                                                                                         \
        const float f = cml_emu::to_float((long long)i, cml_emu::Rounding::mode);                             \
        return cml_emu::bfloat16_in(f, cml_emu::Rounding::mode, cml_emu::bfloat16_from_bits);                 \
    }
#define CML_EMU_INTEGERS_TO_BFLOAT16(suffix, mode)                                                            \
    CML_EMU_INTEGER_TO_BFLOAT16(__int2bfloat16, int, suffix, mode)                                            \
    CML_EMU_INTEGER_TO_BFLOAT16(__uint2bfloat16, unsigned, suffix, mode)                                      \
    CML_EMU_INTEGER_TO_BFLOAT16(__short2bfloat16, short, suffix, mode)                                        \
    CML_EMU_INTEGER_TO_BFLOAT16(__ushort2bfloat16, unsigned short, suffix, mode)                              \
    CML_EMU_INTEGER_TO_BFLOAT16(__ll2bfloat16, long long, suffix, mode)                                       \
    CML_EMU_INTRINSIC __nv_bfloat16 __ull2bfloat16_##suffix(const unsigned long long i)                       \
    {                                                                                                         \
        const float f = cml_emu::to_float(i, cml_emu::Rounding::mode);                                        \
        return cml_emu::bfloat16_in(f, cml_emu::Rounding::mode, cml_emu::bfloat16_from_bits);                 \
    }
CML_EMU_INTEGERS_TO_BFLOAT16(rz, zero)
CML_EMU_INTEGERS_TO_BFLOAT16(ru, up)
CML_EMU_INTEGERS_TO_BFLOAT16(rd, down)
#undef CML_EMU_INTEGERS_TO_BFLOAT16
#undef CML_EMU_INTEGER_TO_BFLOAT16
__nv_bfloat16 atomicAdd(__nv_bfloat16* address, __nv_bfloat16 value);
__nv_bfloat162 atomicAdd(__nv_bfloat162* address, __nv_bfloat162 value);
#endif
