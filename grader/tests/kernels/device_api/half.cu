// Every function of cuda_fp16.h and cuda_bf16.h that device code may call (common/emu/device_api.txt), for __half
// and for __nv_bfloat16 alike (one list of cases, its names pasted from `half` or `bfloat16`): arithmetic and its
// saturating and fused forms, comparisons (ordered and unordered, of pairs, as masks), conversions to and from
// float, double and integers in every rounding direction, the math functions, shuffles and cached loads.
// Each result is compared with the host's: the float operation rounded once to the type, by the host's own
// conversions. Run on the CPU emulator by grader/tests/emulator/test_emulator_device_api.py; main returns how many checks
// failed.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cmath>
#include <cstdint>

#include "checks.cuh"

namespace {

using u64 = unsigned long long;

constexpr float kA = 1.75f, kB = -2.5f, kC = 0.375f, kBig = 300.5f;

enum Mode { nearest, zero, up, down };

// A float of an exact long double, rounded in a direction (the integers here are exact in long double).
float directed(long double exact, Mode m)
{
    float r = float(exact);
    const long double error = exact - (long double)r;
    if (m == up && error > 0) r = std::nextafter(r, INFINITY);
    if (m == down && error < 0) r = std::nextafter(r, -INFINITY);
    if (m == zero && ((r > 0 && error < 0) || (r < 0 && error > 0))) r = std::nextafter(r, 0.0f);
    return r;
}
template <class I>
I to_integer(float x, Mode m)
{
    const double r = m == zero ? std::trunc(x) : m == up ? std::ceil(x) : m == down ? std::floor(x) : std::nearbyint(x);
    if (std::isnan(x)) return 0;
    if (r <= double(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
    if (r >= double(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
    return I(r);
}
float clamp01(float x) { return x > 0 ? (x < 1 ? x : 1) : 0; }
float relu(float x) { return std::isnan(x) || x > 0 ? x : 0; }

// The cases of type H (half or bfloat16), its pair H2, and T and T2 their types: a device expression and its host
// reference, each a float (values) or an integer (bits, masks, predicates). On the device a, b, c, big and nan are
// T, p and q pairs; on the host the same names are their floats.
#define HALF_CASES(F, I, H, T, T2)                                                                              \
    F(__##H##2float(__hadd(a, b)), R(a + b))                                                                    \
    F(__##H##2float(__hsub(a, c)), R(a - c))                                                                    \
    F(__##H##2float(__hmul(a, b)), R(a * b))                                                                    \
    F(__##H##2float(__hdiv(a, c)), R(a / c))                                                                    \
    F(__##H##2float(__hadd_rn(a, c)), R(a + c))                                                                 \
    F(__##H##2float(__hsub_rn(a, b)), R(a - b))                                                                 \
    F(__##H##2float(__hmul_rn(b, c)), R(b * c))                                                                 \
    F(__##H##2float(__hadd_sat(a, c)), clamp01(R(a + c)))                                                       \
    F(__##H##2float(__hsub_sat(c, b)), clamp01(R(c - b)))                                                       \
    F(__##H##2float(__hmul_sat(c, c)), clamp01(R(c * c)))                                                       \
    F(__##H##2float(__hneg(a)), -a)                                                                             \
    F(__##H##2float(__habs(b)), -b)                                                                             \
    F(__##H##2float(__hfma(a, b, c)), R(a * b + c))                                                             \
    F(__##H##2float(__hfma_sat(c, c, c)), clamp01(R(c * c + c)))                                                \
    F(__##H##2float(__hfma_relu(a, b, c)), relu(R(a * b + c)))                                                  \
    F(__##H##2float(__hmax(a, b)), a)                                                                           \
    F(__##H##2float(__hmin(a, b)), b)                                                                           \
    F(__##H##2float(__hmax(nan, b)), b)                                                                         \
    I(std::isnan(__##H##2float(__hmax_nan(nan, b))), 1)                                                         \
    I(std::isnan(__##H##2float(__hmin_nan(a, nan))), 1)                                                         \
    F(__##H##2float(__hmin(a, nan)), a)                                                                         \
    F(__low2float(__hadd2(p, q)) + 100 * __high2float(__hadd2(p, q)), R(a + c) + 100 * R(b + a))               \
    F(__low2float(__hsub2(p, q)) + 100 * __high2float(__hsub2(p, q)), R(a - c) + 100 * R(b - a))               \
    F(__low2float(__hmul2(p, q)) + 100 * __high2float(__hmul2(p, q)), R(a * c) + 100 * R(b * a))               \
    F(__low2float(__h2div(p, q)) + 100 * __high2float(__h2div(p, q)), R(a / c) + 100 * R(b / a))               \
    F(__low2float(__hadd2_rn(p, q)), R(a + c))                                                                 \
    F(__high2float(__hsub2_rn(p, q)), R(b - a))                                                                \
    F(__low2float(__hmul2_rn(p, q)), R(a * c))                                                                 \
    F(__low2float(__hadd2_sat(p, q)) + 100 * __high2float(__hadd2_sat(p, q)), 1 + 0)                          \
    F(__low2float(__hsub2_sat(q, p)) + 100 * __high2float(__hsub2_sat(q, p)), 0 + 100 * 1)                    \
    F(__low2float(__hmul2_sat(q, q)) + 100 * __high2float(__hmul2_sat(q, q)), R(c * c) + 100 * 1)             \
    F(__low2float(__hneg2(p)) + 100 * __high2float(__habs2(p)), -a + 100 * -b)                                  \
    F(__low2float(__hfma2(p, q, p)) + 100 * __high2float(__hfma2(p, q, p)), R(a * c + a) + 100 * R(b * a + b)) \
    F(__low2float(__hfma2_sat(q, q, q)) + 100 * __high2float(__hfma2_sat(q, q, q)), clamp01(R(c * c + c)) + 100) \
    F(__low2float(__hfma2_relu(p, q, p)) + 100 * __high2float(__hfma2_relu(p, q, p)), R(a * c + a))            \
    F(__low2float(__hmax2(p, q)) + 100 * __high2float(__hmin2(p, q)), a + 100 * b)                             \
    F(__low2float(__hmax2_nan(p, q)) + 100 * __high2float(__hmin2_nan(p, q)), a + 100 * b)                     \
    F(__low2float(__hcmadd(p, q, p)) + 100 * __high2float(__hcmadd(p, q, p)),                                   \
      R(a * c - b * a + a) + 100 * R(a * a + b * c + b))                                                        \
    I(__heq(a, a) + 2 * __hne(a, b) + 4 * __hge(a, b) + 8 * __hgt(b, a) + 16 * __hle(b, b) + 32 * __hlt(b, a),  \
      1 + 2 + 4 + 0 + 16 + 32)                                                                                  \
    I(__hequ(a, nan) + 2 * __hneu(a, nan) + 4 * __hgeu(nan, a) + 8 * __hgtu(b, a) + 16 * __hleu(nan, b) +       \
          32 * __hltu(a, b) + 64 * __heq(a, nan) + 128 * __hne(a, nan),                                         \
      1 + 2 + 4 + 0 + 16 + 0 + 0 + 0)                                                                           \
    I(__hisnan(nan) + 2 * __hisnan(a) + 4 * (__hisinf(inf) != 0) + 8 * (__hisinf(a) != 0), 1 + 4)                \
    F(__low2float(__heq2(p, p)) + 2 * __high2float(__hne2(p, q)) + 4 * __low2float(__hge2(p, q)) +             \
          8 * __high2float(__hgt2(p, q)) + 16 * __low2float(__hle2(p, q)) + 32 * __high2float(__hlt2(p, q)),    \
      1 + 2 + 4 + 0 + 0 + 32)                                                                                   \
    F(__low2float(__hequ2(p, r)) + 2 * __high2float(__hneu2(p, r)) + 4 * __low2float(__hgeu2(p, r)) +          \
          8 * __high2float(__hgtu2(p, r)) + 16 * __low2float(__hleu2(p, r)) + 32 * __high2float(__hltu2(p, r)), \
      1 + 2 + 4 + 8 + 16 + 32)                                                                                  \
    I(__heq2_mask(p, p) ^ __hne2_mask(p, q) ^ __hge2_mask(p, q) ^ __hgt2_mask(p, q) ^ __hle2_mask(p, q) ^      \
          __hlt2_mask(p, q),                                                                                    \
      0xffffffffu ^ 0xffffffffu ^ 0x0000ffffu ^ 0x0000ffffu ^ 0xffff0000u ^ 0xffff0000u)                        \
    I(__hequ2_mask(p, r) ^ __hneu2_mask(p, r) ^ __hgeu2_mask(p, r) ^ __hgtu2_mask(p, r) ^ __hleu2_mask(p, r) ^ \
          __hltu2_mask(p, r),                                                                                   \
      0u)                                                                                                       \
    I(__hbeq2(p, p) + 2 * __hbne2(p, q) + 4 * __hbge2(p, p) + 8 * __hbgt2(p, q) + 16 * __hble2(p, p) +         \
          32 * __hblt2(p, q),                                                                                   \
      1 + 2 + 4 + 0 + 16 + 0)                                                                                   \
    I(__hbequ2(p, r) + 2 * __hbneu2(p, r) + 4 * __hbgeu2(p, r) + 8 * __hbgtu2(p, r) + 16 * __hbleu2(p, r) +   \
          32 * __hbltu2(p, r),                                                                                  \
      1 + 2 + 4 + 8 + 16 + 32)                                                                                  \
    I(u64(__low2float(__hisnan2(r)) == 1) + 2 * u64(__high2float(__hisnan2(r)) == 1), 3)                       \
    F(__##H##2float(__float2##H(1.1f)) + __##H##2float(__double2##H(2.2)), R(1.1f) + R(float(2.2)))             \
    F(__##H##2float(__float2##H##_rn(1.1f)), R(1.1f))                                                           \
    F(__##H##2float(__float2##H##_rz(-1.1f)) + __##H##2float(__float2##H##_ru(1.1f)) +                          \
          __##H##2float(__float2##H##_rd(1.1f)),                                                                \
      Rm(-1.1f, zero) + Rm(1.1f, up) + Rm(1.1f, down))                                                          \
    F(__low2float(__float2##H##2_rn(1.1f)) + __high2float(__floats2##H##2_rn(1.1f, 2.2f)),                     \
      R(1.1f) + R(2.2f))                                                                                        \
    F(__##H##22float2(__float22##H##2_rn(make_float2(a, c))).y, c)                                              \
    F(__low2float(p) + 100 * __high2float(p), a + 100 * b)                                                     \
    F(__##H##2float(__low2##H(p)) + 100 * __##H##2float(__high2##H(p)), a + 100 * b)                           \
    F(__low2float(__low2##H##2(p)) + 100 * __high2float(__high2##H##2(p)), a + 100 * b)                        \
    F(__high2float(__lows2##H##2(p, q)) + 100 * __low2float(__highs2##H##2(p, q)), c + 100 * b)                \
    F(__high2float(__halves2##H##2(a, c)) + 100 * __low2float(__##H##2##H##2(b)), c + 100 * b)                 \
    F(__high2float(make_##H##2(a, b)) + 100 * __low2float(__lowhigh2highlow(p)), b + 100 * b)                  \
    I(__##H##2int_rn(big) + __##H##2int_rz(nb) + __##H##2int_ru(nb) + __##H##2int_rd(big),                     \
      to_integer<int>(big, nearest) + to_integer<int>(nb, zero) + to_integer<int>(nb, up) + to_integer<int>(big, down)) \
    I(u64(__##H##2uint_rn(big)) + __##H##2uint_rz(big) + __##H##2uint_ru(big) + __##H##2uint_rd(nb),            \
      u64(to_integer<unsigned>(big, nearest)) + to_integer<unsigned>(big, zero) + to_integer<unsigned>(big, up) + \
          to_integer<unsigned>(nb, down))                                                                       \
    I(__##H##2ll_rn(big) + __##H##2ll_rz(nb) + __##H##2ll_ru(nb) + __##H##2ll_rd(big),                          \
      to_integer<long long>(big, nearest) + to_integer<long long>(nb, zero) + to_integer<long long>(nb, up) +     \
          to_integer<long long>(big, down))                                                                     \
    I(__##H##2ull_rn(big) + __##H##2ull_rz(big) + __##H##2ull_ru(big) + __##H##2ull_rd(nb),                     \
      to_integer<u64>(big, nearest) + to_integer<u64>(big, zero) + to_integer<u64>(big, up) + to_integer<u64>(nb, down)) \
    I(__##H##2short_rn(big) + __##H##2short_rz(nb) + __##H##2short_ru(nb) + __##H##2short_rd(big),              \
      to_integer<short>(big, nearest) + to_integer<short>(nb, zero) + to_integer<short>(nb, up) +                 \
          to_integer<short>(big, down))                                                                         \
    I(__##H##2ushort_rn(big) + __##H##2ushort_rz(big) + __##H##2ushort_ru(big) + __##H##2ushort_rd(nb),         \
      to_integer<unsigned short>(big, nearest) + to_integer<unsigned short>(big, zero) +                         \
          to_integer<unsigned short>(big, up) + to_integer<unsigned short>(nb, down))                           \
    I(__##H##2char_rz(nb) + 1000 * __##H##2uchar_rz(big), to_integer<signed char>(nb, zero) +                   \
                                                              1000 * to_integer<unsigned char>(big, zero))      \
    F(__##H##2float(__int2##H##_rn(2049)) + __##H##2float(__int2##H##_rz(2049)) +                               \
          __##H##2float(__int2##H##_ru(2049)) + __##H##2float(__int2##H##_rd(-2049)),                           \
      Rm(2049, nearest) + Rm(2049, zero) + Rm(2049, up) + Rm(-2049, down))                                      \
    F(__##H##2float(__uint2##H##_rn(2049u)) + __##H##2float(__uint2##H##_rz(2049u)) +                           \
          __##H##2float(__uint2##H##_ru(2049u)) + __##H##2float(__uint2##H##_rd(2049u)),                        \
      Rm(2049, nearest) + Rm(2049, zero) + Rm(2049, up) + Rm(2049, down))                                       \
    F(__##H##2float(__ll2##H##_rn(2049ll)) + __##H##2float(__ll2##H##_rz(-2049ll)) +                            \
          __##H##2float(__ll2##H##_ru(2049ll)) + __##H##2float(__ll2##H##_rd(2049ll)),                          \
      Rm(2049, nearest) + Rm(-2049, zero) + Rm(2049, up) + Rm(2049, down))                                      \
    F(__##H##2float(__ull2##H##_rn(2049ull)) + __##H##2float(__ull2##H##_rz(2049ull)) +                         \
          __##H##2float(__ull2##H##_ru(2049ull)) + __##H##2float(__ull2##H##_rd(2049ull)),                      \
      Rm(2049, nearest) + Rm(2049, zero) + Rm(2049, up) + Rm(2049, down))                                       \
    F(__##H##2float(__short2##H##_rn(short(2049))) + __##H##2float(__short2##H##_rz(short(2049))) +             \
          __##H##2float(__short2##H##_ru(short(-2049))) + __##H##2float(__short2##H##_rd(short(2049))),         \
      Rm(2049, nearest) + Rm(2049, zero) + Rm(-2049, up) + Rm(2049, down))                                      \
    F(__##H##2float(__ushort2##H##_rn((unsigned short)2049)) + __##H##2float(__ushort2##H##_rz((unsigned short)2049)) + \
          __##H##2float(__ushort2##H##_ru((unsigned short)2049)) + __##H##2float(__ushort2##H##_rd((unsigned short)2049)), \
      Rm(2049, nearest) + Rm(2049, zero) + Rm(2049, up) + Rm(2049, down))                                       \
    F(__##H##2float(__short_as_##H(bits_of(a))) + __##H##2float(__ushort_as_##H((unsigned short)bits_of(c))), a + c) \
    F(__##H##2float(hceil(nb)) + 10 * __##H##2float(hfloor(nb)) + 100 * __##H##2float(hrint(nb)) +               \
          1000 * __##H##2float(htrunc(nb)),                                                                     \
      std::ceil(nb) + 10 * std::floor(nb) + 100 * std::nearbyint(nb) + 1000 * std::trunc(nb))                   \
    F(__##H##2float(hexp(c)), R(std::exp(c)))                                                                   \
    F(__##H##2float(hexp2(c)), R(std::exp2(c)))                                                                 \
    F(__##H##2float(hexp10(c)), R(std::pow(10.0f, c)))                                                          \
    F(__##H##2float(hlog(a)), R(std::log(a)))                                                                   \
    F(__##H##2float(hlog2(a)), R(std::log2(a)))                                                                 \
    F(__##H##2float(hlog10(a)), R(std::log10(a)))                                                               \
    F(__##H##2float(hsin(a)), R(std::sin(a)))                                                                   \
    F(__##H##2float(hcos(a)), R(std::cos(a)))                                                                   \
    F(__##H##2float(hsqrt(a)), R(std::sqrt(a)))                                                                 \
    F(__##H##2float(hrsqrt(a)), R(float(1 / std::sqrt(double(a)))))                                             \
    F(__##H##2float(hrcp(a)), R(1 / a))                                                                         \
    F(__##H##2float(htanh(c)) + __##H##2float(htanh_approx(c)), 2 * R(std::tanh(c)))                            \
    F(__low2float(h2ceil(p)) + 10 * __high2float(h2floor(p)) + 100 * __low2float(h2rint(p)) +                   \
          1000 * __high2float(h2trunc(p)),                                                                      \
      std::ceil(a) + 10 * std::floor(b) + 100 * std::nearbyint(a) + 1000 * std::trunc(b))                       \
    F(__low2float(h2exp(q)) + __high2float(h2exp2(q)) + __low2float(h2exp10(q)),                                \
      R(std::exp(c)) + R(std::exp2(a)) + R(std::pow(10.0f, c)))                                                 \
    F(__low2float(h2log(p)) + __low2float(h2log2(p)) + __low2float(h2log10(p)),                                 \
      R(std::log(a)) + R(std::log2(a)) + R(std::log10(a)))                                                      \
    F(__low2float(h2sin(p)) + __high2float(h2cos(p)) + __low2float(h2sqrt(p)) + __low2float(h2rsqrt(p)) +        \
          __high2float(h2rcp(p)),                                                                               \
      R(std::sin(a)) + R(std::cos(b)) + R(std::sqrt(a)) + R(float(1 / std::sqrt(double(a)))) + R(1 / b))         \
    F(__low2float(h2tanh(q)) + __high2float(h2tanh_approx(q)), R(std::tanh(c)) + R(std::tanh(a)))

#define DEVICE_FLOAT(device, host) floats[nf++] = float(device);
#define DEVICE_INT(device, host) ints[ni++] = (long long)(device);
#define HOST_FLOAT(device, host) want_floats.push_back(float(host));
#define HOST_INT(device, host) want_ints.push_back((long long)(host));
#define NO_CASE(device, host)

__device__ __host__ short bits_of(__half h) { short s; memcpy(&s, &h, 2); return s; }
__device__ __host__ short bits_of(__nv_bfloat16 h) { short s; memcpy(&s, &h, 2); return s; }

#define INPUTS(T, T2, from, pair)                                                                              \
    const T a = from(kA), b = from(kB), c = from(kC), big = from(kBig), nb = from(-kBig), nan = from(NAN);      \
    const T inf = from(INFINITY);                                                                               \
    const T2 p = pair(a, b), q = pair(c, a), r = pair(nan, nan);

__global__ void halves(float* floats, long long* ints)
{
    INPUTS(__half, __half2, __float2half, __halves2half2)
    int nf = 0, ni = 0;
    HALF_CASES(DEVICE_FLOAT, DEVICE_INT, half, __half, __half2)
}

__global__ void bfloat16s(float* floats, long long* ints)
{
    INPUTS(__nv_bfloat16, __nv_bfloat162, __float2bfloat16, __halves2bfloat162)
    int nf = 0, ni = 0;
    HALF_CASES(DEVICE_FLOAT, DEVICE_INT, bfloat16, __nv_bfloat16, __nv_bfloat162)
}

#define COUNT(device, host) +1
constexpr int kFloats = 0 HALF_CASES(COUNT, NO_CASE, half, __half, __half2);
constexpr int kInts = 0 HALF_CASES(NO_CASE, COUNT, half, __half, __half2);

// The host's cases of one type: `round` rounds a float to the type, `round_in` in a direction.
template <class Round, class RoundIn>
void check_cases(const char* type, const std::vector<float>& floats, const std::vector<long long>& ints, Round R,
                 RoundIn Rm)
{
    const float a = R(kA), b = R(kB), c = R(kC), big = R(kBig), nb = R(-kBig);
    std::vector<float> want_floats;
    std::vector<long long> want_ints;
    (void)big, (void)nb;
    HALF_CASES(HOST_FLOAT, HOST_INT, half, __half, __half2)
    for (int i = 0; i < kFloats; ++i) {
        const float got = floats[std::size_t(i)], want = want_floats[std::size_t(i)];
        if (got != want) std::printf("%s: float case %d: got %.9g, want %.9g\n", type, i, double(got), double(want));
        EXPECT(got == want);
    }
    for (int i = 0; i < kInts; ++i) {
        if (ints[std::size_t(i)] != want_ints[std::size_t(i)])
            std::printf("%s: integer case %d: got %lld, want %lld\n", type, i, ints[std::size_t(i)], want_ints[std::size_t(i)]);
        EXPECT(ints[std::size_t(i)] == want_ints[std::size_t(i)]);
    }
}

// Shuffles and cached loads and stores of each type and its pair.
template <class T, class T2>
__global__ void moves(const T* in, const T2* in2, T* out, T2* out2)
{
    const int lane = int(threadIdx.x);
    const T v = in[lane];
    const T2 v2 = in2[lane];
    out[4 * lane + 0] = __shfl_sync(0xffffffffu, v, 31 - lane);
    out[4 * lane + 1] = __shfl_up_sync(0xffffffffu, v, 1);
    out[4 * lane + 2] = __shfl_down_sync(0xffffffffu, v, 1);
    out[4 * lane + 3] = __shfl_xor_sync(0xffffffffu, v, 1);
    out2[4 * lane + 0] = __shfl_sync(0xffffffffu, v2, 31 - lane);
    out2[4 * lane + 1] = __shfl_up_sync(0xffffffffu, v2, 1);
    out2[4 * lane + 2] = __shfl_down_sync(0xffffffffu, v2, 1);
    out2[4 * lane + 3] = __shfl_xor_sync(0xffffffffu, v2, 1);
    if (lane == 0) {
        out[128] = __ldg(in + 1), out[129] = __ldcg(in + 2), out[130] = __ldca(in + 3), out[131] = __ldcs(in + 4);
        out[132] = __ldlu(in + 5), out[133] = __ldcv(in + 6);
        __stwb(out + 134, in[7]);
        __stcg(out + 135, in[8]);
        __stcs(out + 136, in[9]);
        __stwt(out + 137, in[10]);
        out2[128] = __ldg(in2 + 1), out2[129] = __ldcg(in2 + 2), out2[130] = __ldca(in2 + 3), out2[131] = __ldcs(in2 + 4);
        out2[132] = __ldlu(in2 + 5), out2[133] = __ldcv(in2 + 6);
        __stwb(out2 + 134, in2[7]);
        __stcg(out2 + 135, in2[8]);
        __stcs(out2 + 136, in2[9]);
        __stwt(out2 + 137, in2[10]);
    }
}

template <class T, class T2, class From, class ToFloat, class Pair>
void check_moves(From from, ToFloat to_float, Pair pair)
{
    std::vector<T> in;
    std::vector<T2> in2;
    for (int lane = 0; lane < 32; ++lane) in.push_back(from(float(lane))), in2.push_back(pair(from(float(lane)), from(-float(lane))));
    checks::Device<T> din(in), out(138);
    checks::Device<T2> din2(in2), out2(138);
    moves<T, T2><<<1, 32>>>(din.data, din2.data, out.data, out2.data);
    const std::vector<T> got = out.host();
    const std::vector<T2> got2 = out2.host();
    for (int lane = 0; lane < 32; ++lane) {
        const float want[4] = {float(31 - lane), float(lane >= 1 ? lane - 1 : lane), float(lane + 1 < 32 ? lane + 1 : lane),
                               float(lane ^ 1)};
        for (int k = 0; k < 4; ++k) {
            EXPECT(to_float(got[std::size_t(4 * lane + k)]) == want[k]);
            EXPECT(__low2float(got2[std::size_t(4 * lane + k)]) == want[k] && __high2float(got2[std::size_t(4 * lane + k)]) == -want[k]);
        }
    }
    for (int k = 0; k < 10; ++k) {
        EXPECT(to_float(got[std::size_t(128 + k)]) == float(k + 1));
        EXPECT(__low2float(got2[std::size_t(128 + k)]) == float(k + 1));
    }
}

// The host's side of the types' operators, which device code uses as it uses float's.
template <class T>
__global__ void operators(T a, T b, float* out)
{
    T x = a;
    out[0] = float(a + b) + 10 * float(a - b) + 100 * float(a * b);
    out[1] = float(a / b) + float(-a) + float(+a);
    out[2] = float(++x) + float(x++) + float(--x) + float(x--);
    out[3] = float((a == b) + 2 * (a != b) + 4 * (a < b) + 8 * (a <= b) + 16 * (a > b) + 32 * (a >= b));
    out[4] = float(int(a)) + float((long)a) + float((long long)a) + float((short)a) + float((unsigned)a) +
             float((unsigned long)a) + float((unsigned long long)a) + float((unsigned short)a) + float((char)a) +
             float((signed char)a) + float((unsigned char)a) + float(bool(a));
}

}  // namespace

int main()
{
    checks::Device<float> floats(kFloats), floats_b(kFloats);
    checks::Device<long long> ints(kInts), ints_b(kInts);
    halves<<<1, 1>>>(floats.data, ints.data);
    bfloat16s<<<1, 1>>>(floats_b.data, ints_b.data);
    check_cases("__half", floats.host(), ints.host(), [](float x) { return __half2float(__float2half(x)); },
                [](long double x, Mode m) {
                    const float f = directed(x, m);
                    return __half2float(m == zero ? __float2half_rz(f) : m == up ? __float2half_ru(f)
                                        : m == down ? __float2half_rd(f) : __float2half_rn(f));
                });
    check_cases("__nv_bfloat16", floats_b.host(), ints_b.host(), [](float x) { return __bfloat162float(__float2bfloat16(x)); },
                [](long double x, Mode m) {
                    const float f = directed(x, m);
                    return __bfloat162float(m == zero ? __float2bfloat16_rz(f) : m == up ? __float2bfloat16_ru(f)
                                            : m == down ? __float2bfloat16_rd(f) : __float2bfloat16_rn(f));
                });
    check_moves<__half, __half2>([](float x) { return __float2half(x); }, [](__half h) { return __half2float(h); },
                                 [](__half l, __half h) { return __halves2half2(l, h); });
    check_moves<__nv_bfloat16, __nv_bfloat162>([](float x) { return __float2bfloat16(x); },
                                               [](__nv_bfloat16 h) { return __bfloat162float(h); },
                                               [](__nv_bfloat16 l, __nv_bfloat16 h) { return __halves2bfloat162(l, h); });
    checks::Device<float> out(5), out_b(5);
    operators<__half><<<1, 1>>>(__float2half(2.5f), __float2half(-1.25f), out.data);
    operators<__nv_bfloat16><<<1, 1>>>(__float2bfloat16(2.5f), __float2bfloat16(-1.25f), out_b.data);
    for (const auto* o : {&out, &out_b}) {
        const std::vector<float> got = o->host();
        EXPECT(got[0] == 1.25f + 10 * 3.75f + 100 * -3.125f);
        EXPECT(got[1] == -2.0f - 2.5f + 2.5f);
        EXPECT(got[2] == 3.5f + 3.5f + 3.5f + 3.5f);
        EXPECT(got[3] == float(2 + 16 + 32));
        EXPECT(got[4] == float(2 * 11 + 1));  // eleven integer types of 2.5, and bool
    }
    return checks::finish("half.cu");
}
