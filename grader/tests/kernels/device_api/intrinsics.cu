// Every intrinsic of device code (common/emu/device_api.txt: crt/device_functions.h, device_double_functions.h,
// sm_20, sm_32 and sm_61 intrinsics, sm_90's clusters and address spaces), called in a kernel and compared, bit
// for bit, with a reference computed on the host another way: the rounded arithmetic by error-free
// transformations (the exact error of a sum or product, whose sign says which way to round), the bit and SIMD
// intrinsics by loops over the bits and parts, the fast approximations against the accurate functions within
// CUDA's bounds. Run on the CPU emulator by grader/tests/emulator/test_emulator_device_api.py; main returns how many
// checks failed.
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdint>

#include "checks.cuh"

namespace {

using u64 = unsigned long long;

template <class T>
__host__ __device__ u64 bits(T value)
{
    u64 out = 0;
    memcpy(&out, &value, sizeof(T) < 8 ? sizeof(T) : 8);
    return out;
}

// ---- host references ----

enum Mode { nearest, zero, up, down };

// `rounded` (the sum, product, ... rounded to nearest) moved one step in the direction `mode` asks, given the sign
// of the exact result minus it.
template <class T>
T directed(T rounded, long double error_sign, Mode mode)
{
    if (error_sign == 0 || mode == nearest) return rounded;
    const bool above = error_sign > 0;  // the exact result lies above `rounded`
    if (mode == up && above) return std::nextafter(rounded, T(INFINITY));
    if (mode == down && !above) return std::nextafter(rounded, T(-INFINITY));
    if (mode == zero && ((rounded > 0 && !above) || (rounded < 0 && above))) return std::nextafter(rounded, T(0));
    return rounded;
}
template <class T>
T add_ref(T a, T b, Mode m)
{
    const T s = a + b, bb = s - a, e = (a - (s - bb)) + (b - bb);  // Knuth's two-sum: s + e is exact
    return directed(s, e, m);
}
template <class T>
T mul_ref(T a, T b, Mode m)
{
    const T p = a * b;
    return directed(p, std::fma(a, b, -p), m);
}
template <class T>
T div_ref(T a, T b, Mode m)
{
    const T q = a / b;
    return directed(q, std::fma(-q, b, a) * (b < 0 ? -1 : 1), m);
}
template <class T>
T sqrt_ref(T a, Mode m)
{
    const T s = std::sqrt(a);
    return directed(s, std::fma(-s, s, a), m);
}
// A float from an exact long double (the integers and float products here are exact in it).
float float_ref(long double exact, Mode m) { return directed(float(exact), exact - (long double)float(exact), m); }
double double_ref(long double exact, Mode m) { return directed(double(exact), exact - (long double)double(exact), m); }

template <class I>
I integer_ref(long double x, Mode m)
{
    if (std::isnan(x)) return 0;
    const long double r = m == zero ? std::trunc(x) : m == up ? std::ceil(x) : m == down ? std::floor(x) : std::nearbyint(x);
    if (r <= (long double)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
    if (r >= (long double)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
    return I(r);
}

unsigned brev_ref(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; ++i)
        if (x & (1u << i)) r |= 1u << (31 - i);
    return r;
}
int clz_ref(u64 x, int width)
{
    int n = 0;
    for (int i = width - 1; i >= 0 && !(x >> i & 1); --i) ++n;
    return n;
}
int ffs_ref(u64 x)
{
    for (int i = 0; i < 64; ++i)
        if (x >> i & 1) return i + 1;
    return 0;
}
unsigned byte_perm_ref(unsigned x, unsigned y, unsigned s)
{
    unsigned char bytes[8];
    for (int i = 0; i < 4; ++i) bytes[i] = (unsigned char)(x >> (8 * i)), bytes[4 + i] = (unsigned char)(y >> (8 * i));
    unsigned r = 0;
    for (int i = 0; i < 4; ++i) r |= unsigned(bytes[(s >> (4 * i)) & 7]) << (8 * i);
    return r;
}

// Each part (a byte or a half-word) of a and b, as numbers, into f; the result's parts packed back.
template <int Bits, bool Signed, class F>
unsigned parts_ref(unsigned a, unsigned b, F f)
{
    unsigned out = 0;
    for (int i = 0; i < 32 / Bits; ++i) {
        const unsigned mask = (1u << Bits) - 1;
        long long x = (a >> (Bits * i)) & mask, y = (b >> (Bits * i)) & mask;
        if (Signed && x >= (1ll << (Bits - 1))) x -= 1ll << Bits;
        if (Signed && y >= (1ll << (Bits - 1))) y -= 1ll << Bits;
        out |= (unsigned(f(x, y)) & mask) << (Bits * i);
    }
    return out;
}
template <int Bits, bool Signed>
long long clamp_ref(long long v)
{
    const long long low = Signed ? -(1ll << (Bits - 1)) : 0, high = Signed ? (1ll << (Bits - 1)) - 1 : (1ll << Bits) - 1;
    return v < low ? low : v > high ? high : v;
}
template <int Bits, bool Signed>
unsigned sad_ref(unsigned a, unsigned b)
{
    unsigned sum = 0;
    parts_ref<Bits, Signed>(a, b, [&](long long x, long long y) { sum += unsigned(x > y ? x - y : y - x); return 0; });
    return sum;
}

// ---- the cases: each an expression on the device and its reference on the host, of the inputs below ----

constexpr float kA = 1.1f, kB = -3.3f, kC = 2.5e-8f;  // kC: below half a unit of 1, for the rounded directions
constexpr double kAd = 1.1, kBd = -3.3, kCd = 2.5e-17;
constexpr unsigned kU = 0x89abcdefu, kV = 0x12f4807fu, kW = 0x7f80ff01u;
constexpr long long kLL = 0x123456789abcdefLL;
constexpr unsigned long long kULL = 0xfedcba9876543211ULL;

#define ROUNDED_FLOAT(X, suffix, mode)                                                                           \
    X(__fadd_##suffix(a, c), add_ref(a, c, mode))                                                               \
    X(__fsub_##suffix(a, c), add_ref(a, -c, mode))                                                              \
    X(__fmul_##suffix(a, b), mul_ref(a, b, mode))                                                               \
    X(__fdiv_##suffix(a, b), div_ref(a, b, mode))                                                               \
    X(__frcp_##suffix(b), div_ref(1.0f, b, mode))                                                               \
    X(__fsqrt_##suffix(a), sqrt_ref(a, mode))                                                                   \
    X(__fmaf_##suffix(a, b, c), float_ref((long double)a * b + c, mode))                                        \
    X(__fmaf_ieee_##suffix(a, b, c), float_ref((long double)a * b + c, mode))                                   \
    X(__dadd_##suffix(ad, cd), add_ref(ad, cd, mode))                                                           \
    X(__dsub_##suffix(ad, cd), add_ref(ad, -cd, mode))                                                          \
    X(__dmul_##suffix(ad, bd), mul_ref(ad, bd, mode))                                                           \
    X(__ddiv_##suffix(ad, bd), div_ref(ad, bd, mode))                                                           \
    X(__drcp_##suffix(bd), div_ref(1.0, bd, mode))                                                              \
    X(__dsqrt_##suffix(ad), sqrt_ref(ad, mode))                                                                 \
    X(__fma_##suffix(1.0, 1.0, cd), double_ref(1.0L + (long double)cd, mode))                                   \
    X(__float2int_##suffix(b), integer_ref<int>(b, mode))                                                       \
    X(__float2uint_##suffix(a * 1e9f), integer_ref<unsigned>(a * 1e9f, mode))                                   \
    X(__float2ll_##suffix(b * 1e12f), integer_ref<long long>(b * 1e12f, mode))                                  \
    X(__float2ull_##suffix(a * 1e15f), integer_ref<unsigned long long>(a * 1e15f, mode))                        \
    X(__double2int_##suffix(bd * 1e9), integer_ref<int>(bd * 1e9, mode))                                        \
    X(__double2uint_##suffix(ad), integer_ref<unsigned>(ad, mode))                                              \
    X(__double2ll_##suffix(bd * 1e12), integer_ref<long long>(bd * 1e12, mode))                                 \
    X(__double2ull_##suffix(ad * 1e15), integer_ref<unsigned long long>(ad * 1e15, mode))                      \
    X(__int2float_##suffix(int(u)), float_ref(int(u), mode))                                                    \
    X(__uint2float_##suffix(u), float_ref(u, mode))                                                             \
    X(__ll2float_##suffix(ll), float_ref(ll, mode))                                                             \
    X(__ull2float_##suffix(ull), float_ref(ull, mode))                                                          \
    X(__double2float_##suffix(ad), float_ref(ad, mode))                                                         \
    X(__ll2double_##suffix(ll * 33 + 1), double_ref(ll * 33 + 1, mode))                                         \
    X(__ull2double_##suffix(ull), double_ref(ull, mode))

// The _rn, _rz, _ru and _rd forms; __float2int and the like have _rz in one header and the rest in another,
// and __fsqrt, __frcp, __ddiv have each of the four.
#define CASES(X)                                                                                                 \
    ROUNDED_FLOAT(X, rn, nearest)                                                                               \
    ROUNDED_FLOAT(X, rz, zero)                                                                                  \
    ROUNDED_FLOAT(X, ru, up)                                                                                    \
    ROUNDED_FLOAT(X, rd, down)                                                                                  \
    X(__frsqrt_rn(a), float(1 / std::sqrt((long double)a)))                                                      \
    X(__int2double_rn(int(u)), double(int(u)))                                                                  \
    X(__uint2double_rn(u), double(u))                                                                           \
    X(dadd(ad, cd, cudaRoundPosInf), add_ref(ad, cd, up))                                                      \
    X(dsub(ad, cd, cudaRoundMinInf), add_ref(ad, -cd, down))                                                   \
    X(dmul(ad, bd, cudaRoundZero), mul_ref(ad, bd, zero))                                                      \
    X(fma(1.0, 1.0, cd, cudaRoundPosInf), double_ref(1.0L + (long double)cd, up))                              \
    X(double2int(bd * 1e9, cudaRoundMinInf), integer_ref<int>(bd * 1e9, down))                                 \
    X(double2uint(ad, cudaRoundPosInf), integer_ref<unsigned>(ad, up))                                         \
    X(double2ll(bd * 1e12, cudaRoundNearest), integer_ref<long long>(bd * 1e12, nearest))                      \
    X(double2ull(ad * 1e15, cudaRoundZero), integer_ref<unsigned long long>(ad * 1e15, zero))                  \
    X(ll2double(ll * 33 + 1, cudaRoundPosInf), double_ref(ll * 33 + 1, up))                                    \
    X(ull2double(ull, cudaRoundMinInf), double_ref(ull, down))                                                 \
    X(int2double(int(u)), double(int(u)))                                                                      \
    X(uint2double(u), double(u))                                                                               \
    X(float2double(a), double(a))                                                                              \
    X(__float_as_int(b), int(bits(b)))                                                                         \
    X(__float_as_uint(b), unsigned(bits(b)))                                                                   \
    X(__int_as_float(int(u)), ([&] { float f; unsigned w = u; memcpy(&f, &w, 4); return f; }()))               \
    X(__uint_as_float(v), ([&] { float f; memcpy(&f, &v, 4); return f; }()))                                   \
    X(__double_as_longlong(bd), (long long)bits(bd))                                                           \
    X(__longlong_as_double(ll), ([&] { double d; memcpy(&d, &ll, 8); return d; }()))                           \
    X(__double2hiint(bd), int(bits(bd) >> 32))                                                                 \
    X(__double2loint(bd), int(unsigned(bits(bd))))                                                             \
    X(__hiloint2double(int(u), int(v)), ([&] { const u64 w = u64(u) << 32 | v; double d; memcpy(&d, &w, 8); return d; }())) \
    X(__popc(u), popcount_ref(u))                                                                    \
    X(__popcll(ull), popcount_ref(ull))                                                              \
    X(__clz(int(v)), clz_ref(v, 32))                                                                           \
    X(__clzll((long long)(ull >> 7)), clz_ref(ull >> 7, 64))                                                   \
    X(__ffs(int(v & ~0xffu)), ffs_ref(v & ~0xffu))                                                             \
    X(__ffsll((long long)(ull & ~0xfffull)), ffs_ref(ull & ~0xfffull))                                         \
    X(__brev(u), brev_ref(u))                                                                                  \
    X(__brevll(ull), u64(brev_ref(unsigned(ull))) << 32 | brev_ref(unsigned(ull >> 32)))                       \
    X(__byte_perm(u, v, 0x5173u), byte_perm_ref(u, v, 0x5173u))                                                \
    X(__funnelshift_l(u, v, 37u), unsigned(((u64(v) << 32 | u) << 5) >> 32))                                   \
    X(__funnelshift_lc(u, v, 37u), u)                                                                          \
    X(__funnelshift_r(u, v, 12u), unsigned((u64(v) << 32 | u) >> 12))                                          \
    X(__funnelshift_rc(u, v, 40u), v)                                                                          \
    X(__mulhi(int(u), int(v)), int(((long long)int(u) * int(v)) >> 32))                                        \
    X(__umulhi(u, v), unsigned((u64(u) * v) >> 32))                                                            \
    X(__mul64hi(ll, -ll), (long long)(((__int128)ll * -ll) >> 64))                                             \
    X(__umul64hi(ull, ull), u64(((unsigned __int128)ull * ull) >> 64))                                         \
    X(__mul24(int(u), int(v)), int(u64(((long long)int(u << 8) >> 8) * ((long long)int(v << 8) >> 8))))        \
    X(__umul24(u, v), (u & 0xffffffu) * (v & 0xffffffu))                                                       \
    X(__sad(int(u), int(v), 7u), unsigned(std::llabs((long long)int(u) - int(v))) + 7u)                        \
    X(__usad(u, v, 7u), (u > v ? u - v : v - u) + 7u)                                                          \
    X(__hadd(int(u), int(v)), int(((long long)int(u) + int(v)) >> 1))                                          \
    X(__rhadd(int(u), int(v)), int(((long long)int(u) + int(v) + 1) >> 1))                                     \
    X(__uhadd(u, w), unsigned((u64(u) + w) >> 1))                                                              \
    X(__urhadd(u, w), unsigned((u64(u) + w + 1) >> 1))                                                         \
    X(__dp4a(int(u), int(v), 5), dp4a_ref(u, v, 5))                                                            \
    X(__dp4a(u, v, 5u), udp4a_ref(u, v, 5u))                                                                   \
    X(__dp4a(char4_of(u), char4_of(v), 5), dp4a_ref(u, v, 5))                                                 \
    X(__dp4a(uchar4_of(u), uchar4_of(v), 5u), udp4a_ref(u, v, 5u))                                            \
    X(__dp2a_lo(int(u), int(v), 3), dp2a_ref(u, v, 3, 0))                                                     \
    X(__dp2a_hi(int(u), int(v), 3), dp2a_ref(u, v, 3, 2))                                                     \
    X(__dp2a_lo(u, v, 3u), udp2a_ref(u, v, 3u, 0))                                                            \
    X(__dp2a_hi(u, v, 3u), udp2a_ref(u, v, 3u, 2))                                                            \
    X(__dp2a_lo(short2_of(u), char4_of(v), 3), dp2a_ref(u, v, 3, 0))                                          \
    X(__dp2a_hi(short2_of(u), char4_of(v), 3), dp2a_ref(u, v, 3, 2))                                          \
    X(__dp2a_lo(ushort2_of(u), uchar4_of(v), 3u), udp2a_ref(u, v, 3u, 0))                                     \
    X(__dp2a_hi(ushort2_of(u), uchar4_of(v), 3u), udp2a_ref(u, v, 3u, 2))                                     \
    X(__saturatef(b), 0.0f)                                                                                    \
    X(__saturatef(a - 0.5f), a - 0.5f)                                                                         \
    X(__saturatef(a + 1.0f), 1.0f)                                                                             \
    X(__fdividef(a, b), a / b)                                                                                 \
    X(__fdividef(a, 0x1.8p126f), 0.0f)                                                                         \
    X(fdividef(a, b), a / b)                                                                                   \
    X(fdivide(ad, bd), ad / bd)                                                                                \
    X(__pm0() + __pm1() + __pm2() + __pm3(), 0u)                                                               \
    SIMD_CASES(X)

unsigned dp4a_ref(unsigned a, unsigned b, int c)
{
    long long sum = c;
    for (int i = 0; i < 4; ++i) sum += (long long)(signed char)(a >> (8 * i)) * (signed char)(b >> (8 * i));
    return unsigned(sum);
}
unsigned udp4a_ref(unsigned a, unsigned b, unsigned c)
{
    u64 sum = c;
    for (int i = 0; i < 4; ++i) sum += u64((unsigned char)(a >> (8 * i))) * (unsigned char)(b >> (8 * i));
    return unsigned(sum);
}
unsigned dp2a_ref(unsigned a, unsigned b, int c, int first_byte)
{
    long long sum = c;
    for (int i = 0; i < 2; ++i) sum += (long long)(short)(a >> (16 * i)) * (signed char)(b >> (8 * (first_byte + i)));
    return unsigned(sum);
}
unsigned udp2a_ref(unsigned a, unsigned b, unsigned c, int first_byte)
{
    u64 sum = c;
    for (int i = 0; i < 2; ++i) sum += u64((unsigned short)(a >> (16 * i))) * (unsigned char)(b >> (8 * (first_byte + i)));
    return unsigned(sum);
}

__host__ __device__ char4 char4_of(unsigned x) { char4 c; memcpy(&c, &x, 4); return c; }
__host__ __device__ uchar4 uchar4_of(unsigned x) { uchar4 c; memcpy(&c, &x, 4); return c; }
__host__ __device__ short2 short2_of(unsigned x) { short2 c; memcpy(&c, &x, 4); return c; }
__host__ __device__ ushort2 ushort2_of(unsigned x) { ushort2 c; memcpy(&c, &x, 4); return c; }

// The bits set in x, counted one by one (the reference of __popc).
int popcount_ref(unsigned long long x)
{
    int n = 0;
    for (; x; x >>= 1) n += int(x & 1);
    return n;
}

#define SIMD(X, name, Signed, expression)                                                                        \
    X(name##2(u, v), (parts_ref<16, Signed>(u, v, [](long long x, long long y) { (void)y; constexpr int Bits = 16; (void)Bits; return expression; }))) \
    X(name##4(u, v), (parts_ref<8, Signed>(u, v, [](long long x, long long y) { (void)y; constexpr int Bits = 8; (void)Bits; return expression; })))
#define SIMD_ONE(X, name, Signed, expression)                                                                    \
    X(name##2(u), (parts_ref<16, Signed>(u, 0u, [](long long x, long long) { constexpr int Bits = 16; (void)Bits; return expression; }))) \
    X(name##4(u), (parts_ref<8, Signed>(u, 0u, [](long long x, long long) { constexpr int Bits = 8; (void)Bits; return expression; })))

#define SIMD_CASES(X)                                                                                            \
    SIMD_ONE(X, __vabs, true, x < 0 ? -x : x)                                                                    \
    SIMD_ONE(X, __vabsss, true, (clamp_ref<Bits, true>(x < 0 ? -x : x)))                                         \
    SIMD_ONE(X, __vneg, true, -x)                                                                                \
    SIMD_ONE(X, __vnegss, true, (clamp_ref<Bits, true>(-x)))                                                     \
    SIMD(X, __vabsdiffs, true, x > y ? x - y : y - x)                                                            \
    SIMD(X, __vabsdiffu, false, x > y ? x - y : y - x)                                                           \
    SIMD(X, __vadd, false, x + y)                                                                                \
    SIMD(X, __vaddss, true, (clamp_ref<Bits, true>(x + y)))                                                      \
    SIMD(X, __vaddus, false, (clamp_ref<Bits, false>(x + y)))                                                    \
    SIMD(X, __vsub, false, x - y)                                                                                \
    SIMD(X, __vsubss, true, (clamp_ref<Bits, true>(x - y)))                                                      \
    SIMD(X, __vsubus, false, (clamp_ref<Bits, false>(x - y)))                                                    \
    SIMD(X, __vavgs, true, (x + y >= 0 ? (x + y + 1) / 2 : -((-(x + y) + 1) / 2)))                              \
    SIMD(X, __vavgu, false, (x + y + 1) / 2)                                                                     \
    SIMD(X, __vhaddu, false, (x + y) / 2)                                                                        \
    SIMD(X, __vmaxs, true, x > y ? x : y)                                                                        \
    SIMD(X, __vmaxu, false, x > y ? x : y)                                                                       \
    SIMD(X, __vmins, true, x < y ? x : y)                                                                        \
    SIMD(X, __vminu, false, x < y ? x : y)                                                                       \
    SIMD(X, __vcmpeq, false, x == y ? -1 : 0)                                                                    \
    SIMD(X, __vcmpne, false, x != y ? -1 : 0)                                                                    \
    SIMD(X, __vcmpges, true, x >= y ? -1 : 0)                                                                    \
    SIMD(X, __vcmpgeu, false, x >= y ? -1 : 0)                                                                   \
    SIMD(X, __vcmpgts, true, x > y ? -1 : 0)                                                                     \
    SIMD(X, __vcmpgtu, false, x > y ? -1 : 0)                                                                    \
    SIMD(X, __vcmples, true, x <= y ? -1 : 0)                                                                    \
    SIMD(X, __vcmpleu, false, x <= y ? -1 : 0)                                                                   \
    SIMD(X, __vcmplts, true, x < y ? -1 : 0)                                                                     \
    SIMD(X, __vcmpltu, false, x < y ? -1 : 0)                                                                    \
    SIMD(X, __vseteq, false, x == y)                                                                             \
    SIMD(X, __vsetne, false, x != y)                                                                             \
    SIMD(X, __vsetges, true, x >= y)                                                                             \
    SIMD(X, __vsetgeu, false, x >= y)                                                                            \
    SIMD(X, __vsetgts, true, x > y)                                                                              \
    SIMD(X, __vsetgtu, false, x > y)                                                                             \
    SIMD(X, __vsetles, true, x <= y)                                                                             \
    SIMD(X, __vsetleu, false, x <= y)                                                                            \
    SIMD(X, __vsetlts, true, x < y)                                                                              \
    SIMD(X, __vsetltu, false, x < y)                                                                             \
    X(__vsads2(u, v), (sad_ref<16, true>(u, v)))                                                                 \
    X(__vsads4(u, v), (sad_ref<8, true>(u, v)))                                                                  \
    X(__vsadu2(u, v), (sad_ref<16, false>(u, v)))                                                                \
    X(__vsadu4(u, v), (sad_ref<8, false>(u, v)))                                                                 \
    DPX_CASES(X)

// sm_90's DPX: max and min of three, of a sum and a value, with ReLU; per 32 bits or per half-word.
long long relu(long long x) { return x > 0 ? x : 0; }
long long max3(long long a, long long b, long long c) { return std::max(a, std::max(b, c)); }
long long min3(long long a, long long b, long long c) { return std::min(a, std::min(b, c)); }
template <bool Signed>
unsigned halves3(unsigned a, unsigned b, unsigned c, long long (*f)(long long, long long, long long), bool add)
{
    unsigned out = 0;
    for (int i = 0; i < 2; ++i) {
        long long x = (a >> (16 * i)) & 0xffff, y = (b >> (16 * i)) & 0xffff, z = (c >> (16 * i)) & 0xffff;
        if (Signed) x = (short)x, y = (short)y, z = (short)z;
        const long long sum = Signed ? (long long)(short)(x + y) : (x + y) & 0xffff;
        out |= (unsigned(add ? f(sum, z, add ? z : 0) : f(x, y, z)) & 0xffff) << (16 * i);
    }
    return out;
}
long long max_of_two(long long a, long long b, long long) { return std::max(a, b); }
long long min_of_two(long long a, long long b, long long) { return std::min(a, b); }
long long relu_max3(long long a, long long b, long long c) { return relu(max3(a, b, c)); }
long long relu_min3(long long a, long long b, long long c) { return relu(min3(a, b, c)); }
long long relu_max2(long long a, long long b, long long) { return relu(std::max(a, b)); }
long long relu_min2(long long a, long long b, long long) { return relu(std::min(a, b)); }

#define DPX_CASES(X)                                                                                             \
    X(__vimax3_s32(int(u), int(v), int(w)), int(max3(int(u), int(v), int(w))))                                  \
    X(__vimin3_s32(int(u), int(v), int(w)), int(min3(int(u), int(v), int(w))))                                  \
    X(__vimax3_u32(u, v, w), unsigned(max3(u, v, w)))                                                            \
    X(__vimin3_u32(u, v, w), unsigned(min3(u, v, w)))                                                            \
    X(__vimax3_s32_relu(int(u), int(v), -5), int(relu(max3(int(u), int(v), -5))))                               \
    X(__vimin3_s32_relu(int(u), int(v), int(w)), int(relu(min3(int(u), int(v), int(w)))))                       \
    X(__vimax3_s16x2(u, v, w), halves3<true>(u, v, w, max3, false))                                              \
    X(__vimin3_s16x2(u, v, w), halves3<true>(u, v, w, min3, false))                                              \
    X(__vimax3_u16x2(u, v, w), halves3<false>(u, v, w, max3, false))                                             \
    X(__vimin3_u16x2(u, v, w), halves3<false>(u, v, w, min3, false))                                             \
    X(__vimax3_s16x2_relu(u, v, w), halves3<true>(u, v, w, relu_max3, false))                                    \
    X(__vimin3_s16x2_relu(u, v, w), halves3<true>(u, v, w, relu_min3, false))                                    \
    X(__vimax_s32_relu(int(u), int(v)), int(relu(std::max(int(u), int(v)))))                                    \
    X(__vimin_s32_relu(int(u), int(w)), int(relu(std::min(int(u), int(w)))))                                    \
    X(__vimax_s16x2_relu(u, v), halves3<true>(u, v, 0, relu_max2, false))                                        \
    X(__vimin_s16x2_relu(u, w), halves3<true>(u, w, 0, relu_min2, false))                                        \
    X(__viaddmax_s32(int(u), int(v), int(w)), std::max(int(u + v), int(w)))                                      \
    X(__viaddmin_s32(int(u), int(v), int(w)), std::min(int(u + v), int(w)))                                      \
    X(__viaddmax_u32(u, v, w), std::max(u + v, w))                                                               \
    X(__viaddmin_u32(u, v, w), std::min(u + v, w))                                                               \
    X(__viaddmax_s32_relu(int(u), int(v), -9), int(relu(std::max(int(u + v), -9))))                             \
    X(__viaddmin_s32_relu(int(u), int(v), int(w)), int(relu(std::min(int(u + v), int(w)))))                     \
    X(__viaddmax_s16x2(u, v, w), halves3<true>(u, v, w, max_of_two, true))                                       \
    X(__viaddmin_s16x2(u, v, w), halves3<true>(u, v, w, min_of_two, true))                                       \
    X(__viaddmax_u16x2(u, v, w), halves3<false>(u, v, w, max_of_two, true))                                      \
    X(__viaddmin_u16x2(u, v, w), halves3<false>(u, v, w, min_of_two, true))                                      \
    X(__viaddmax_s16x2_relu(u, v, w), halves3<true>(u, v, w, relu_max2, true))                                   \
    X(__viaddmin_s16x2_relu(u, v, w), halves3<true>(u, v, w, relu_min2, true))

#define DEVICE_CASE(device, host) out[k++] = bits(device);
#define HOST_CASE(device, host) want.push_back(bits(host));
#define COUNT_CASE(device, host) +1

constexpr int kCases = 0 CASES(COUNT_CASE);

__global__ void intrinsics(u64* out, float a, float b, float c, double ad, double bd, double cd, unsigned u,
                           unsigned v, unsigned w, long long ll, unsigned long long ull)
{
    int k = 0;
    CASES(DEVICE_CASE)
}

// The comparisons, the predicate outputs of __vibmax and __vibmin, the fast approximations (within CUDA's
// bounds of the accurate functions), and what asks the emulator's own state.
__global__ void the_rest(float* fast, unsigned* picked, unsigned* spaces, long long* clock, float* global_value)
{
    __shared__ float shared_value;
    const bool first = threadIdx.x == 0;
    const float x = 0.7f;
    float local_value = x;
    if (first) {
        shared_value = x;
        fast[0] = __expf(x), fast[1] = __exp10f(x), fast[2] = __logf(x), fast[3] = __log2f(x);
        fast[4] = __log10f(x), fast[5] = __sinf(x), fast[6] = __cosf(x), fast[7] = __tanf(x), fast[8] = __tanhf(x);
        fast[9] = __powf(x, 1.5f);
        __sincosf(x, &fast[10], &fast[11]);
        bool high, low, one;
        picked[0] = __vibmax_s16x2(0x7fff8000u, 0x00010001u, &high, &low) ^ (unsigned(high) << 1 | low) << 8;
        picked[1] = __vibmin_s16x2(0x7fff8000u, 0x00010001u, &high, &low) ^ (unsigned(high) << 1 | low) << 8;
        picked[2] = __vibmax_u16x2(0x7fff8000u, 0x00010001u, &high, &low) ^ (unsigned(high) << 1 | low) << 8;
        picked[3] = __vibmin_u16x2(0x7fff8000u, 0x00010001u, &high, &low) ^ (unsigned(high) << 1 | low) << 8;
        picked[4] = unsigned(__vibmax_s32(-4, 3, &one)) ^ unsigned(one) << 31;
        picked[5] = unsigned(__vibmin_s32(-4, 3, &one)) ^ unsigned(one) << 31;
        picked[6] = __vibmax_u32(4u, 3u, &one) ^ unsigned(one) << 31;
        picked[7] = __vibmin_u32(4u, 3u, &one) ^ unsigned(one) << 31;
    }
    __syncthreads();
    if (first) {
        spaces[0] = __isGlobal(global_value) | __isShared(&shared_value) << 1 | __isLocal(&local_value) << 2 |
                    __isShared(global_value) << 3 | __isGlobal(&shared_value) << 4 | __isConstant(global_value) << 5 |
                    __isGridConstant(global_value) << 6 | __isClusterShared(&shared_value) << 7 |
                    __isCtaShared(&shared_value) << 8;
        // Each conversion to a space and back gives the generic address again.
        spaces[1] = (__cvta_shared_to_generic(__cvta_generic_to_shared(&shared_value)) == &shared_value) |
                    (__cvta_global_to_generic(__cvta_generic_to_global(global_value)) == global_value) << 1 |
                    (__cvta_local_to_generic(__cvta_generic_to_local(&local_value)) == &local_value) << 2 |
                    (__cvta_constant_to_generic(__cvta_generic_to_constant(global_value)) == global_value) << 3 |
                    (__cvta_grid_constant_to_generic(__cvta_generic_to_grid_constant(global_value)) == global_value) << 4 |
                    (__cvta_generic_to_shared(&shared_value) < 228u * 1024u) << 5;
        // A launch without __cluster_dims__: clusters of one block, the block itself.
        const dim3 cluster = __clusterDim(), index = __clusterIdx(), grid = __clusterGridDimInClusters();
        const dim3 relative = __clusterRelativeBlockIdx();
        spaces[2] = (cluster.x == 1 && cluster.y == 1 && cluster.z == 1) | (index.x == blockIdx.x) << 1 |
                    (grid.x == gridDim.x) << 2 | (relative.x == 0) << 3 | (__clusterDimIsSpecified() == 0) << 4 |
                    (__clusterRelativeBlockRank() == 0) << 5 | (__clusterSizeInBlocks() == 1) << 6 |
                    (__cluster_map_shared_rank(&shared_value, 0) == &shared_value) << 7 |
                    (__cluster_query_shared_rank(&shared_value) == 0) << 8;
    }
    __cluster_barrier_arrive();
    __cluster_barrier_wait();
    __cluster_barrier_arrive_relaxed();
    __cluster_barrier_wait();
    __threadfence();
    __threadfence_block();
    __threadfence_system();
    __threadfence_cluster();
    __prof_trigger(3);
    __nanosleep(100);
    const unsigned counted = __syncthreads_count(threadIdx.x < 5) | __syncthreads_and(threadIdx.x < 64) << 8 |
                             __syncthreads_or(threadIdx.x == 7) << 9 | syncthreads_count(threadIdx.x < 3) << 10 |
                             syncthreads_and(threadIdx.x < 64) << 18 | syncthreads_or(threadIdx.x > 100) << 19;
    if (first) spaces[3] = counted;
    const long long start = clock64();
    if (first) clock[0] = clock64() - start >= 0;
}

// Cached loads and stores of every kind: plain ones here, and the values through them.
template <class T>
__global__ void cached(const T* in, T* out)
{
    out[0] = __ldg(in), out[1] = __ldcg(in + 1), out[2] = __ldca(in + 2), out[3] = __ldcs(in + 3);
    out[4] = __ldlu(in + 4), out[5] = __ldcv(in + 5);
    __stwb(out + 6, in[6]);
    __stcg(out + 7, in[7]);
    __stcs(out + 8, in[8]);
    __stwt(out + 9, in[9]);
}

template <class T>
void check_cached(T base)
{
    std::vector<T> values(10);
    for (int i = 0; i < 10; ++i) values[std::size_t(i)] = T(base + T(i));
    checks::Device<T> in(values), out(10);
    cached<T><<<1, 1>>>(in.data, out.data);
    const std::vector<T> got = out.host();
    for (int i = 0; i < 10; ++i) EXPECT(got[std::size_t(i)] == values[std::size_t(i)]);
}

// A kernel that traps fails its launch, and every later call, as on a GPU; it runs in a program of its own.
__global__ void traps(int* out)
{
    out[0] = 1;
    if (threadIdx.x == 0) __trap();
    __brkpt();
}

}  // namespace

int main(int argc, char**)
{
    if (argc > 1) {  // run as `intrinsics trap`: the launch that traps, and what the runtime says after it
        checks::Device<int> out(1);
        traps<<<1, 32>>>(out.data);
        return cudaDeviceSynchronize() == cudaErrorLaunchFailure ? 0 : 1;
    }
    const float a = kA, b = kB, c = kC;
    const double ad = kAd, bd = kBd, cd = kCd;
    const unsigned u = kU, v = kV, w = kW;
    const long long ll = kLL;
    const unsigned long long ull = kULL;
    checks::Device<u64> out(kCases);
    intrinsics<<<1, 1>>>(out.data, a, b, c, ad, bd, cd, u, v, w, ll, ull);
    const std::vector<u64> got = out.host();
    std::vector<u64> want;
    CASES(HOST_CASE)
    for (int i = 0; i < kCases; ++i) {
        if (got[std::size_t(i)] != want[std::size_t(i)])
            std::printf("case %d: got %016llx, want %016llx\n", i, got[std::size_t(i)], want[std::size_t(i)]);
        EXPECT(got[std::size_t(i)] == want[std::size_t(i)]);
    }

    checks::Device<float> fast(12), global_value(1);
    checks::Device<unsigned> picked(8), spaces(4);
    checks::Device<long long> clock(1);
    the_rest<<<1, 64>>>(fast.data, picked.data, spaces.data, clock.data, global_value.data);
    const std::vector<float> f = fast.host();
    const long double x = 0.7f;
    const long double want_fast[12] = {std::exp(x), std::pow(10.0L, x), std::log(x), std::log2(x), std::log10(x),
                                       std::sin(x), std::cos(x), std::tan(x), std::tanh(x), std::pow(x, 1.5L),
                                       std::sin(x), std::cos(x)};
    // The fast forms' bounds (CUDA's Math API, "Intrinsic Functions"): 2 + 1.16 * |x| ulps for __expf, 2^-21.41
    // absolute for __sinf and __cosf within [-pi, pi] and more beyond; here the accurate functions stand for them,
    // so a few ulps of the accurate results hold.
    for (int i = 0; i < 12; ++i) EXPECT_ULPS(f[std::size_t(i)], want_fast[i], 4);
    const std::vector<unsigned> p = picked.host();
    EXPECT(p[0] == (0x7fff0001u ^ (2u | 0u) << 8));  // high: a (0x7fff >= 1); low: b (-32768 < 1)
    EXPECT(p[1] == (0x00018000u ^ (0u | 1u) << 8));
    EXPECT(p[2] == (0x7fff8000u ^ (2u | 1u) << 8));  // unsigned: 0x8000 >= 1
    EXPECT(p[3] == (0x00010001u ^ 0u << 8));
    EXPECT(p[4] == (3u ^ 0u << 31));
    EXPECT(p[5] == (unsigned(-4) ^ 1u << 31));
    EXPECT(p[6] == (4u ^ 1u << 31));
    EXPECT(p[7] == (3u ^ 0u << 31));
    const std::vector<unsigned> s = spaces.host();
    EXPECT(s[0] == (1u | 2u | 4u | 128u | 256u));
    EXPECT(s[1] == 0x3fu);
    EXPECT(s[2] == 0x1ffu);
    EXPECT(s[3] == (5u | 1u << 8 | 1u << 9 | 3u << 10 | 1u << 18 | 0u << 19));
    EXPECT(clock.host()[0] == 1);
    check_cached<float>(1.5f);
    check_cached<int>(-7);
    check_cached<double>(2.25);
    return checks::finish("intrinsics.cu");
}
