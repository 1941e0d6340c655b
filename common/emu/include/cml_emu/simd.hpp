// SIMD intrinsics on the CPU emulator: the two half-words (…2) or four bytes (…4) of 32-bit values, each
// its own number, signed (s) or unsigned (u), with wrap-around or saturation (ss, us); and sm_90's DPX
// minima and maxima of three values, or of a sum and a value, with ReLU (max with 0) where the name says.
// Part of intrinsics.hpp.
#pragma once

namespace cml_emu {

// Applies f to part i of a, b and c (Bits wide, sign-extended when Signed), for each part, and packs each
// result's low Bits bits back in place.
template <int Bits, bool Signed, class F>
CML_EMU_INTRINSIC unsigned each_part(unsigned a, unsigned b, unsigned c, F f)
{
    unsigned out = 0;
    for (int i = 0; i < 32 / Bits; ++i) {
        const long long r = f(part<Bits, Signed>(a, i), part<Bits, Signed>(b, i), part<Bits, Signed>(c, i));
        out |= (unsigned(r) & ((1u << Bits) - 1u)) << (i * Bits);
    }
    return out;
}
template <int Bits, bool Signed, class F>
CML_EMU_INTRINSIC unsigned each_part(unsigned a, unsigned b, F f)
{
    return each_part<Bits, Signed>(a, b, 0u, [f](long long x, long long y, long long) { return f(x, y); });
}
// The sum of f over the parts, as one number.
template <int Bits, bool Signed, class F>
CML_EMU_INTRINSIC unsigned sum_parts(unsigned a, unsigned b, F f)
{
    long long sum = 0;
    for (int i = 0; i < 32 / Bits; ++i) sum += f(part<Bits, Signed>(a, i), part<Bits, Signed>(b, i));
    return unsigned(sum);
}
template <int Bits, bool Signed>
CML_EMU_INTRINSIC long long saturated(long long x)
{
    const long long low = Signed ? -(1ll << (Bits - 1)) : 0, high = Signed ? (1ll << (Bits - 1)) - 1 : (1ll << Bits) - 1;
    return x < low ? low : x > high ? high : x;
}
CML_EMU_INTRINSIC long long absolute(long long x) { return x < 0 ? -x : x; }
CML_EMU_INTRINSIC long long larger(long long x, long long y) { return x > y ? x : y; }
CML_EMU_INTRINSIC long long smaller(long long x, long long y) { return x < y ? x : y; }

}  // namespace cml_emu

// Each function twice: on half-words (N = 2) and on bytes (N = 4).
#define CML_EMU_SIMD(name, Signed, expression)                                                               \
    CML_EMU_INTRINSIC unsigned name##2(unsigned a, unsigned b)                                               \
    {                                                                                                        \
        constexpr int Bits = 16;                                                                             \
        (void)Bits;                                                                                          \
        return cml_emu::each_part<16, Signed>(a, b, [](long long x, long long y) { return expression; });   \
    }                                                                                                        \
    CML_EMU_INTRINSIC unsigned name##4(unsigned a, unsigned b)                                               \
    {                                                                                                        \
        constexpr int Bits = 8;                                                                              \
        (void)Bits;                                                                                          \
        return cml_emu::each_part<8, Signed>(a, b, [](long long x, long long y) { return expression; });    \
    }
#define CML_EMU_SIMD_ONE(name, Signed, expression)                                                           \
    CML_EMU_INTRINSIC unsigned name##2(unsigned a)                                                           \
    {                                                                                                        \
        return cml_emu::each_part<16, Signed>(a, 0u, [](long long x, long long) {                            \
            constexpr int Bits = 16;                                                                         \
            (void)Bits;                                                                                      \
            return expression;                                                                               \
        });                                                                                                  \
    }                                                                                                        \
    CML_EMU_INTRINSIC unsigned name##4(unsigned a)                                                           \
    {                                                                                                        \
        return cml_emu::each_part<8, Signed>(a, 0u, [](long long x, long long) {                             \
            constexpr int Bits = 8;                                                                          \
            (void)Bits;                                                                                      \
            return expression;                                                                               \
        });                                                                                                  \
    }
#define CML_EMU_SIMD_SUM(name, Signed)                                                                       \
    CML_EMU_INTRINSIC unsigned name##2(unsigned a, unsigned b)                                               \
    {                                                                                                        \
        return cml_emu::sum_parts<16, Signed>(a, b, [](long long x, long long y) { return cml_emu::absolute(x - y); }); \
    }                                                                                                        \
    CML_EMU_INTRINSIC unsigned name##4(unsigned a, unsigned b)                                               \
    {                                                                                                        \
        return cml_emu::sum_parts<8, Signed>(a, b, [](long long x, long long y) { return cml_emu::absolute(x - y); }); \
    }

CML_EMU_SIMD_ONE(__vabs, true, cml_emu::absolute(x))
CML_EMU_SIMD_ONE(__vabsss, true, (cml_emu::saturated<Bits, true>(cml_emu::absolute(x))))
CML_EMU_SIMD_ONE(__vneg, true, -x)
CML_EMU_SIMD_ONE(__vnegss, true, (cml_emu::saturated<Bits, true>(-x)))
CML_EMU_SIMD(__vabsdiffs, true, cml_emu::absolute(x - y))
CML_EMU_SIMD(__vabsdiffu, false, cml_emu::absolute(x - y))
CML_EMU_SIMD(__vadd, false, x + y)
CML_EMU_SIMD(__vaddss, true, (cml_emu::saturated<Bits, true>(x + y)))
CML_EMU_SIMD(__vaddus, false, (cml_emu::saturated<Bits, false>(x + y)))
CML_EMU_SIMD(__vsub, false, x - y)
CML_EMU_SIMD(__vsubss, true, (cml_emu::saturated<Bits, true>(x - y)))
CML_EMU_SIMD(__vsubus, false, (cml_emu::saturated<Bits, false>(x - y)))
// Signed: rounded away from zero; unsigned: rounded up; __vhaddu: truncated.
CML_EMU_SIMD(__vavgs, true, (x + y + (x + y >= 0 ? 1 : 0)) >> 1)
CML_EMU_SIMD(__vavgu, false, (x + y + 1) >> 1)
CML_EMU_SIMD(__vhaddu, false, (x + y) >> 1)
CML_EMU_SIMD(__vmaxs, true, cml_emu::larger(x, y))
CML_EMU_SIMD(__vmaxu, false, cml_emu::larger(x, y))
CML_EMU_SIMD(__vmins, true, cml_emu::smaller(x, y))
CML_EMU_SIMD(__vminu, false, cml_emu::smaller(x, y))
// Comparisons: every bit of the part set where it holds (cmp), or the part 1 (set).
CML_EMU_SIMD(__vcmpeq, false, x == y ? -1 : 0)
CML_EMU_SIMD(__vcmpne, false, x != y ? -1 : 0)
CML_EMU_SIMD(__vcmpges, true, x >= y ? -1 : 0)
CML_EMU_SIMD(__vcmpgeu, false, x >= y ? -1 : 0)
CML_EMU_SIMD(__vcmpgts, true, x > y ? -1 : 0)
CML_EMU_SIMD(__vcmpgtu, false, x > y ? -1 : 0)
CML_EMU_SIMD(__vcmples, true, x <= y ? -1 : 0)
CML_EMU_SIMD(__vcmpleu, false, x <= y ? -1 : 0)
CML_EMU_SIMD(__vcmplts, true, x < y ? -1 : 0)
CML_EMU_SIMD(__vcmpltu, false, x < y ? -1 : 0)
CML_EMU_SIMD(__vseteq, false, x == y)
CML_EMU_SIMD(__vsetne, false, x != y)
CML_EMU_SIMD(__vsetges, true, x >= y)
CML_EMU_SIMD(__vsetgeu, false, x >= y)
CML_EMU_SIMD(__vsetgts, true, x > y)
CML_EMU_SIMD(__vsetgtu, false, x > y)
CML_EMU_SIMD(__vsetles, true, x <= y)
CML_EMU_SIMD(__vsetleu, false, x <= y)
CML_EMU_SIMD(__vsetlts, true, x < y)
CML_EMU_SIMD(__vsetltu, false, x < y)
CML_EMU_SIMD_SUM(__vsads, true)
CML_EMU_SIMD_SUM(__vsadu, false)
#undef CML_EMU_SIMD
#undef CML_EMU_SIMD_ONE
#undef CML_EMU_SIMD_SUM

// ---- DPX (sm_90): on one 32-bit value (s32, u32) or on its two half-words (s16x2, u16x2) ----

namespace cml_emu {
// x wrapped around to a number of Bits bits, as the hardware's addition leaves it.
template <int Bits, bool Signed>
CML_EMU_INTRINSIC long long wrapped(long long x)
{
    const long long range = 1ll << Bits;
    x &= range - 1;
    return Signed && x >= range / 2 ? x - range : x;
}
}  // namespace cml_emu

// `expression` of x, y, z, with W(v) for v wrapped to the width of the part; the _relu forms also take the
// maximum with 0.
#define CML_EMU_DPX_ONE(name, Bits, Signed, T, expression)                                                     \
    CML_EMU_INTRINSIC T name(T a, T b, T c)                                                                    \
    {                                                                                                          \
        const auto f = [](long long x, long long y, long long z) {                                             \
            const auto W = [](long long v) { return cml_emu::wrapped<Bits, Signed>(v); };                      \
            (void)W, (void)y, (void)z;                                                                         \
            return (long long)(expression);                                                                    \
        };                                                                                                     \
        if (Bits == 32) return T(f(Signed ? (long long)int(a) : (long long)unsigned(a),                       \
                                    Signed ? (long long)int(b) : (long long)unsigned(b),                       \
                                    Signed ? (long long)int(c) : (long long)unsigned(c)));                     \
        return T(cml_emu::each_part<16, Signed>(unsigned(a), unsigned(b), unsigned(c), f));                   \
    }
#define CML_EMU_DPX(name, expression)                                                                          \
    CML_EMU_DPX_ONE(name##_s32, 32, true, int, expression)                                                     \
    CML_EMU_DPX_ONE(name##_s16x2, 16, true, unsigned, expression)                                              \
    CML_EMU_DPX_ONE(name##_u32, 32, false, unsigned, expression)                                               \
    CML_EMU_DPX_ONE(name##_u16x2, 16, false, unsigned, expression)                                             \
    CML_EMU_DPX_ONE(name##_s32_relu, 32, true, int, cml_emu::larger(expression, 0))                            \
    CML_EMU_DPX_ONE(name##_s16x2_relu, 16, true, unsigned, cml_emu::larger(expression, 0))

CML_EMU_DPX(__vimax3, cml_emu::larger(cml_emu::larger(x, y), z))
CML_EMU_DPX(__vimin3, cml_emu::smaller(cml_emu::smaller(x, y), z))
CML_EMU_DPX(__viaddmax, cml_emu::larger(W(x + y), z))
CML_EMU_DPX(__viaddmin, cml_emu::smaller(W(x + y), z))
#undef CML_EMU_DPX

// Of two values, with ReLU.
CML_EMU_DPX_ONE(cml_emu_vimax_s32_relu, 32, true, int, cml_emu::larger(cml_emu::larger(x, y), 0))
CML_EMU_DPX_ONE(cml_emu_vimin_s32_relu, 32, true, int, cml_emu::larger(cml_emu::smaller(x, y), 0))
CML_EMU_DPX_ONE(cml_emu_vimax_s16x2_relu, 16, true, unsigned, cml_emu::larger(cml_emu::larger(x, y), 0))
CML_EMU_DPX_ONE(cml_emu_vimin_s16x2_relu, 16, true, unsigned, cml_emu::larger(cml_emu::smaller(x, y), 0))
#undef CML_EMU_DPX_ONE
CML_EMU_INTRINSIC int __vimax_s32_relu(int a, int b) { return cml_emu_vimax_s32_relu(a, b, 0); }
CML_EMU_INTRINSIC int __vimin_s32_relu(int a, int b) { return cml_emu_vimin_s32_relu(a, b, 0); }
CML_EMU_INTRINSIC unsigned __vimax_s16x2_relu(unsigned a, unsigned b) { return cml_emu_vimax_s16x2_relu(a, b, 0); }
CML_EMU_INTRINSIC unsigned __vimin_s16x2_relu(unsigned a, unsigned b) { return cml_emu_vimin_s16x2_relu(a, b, 0); }

// The larger (or smaller) of a and b, and whether it was a: a >= b (a <= b for the smaller).
CML_EMU_INTRINSIC int __vibmax_s32(int a, int b, bool* const a_chosen)
{
    *a_chosen = a >= b;
    return a >= b ? a : b;
}
CML_EMU_INTRINSIC int __vibmin_s32(int a, int b, bool* const a_chosen)
{
    *a_chosen = a <= b;
    return a <= b ? a : b;
}
CML_EMU_INTRINSIC unsigned __vibmax_u32(unsigned a, unsigned b, bool* const a_chosen)
{
    *a_chosen = a >= b;
    return a >= b ? a : b;
}
CML_EMU_INTRINSIC unsigned __vibmin_u32(unsigned a, unsigned b, bool* const a_chosen)
{
    *a_chosen = a <= b;
    return a <= b ? a : b;
}
namespace cml_emu {
template <bool Signed, bool Larger>
CML_EMU_INTRINSIC unsigned choose_halves(unsigned a, unsigned b, bool* high_is_a, bool* low_is_a)
{
    unsigned out = 0;
    for (int i = 0; i < 2; ++i) {
        const long long x = part<16, Signed>(a, i), y = part<16, Signed>(b, i);
        const bool is_a = Larger ? x >= y : x <= y;
        *(i ? high_is_a : low_is_a) = is_a;
        out |= (unsigned(is_a ? x : y) & 0xffffu) << (16 * i);
    }
    return out;
}
}  // namespace cml_emu
CML_EMU_INTRINSIC unsigned __vibmax_s16x2(unsigned a, unsigned b, bool* const high, bool* const low)
{
    return cml_emu::choose_halves<true, true>(a, b, high, low);
}
CML_EMU_INTRINSIC unsigned __vibmax_u16x2(unsigned a, unsigned b, bool* const high, bool* const low)
{
    return cml_emu::choose_halves<false, true>(a, b, high, low);
}
CML_EMU_INTRINSIC unsigned __vibmin_s16x2(unsigned a, unsigned b, bool* const high, bool* const low)
{
    return cml_emu::choose_halves<true, false>(a, b, high, low);
}
CML_EMU_INTRINSIC unsigned __vibmin_u16x2(unsigned a, unsigned b, bool* const high, bool* const low)
{
    return cml_emu::choose_halves<false, false>(a, b, high, low);
}
