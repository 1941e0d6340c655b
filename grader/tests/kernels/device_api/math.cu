// Every function of the CUDA Math API that device code gets from nvcc by itself (common/emu/device_api.txt,
// [crt/math_functions.h]), called in a kernel on sample arguments and compared with a reference computed on the
// host in long double: within the error bound CUDA's Math API documents for the function, in units in the last
// place (0 where it documents the result as exact). The CUDA-only functions are checked against a definition
// of their own (erfinv by erf of its result, cyl_bessel_i0 by tabulated values). Run on the CPU emulator by
// grader/tests/emulator/test_emulator_device_api.py; main returns how many checks failed.
#include <cmath>
#include <cstdlib>
#include <functional>

#include "checks.cuh"

namespace {

using real = long double;
constexpr real kPi = 3.141592653589793238462643383279502884L;

// sin(pi x) and cos(pi x), exact where they are 0 or 1 (long double's pi is not pi).
real sin_pi(real x)
{
    const real r = std::fmod(x, 2.0L);
    if (r == std::trunc(r)) return 0;
    if (std::fabs(std::fabs(r) - 0.5L) == 0 || std::fabs(std::fabs(r) - 1.5L) == 0)
        return std::sin(kPi * r) > 0 ? 1 : -1;
    return std::sin(kPi * r);
}
real cos_pi(real x) { return sin_pi(x + 0.5L); }

template <class F, class T>
__global__ void apply(F f, const T* x, const T* y, const T* z, T* out, int n)
{
    const int i = int(threadIdx.x);
    if (i < n) out[i] = f(x[i], y[i], z[i]);
}

// What f gives on the GPU for each sample (x[i], y[i], z[i]), each as long as x.
template <class F, class T>
std::vector<T> on_device(const std::vector<T>& x, std::vector<T> y, std::vector<T> z)
{
    y.resize(x.size(), T(1));
    z.resize(x.size(), T(1));
    checks::Device<T> dx(x), dy(y), dz(z), out(x.size());
    apply<F, T><<<1, unsigned(x.size())>>>(F{}, dx.data, dy.data, dz.data, out.data, int(x.size()));
    return out.host();
}

// A bound of 0 ulps: the result correctly rounded, within half a unit. Otherwise CUDA's bound, and one more
// unit where the C library the emulator calls documents more (glibc's tanh and exp10, 2 ulps of double).
template <class F, class T>
void check(const char* name, const std::vector<T>& x, const std::vector<T>& y, const std::vector<T>& z,
           const std::function<real(real, real, real)>& reference, double cuda_bound)
{
    const double bound = cuda_bound == 0 ? 0.5 : cuda_bound + 1;
    const std::vector<T> got = on_device<F, T>(x, y, z);
    for (std::size_t i = 0; i < x.size(); ++i) {
        const real want = reference(x[i], i < y.size() ? y[i] : T(1), i < z.size() ? z[i] : T(1));
        const double ulps = checks::ulps(got[i], want);
        if (ulps > bound)
            std::printf("%s(%g, %g, %g): got %.17g, want %.17Lg (%.1f ulps)\n", name, double(x[i]),
                        i < y.size() ? double(y[i]) : 1.0, i < z.size() ? double(z[i]) : 1.0, double(got[i]), want,
                        ulps);
        checks::expect(ulps <= bound, __FILE__, __LINE__, name);
    }
}

// A function of the samples, as a kernel calls it.
#define FUNCTION(name, T, expression)                                                                        \
    struct name {                                                                                            \
        __device__ T operator()(T x, T y, T z) const                                                         \
        {                                                                                                    \
            (void)x, (void)y, (void)z;                                                                       \
            return expression;                                                                               \
        }                                                                                                    \
    };
#define CHECK(name, T, xs, ys, zs, reference, bound)                                                         \
    check<name, T>(#name, xs, ys, zs, [&](real x, real y, real z) { (void)x, (void)y, (void)z; return real(reference); }, bound)

const std::vector<float> kAnyF = {-7.25f, -2.5f, -1.0f, -0.3f, 0.0f, 0.125f, 0.7f, 1.0f, 1.5f, 3.75f, 10.5f};
const std::vector<double> kAnyD = {-7.25, -2.5, -1.0, -0.3, 0.0, 0.125, 0.7, 1.0, 1.5, 3.75, 10.5};
const std::vector<float> kPositiveF = {1e-3f, 0.2f, 0.5f, 1.0f, 1.7f, 2.5f, 10.0f, 123.4f};
const std::vector<double> kPositiveD = {1e-3, 0.2, 0.5, 1.0, 1.7, 2.5, 10.0, 123.4};
const std::vector<float> kUnitF = {-0.99f, -0.7f, -0.3f, 0.0f, 0.25f, 0.6f, 0.95f};
const std::vector<double> kUnitD = {-0.99, -0.7, -0.3, 0.0, 0.25, 0.6, 0.95};
const std::vector<float> kSecondF = {2.0f, -3.0f, 0.5f, 1.25f, -0.75f, 4.0f, 1.0f, -2.0f, 3.5f, 0.3f, 7.0f};
const std::vector<double> kSecondD = {2.0, -3.0, 0.5, 1.25, -0.75, 4.0, 1.0, -2.0, 3.5, 0.3, 7.0};
const std::vector<float> kThirdF = {0.5f, 1.0f, -2.0f, 3.0f, 0.25f, -1.5f, 2.0f, 5.0f, -0.5f, 1.5f, -4.0f};
const std::vector<double> kThirdD = {0.5, 1.0, -2.0, 3.0, 0.25, -1.5, 2.0, 5.0, -0.5, 1.5, -4.0};
const std::vector<float> kBesselF = {0.5f, 1.0f, 1.5f, 3.0f, 4.5f, 6.5f};  // away from the functions' zeros
const std::vector<double> kBesselD = {0.5, 1.0, 1.5, 3.0, 4.5, 6.5};
const std::vector<float> kNone;
const std::vector<double> kNoneD;

// ---- float ----
FUNCTION(Acosf, float, acosf(x))
FUNCTION(Acoshf, float, acoshf(x))
FUNCTION(Asinf, float, asinf(x))
FUNCTION(Asinhf, float, asinhf(x))
FUNCTION(Atanf, float, atanf(x))
FUNCTION(Atan2f, float, atan2f(x, y))
FUNCTION(Atanhf, float, atanhf(x))
FUNCTION(Cbrtf, float, cbrtf(x))
FUNCTION(Ceilf, float, ceilf(x))
FUNCTION(Copysignf, float, copysignf(x, y))
FUNCTION(Cosf, float, cosf(x))
FUNCTION(Coshf, float, coshf(x))
FUNCTION(Cospif, float, cospif(x))
FUNCTION(CospiF, float, cospi(x))
FUNCTION(BesselI0f, float, cyl_bessel_i0f(x))
FUNCTION(BesselI0F, float, cyl_bessel_i0(x))
FUNCTION(BesselI1f, float, cyl_bessel_i1f(x))
FUNCTION(BesselI1F, float, cyl_bessel_i1(x))
FUNCTION(Erff, float, erff(x))
FUNCTION(Erfcf, float, erfcf(x))
FUNCTION(ErfOfErfinvf, float, erff(erfinvf(x)))
FUNCTION(ErfOfErfinvF, float, erff(erfinv(x)))
FUNCTION(ErfcOfErfcinvf, float, erfcf(erfcinvf(x)))
FUNCTION(ErfcOfErfcinvF, float, erfcf(erfcinv(x)))
FUNCTION(Erfcxf, float, erfcxf(x))
FUNCTION(ErfcxF, float, erfcx(x))
FUNCTION(Expf, float, expf(x))
FUNCTION(Exp2f, float, exp2f(x))
FUNCTION(Exp10f, float, exp10f(x))
FUNCTION(Exp10F, float, exp10(x))
FUNCTION(Expm1f, float, expm1f(x))
FUNCTION(Fabsf, float, fabsf(x))
FUNCTION(Fdimf, float, fdimf(x, y))
FUNCTION(Floorf, float, floorf(x))
FUNCTION(Fmaf, float, fmaf(x, y, z))
FUNCTION(Fmaxf, float, fmaxf(x, y))
FUNCTION(Fminf, float, fminf(x, y))
FUNCTION(Fmodf, float, fmodf(x, y))
FUNCTION(Hypotf, float, hypotf(x, y))
FUNCTION(Rhypotf, float, rhypotf(x, y))
FUNCTION(J0f, float, j0f(x))
FUNCTION(J0F, float, j0(x))
FUNCTION(J1f, float, j1f(x))
FUNCTION(J1F, float, j1(x))
FUNCTION(Jnf, float, jnf(2, x))
FUNCTION(JnF, float, jn(2, x))
FUNCTION(Y0f, float, y0f(x))
FUNCTION(Y0F, float, y0(x))
FUNCTION(Y1f, float, y1f(x))
FUNCTION(Y1F, float, y1(x))
FUNCTION(Ynf, float, ynf(2, x))
FUNCTION(YnF, float, yn(2, x))
FUNCTION(Ldexpf, float, ldexpf(x, 3))
FUNCTION(Scalbnf, float, scalbnf(x, -2))
FUNCTION(Scalblnf, float, scalblnf(x, 5L))
FUNCTION(Lgammaf, float, lgammaf(x))
FUNCTION(Tgammaf, float, tgammaf(x))
FUNCTION(Logf, float, logf(x))
FUNCTION(Log2f, float, log2f(x))
FUNCTION(Log10f, float, log10f(x))
FUNCTION(Log1pf, float, log1pf(x))
FUNCTION(Logbf, float, logbf(x))
FUNCTION(Nearbyintf, float, nearbyintf(x))
FUNCTION(Nextafterf, float, nextafterf(x, y))
FUNCTION(Norm3df, float, norm3df(x, y, z))
FUNCTION(Rnorm3df, float, rnorm3df(x, y, z))
FUNCTION(Norm4df, float, norm4df(x, y, z, 2.0f))
FUNCTION(Rnorm4df, float, rnorm4df(x, y, z, 2.0f))
FUNCTION(Normcdff, float, normcdff(x))
FUNCTION(NormcdfF, float, normcdf(x))
FUNCTION(Normcdfinvf, float, normcdfinvf(x))
FUNCTION(NormcdfinvF, float, normcdfinv(x))
FUNCTION(Powf, float, powf(x, y))
FUNCTION(Rcbrtf, float, rcbrtf(x))
FUNCTION(RcbrtF, float, rcbrt(x))
FUNCTION(Remainderf, float, remainderf(x, y))
FUNCTION(Rintf, float, rintf(x))
FUNCTION(Roundf, float, roundf(x))
FUNCTION(Rsqrtf, float, rsqrtf(x))
FUNCTION(RsqrtF, float, rsqrt(x))
FUNCTION(Sinf, float, sinf(x))
FUNCTION(Sinhf, float, sinhf(x))
FUNCTION(Sinpif, float, sinpif(x))
FUNCTION(SinpiF, float, sinpi(x))
FUNCTION(Sqrtf, float, sqrtf(x))
FUNCTION(Tanf, float, tanf(x))
FUNCTION(Tanhf, float, tanhf(x))
FUNCTION(Truncf, float, truncf(x))
FUNCTION(MaxF, float, max(x, y))
FUNCTION(MinF, float, min(x, y))
FUNCTION(Frexpf, float, ([&] { int e; const float m = frexpf(x, &e); return m + float(e); }()))
FUNCTION(Modff, float, ([&] { float whole; const float part = modff(x, &whole); return part + 100.0f * whole; }()))
FUNCTION(Remquof, float, ([&] { int q; const float r = remquof(x, y, &q); return r + 100.0f * float(q & 7); }()))
FUNCTION(Sincosf, float, ([&] { float s, c; sincosf(x, &s, &c); return s + 4.0f * c; }()))
FUNCTION(SincosF, float, ([&] { float s, c; sincos(x, &s, &c); return s + 4.0f * c; }()))
FUNCTION(Sincospif, float, ([&] { float s, c; sincospif(x, &s, &c); return s + 4.0f * c; }()))
FUNCTION(SincospiF, float, ([&] { float s, c; sincospi(x, &s, &c); return s + 4.0f * c; }()))
FUNCTION(Normf, float, ([&] { const float v[3] = {x, y, z}; return normf(3, v); }()))
FUNCTION(Rnormf, float, ([&] { const float v[3] = {x, y, z}; return rnormf(3, v); }()))
FUNCTION(Nanf, float, float(isnan(nanf("")) && isnan(nan("")) && __isnanf(nanf("")) && __isnan(nan(""))))

// ---- double ----
FUNCTION(Acos, double, acos(x))
FUNCTION(Acosh, double, acosh(x))
FUNCTION(Asin, double, asin(x))
FUNCTION(Asinh, double, asinh(x))
FUNCTION(Atan, double, atan(x))
FUNCTION(Atan2, double, atan2(x, y))
FUNCTION(Atanh, double, atanh(x))
FUNCTION(Cbrt, double, cbrt(x))
FUNCTION(Ceil, double, ceil(x))
FUNCTION(Copysign, double, copysign(x, y))
FUNCTION(CopysignMixed, double, copysign(x, float(y)) + copysign(float(x), y))
FUNCTION(Cos, double, cos(x))
FUNCTION(Cosh, double, cosh(x))
FUNCTION(Cospi, double, cospi(x))
FUNCTION(BesselI0, double, cyl_bessel_i0(x))
FUNCTION(BesselI1, double, cyl_bessel_i1(x))
FUNCTION(Erf, double, erf(x))
FUNCTION(Erfc, double, erfc(x))
FUNCTION(Erfinv, double, erfinv(x))
FUNCTION(Erfcinv, double, erfcinv(x))
FUNCTION(Erfcx, double, erfcx(x))
FUNCTION(Exp, double, exp(x))
FUNCTION(Exp2, double, exp2(x))
FUNCTION(Exp10, double, exp10(x))
FUNCTION(Expm1, double, expm1(x))
FUNCTION(Fabs, double, fabs(x))
FUNCTION(Fdim, double, fdim(x, y))
FUNCTION(Floor, double, floor(x))
FUNCTION(Fma, double, fma(x, y, z))
FUNCTION(Fmax, double, fmax(x, y))
FUNCTION(Fmin, double, fmin(x, y))
FUNCTION(Fmod, double, fmod(x, y))
FUNCTION(Hypot, double, hypot(x, y))
FUNCTION(Rhypot, double, rhypot(x, y))
FUNCTION(J0, double, j0(x))
FUNCTION(J1, double, j1(x))
FUNCTION(Jn, double, jn(2, x))
FUNCTION(Y0, double, y0(x))
FUNCTION(Y1, double, y1(x))
FUNCTION(Yn, double, yn(2, x))
FUNCTION(Ldexp, double, ldexp(x, 3))
FUNCTION(Scalbn, double, scalbn(x, -2))
FUNCTION(Scalbln, double, scalbln(x, 5L))
FUNCTION(Lgamma, double, lgamma(x))
FUNCTION(Tgamma, double, tgamma(x))
FUNCTION(Log, double, log(x))
FUNCTION(Log2, double, log2(x))
FUNCTION(Log10, double, log10(x))
FUNCTION(Log1p, double, log1p(x))
FUNCTION(Logb, double, logb(x))
FUNCTION(Nearbyint, double, nearbyint(x))
FUNCTION(Nextafter, double, nextafter(x, y))
FUNCTION(Norm3d, double, norm3d(x, y, z))
FUNCTION(Rnorm3d, double, rnorm3d(x, y, z))
FUNCTION(Norm4d, double, norm4d(x, y, z, 2.0))
FUNCTION(Rnorm4d, double, rnorm4d(x, y, z, 2.0))
FUNCTION(Normcdf, double, normcdf(x))
FUNCTION(Normcdfinv, double, normcdfinv(x))
FUNCTION(Pow, double, pow(x, y))
FUNCTION(Rcbrt, double, rcbrt(x))
FUNCTION(Remainder, double, remainder(x, y))
FUNCTION(Rint, double, rint(x))
FUNCTION(Round, double, round(x))
FUNCTION(Rsqrt, double, rsqrt(x))
FUNCTION(Sin, double, sin(x))
FUNCTION(Sinh, double, sinh(x))
FUNCTION(Sinpi, double, sinpi(x))
FUNCTION(Sqrt, double, sqrt(x))
FUNCTION(Tan, double, tan(x))
FUNCTION(Tanh, double, tanh(x))
FUNCTION(Trunc, double, trunc(x))
FUNCTION(MaxD, double, max(x, y) + max(x, float(y)) + max(float(x), y))
FUNCTION(MinD, double, min(x, y) + min(x, float(y)) + min(float(x), y))
FUNCTION(Frexp, double, ([&] { int e; const double m = frexp(x, &e); return m + double(e); }()))
FUNCTION(Modf, double, ([&] { double whole; const double part = modf(x, &whole); return part + 100.0 * whole; }()))
FUNCTION(Remquo, double, ([&] { int q; const double r = remquo(x, y, &q); return r + 100.0 * double(q & 7); }()))
FUNCTION(Sincos, double, ([&] { double s, c; sincos(x, &s, &c); return s + 4.0 * c; }()))
FUNCTION(Sincospi, double, ([&] { double s, c; sincospi(x, &s, &c); return s + 4.0 * c; }()))
FUNCTION(Norm, double, ([&] { const double v[3] = {x, y, z}; return norm(3, v); }()))
FUNCTION(Rnorm, double, ([&] { const double v[3] = {x, y, z}; return rnorm(3, v); }()))

// ---- std:: overloads of float, as <cmath> gives them to device code ----
FUNCTION(StdUnary, float,
         std::abs(x) + float(std::abs(double(x))) + std::acos(x / 11) + std::asin(x / 11) + std::atan(x) + std::cbrt(x) + std::ceil(x) +
             std::cos(x) + std::cosh(x / 4) + std::erf(x) + std::erfc(x) + std::exp(x / 4) + std::exp2(x / 4) +
             std::expm1(x / 4) + std::fabs(x) + std::floor(x) + std::nearbyint(x) + std::rint(x) + std::round(x) +
             std::sin(x) + std::sinh(x / 4) + std::tan(x / 8) + std::tanh(x) + std::trunc(x) + std::asinh(x) +
             std::atanh(x / 11))
FUNCTION(StdPositive, float,
         std::acosh(x + 1) + std::lgamma(x) + std::log(x) + std::log10(x) + std::log1p(x) + std::log2(x) + std::logb(x) +
             std::sqrt(x) + std::tgamma(x / 8 + 1) + float(std::ilogb(x)))
FUNCTION(StdBinary, float,
         std::atan2(x, y) + std::copysign(x, y) + std::fdim(x, y) + std::fmax(x, y) + std::fmin(x, y) +
             std::fmod(x, y) + std::hypot(x, y) + std::nextafter(x, y) + std::pow(std::fabs(x) + 1, y) +
             std::remainder(x, y) + std::fma(x, y, z) + std::ldexp(x, 2) + std::scalbn(x, 1) + std::scalbln(x, 1L))
FUNCTION(StdPointer, float, ([&] {
             int e, q;
             float whole;
             return std::frexp(x, &e) + float(e) + std::modf(x, &whole) + whole + std::remquo(x, y, &q) + float(q & 7);
         }()))
FUNCTION(StdInteger, float,
         float(std::lrint(x) + std::lround(x) + std::llrint(x) + std::llround(x) + std::abs(long(x)) +
               std::abs((long long)x)))
FUNCTION(StdPredicates, float,
         float(std::isfinite(x) + 2 * (std::isinf(x) != 0) + 4 * std::isnan(x) + 8 * std::signbit(x) +
               16 * (std::isfinite(double(x)) + 2 * (std::isinf(double(x)) != 0) + 4 * std::isnan(double(x)) +
                     8 * std::signbit(double(x))) +
               256 * (std::isfinite((long double)x) + 2 * (std::isinf((long double)x) != 0) +
                      4 * std::isnan((long double)x) + 8 * std::signbit((long double)x))))
FUNCTION(Predicates, float,
         float((__finitef(x) != 0) + 2 * (__isinff(x) != 0) + 4 * (__isnanf(x) != 0) + 8 * (__signbitf(x) != 0) +
               16 * ((__finite(double(x)) != 0) + 2 * (__isinf(double(x)) != 0) + 4 * (__isnan(double(x)) != 0) +
                     8 * (__signbit(double(x)) != 0)) +
               256 * ((__finitel((long double)x) != 0) + 2 * (__isinfl((long double)x) != 0) +
                      4 * (__isnanl((long double)x) != 0) + 8 * (__signbitl((long double)x) != 0))))

// ---- integers ----
struct Integers {
    __device__ long long operator()(long long a, long long b) const
    {
        const int i = int(a), j = int(b);
        const unsigned u = unsigned(a), v = unsigned(b);
        const long l = long(a), m = long(b);
        const unsigned long ul = (unsigned long)a, vl = (unsigned long)b;
        const unsigned long long ull = (unsigned long long)a, vll = (unsigned long long)b;
        long long sum = abs(i) + labs(l) + llabs(a) + min(i, j) + max(i, j) + min(l, m) + max(l, m) + min(a, b) +
                        max(a, b) + llmin(a, b) + llmax(a, b);
        sum += (long long)(min(u, v) + max(u, v) + umin(u, v) + umax(u, v) + min(i, v) + max(i, v) + min(u, j) +
                           max(u, j));
        sum += (long long)(min(ul, vl) + max(ul, vl) + min(l, vl) + max(l, vl) + min(ul, m) + max(ul, m));
        sum += (long long)(min(ull, vll) + max(ull, vll) + ullmin(ull, vll) + ullmax(ull, vll) + min(a, vll) +
                           max(a, vll) + min(ull, b) + max(ull, b));
        sum += lrintf(float(a) + 0.5f) + lroundf(float(b) + 0.5f) + llrintf(float(a) - 0.5f) + llroundf(float(b)) +
               lrint(double(a)) + lround(double(b) + 0.5) + llrint(double(a)) + llround(double(b) - 0.5) +
               ilogbf(float(a) + 100) + ilogb(double(b) + 100);
        return sum;
    }
};

__global__ void integers(const long long* a, const long long* b, long long* out, int n)
{
    const int i = int(threadIdx.x);
    if (i < n) out[i] = Integers{}(a[i], b[i]);
}

long long integers_on_host(long long a, long long b)
{
    const int i = int(a), j = int(b);
    const unsigned u = unsigned(a), v = unsigned(b);
    const long l = long(a), m = long(b);
    const unsigned long ul = (unsigned long)a, vl = (unsigned long)b;
    const unsigned long long ull = (unsigned long long)a, vll = (unsigned long long)b;
    const auto lo = [](auto x, auto y) { return x < y ? x : y; };
    const auto hi = [](auto x, auto y) { return x > y ? x : y; };
    long long sum = std::abs(i) + std::abs(l) + std::abs(a) + lo(i, j) + hi(i, j) + lo(l, m) + hi(l, m) + 2 * lo(a, b) +
                    2 * hi(a, b);
    sum += (long long)(2 * lo(u, v) + 2 * hi(u, v) + lo(unsigned(i), v) + hi(unsigned(i), v) + lo(u, unsigned(j)) +
                       hi(u, unsigned(j)));
    sum += (long long)(lo(ul, vl) + hi(ul, vl) + lo((unsigned long)l, vl) + hi((unsigned long)l, vl) +
                       lo(ul, (unsigned long)m) + hi(ul, (unsigned long)m));
    sum += (long long)(2 * lo(ull, vll) + 2 * hi(ull, vll) + lo((unsigned long long)a, vll) +
                       hi((unsigned long long)a, vll) + lo(ull, (unsigned long long)b) + hi(ull, (unsigned long long)b));
    sum += std::lrint(float(a) + 0.5f) + std::lround(float(b) + 0.5f) + std::llrint(float(a) - 0.5f) +
           std::llround(float(b)) + std::lrint(double(a)) + std::lround(double(b) + 0.5) + std::llrint(double(a)) +
           std::llround(double(b) - 0.5) + std::ilogb(float(a) + 100) + std::ilogb(double(b) + 100);
    return sum;
}

// The predicates' bits: finite, infinite, NaN, sign; the same for the float, double and long double forms.
real predicates(real x)
{
    const int bits = std::isfinite(x) + 2 * std::isinf(x) + 4 * std::isnan(x) + 8 * std::signbit(x);
    return bits * real(1 + 16 + 256);
}

void check_floats()
{
    const real sqrt2 = std::sqrt(2.0L);
    CHECK(Acosf, float, kUnitF, kNone, kNone, std::acos(x), 2);
    CHECK(Acoshf, float, kPositiveF, kNone, kNone, x >= 1 ? std::acosh(x) : NAN, 4);
    CHECK(Asinf, float, kUnitF, kNone, kNone, std::asin(x), 2);
    CHECK(Asinhf, float, kAnyF, kNone, kNone, std::asinh(x), 3);
    CHECK(Atanf, float, kAnyF, kNone, kNone, std::atan(x), 2);
    CHECK(Atan2f, float, kAnyF, kSecondF, kNone, std::atan2(x, y), 3);
    CHECK(Atanhf, float, kUnitF, kNone, kNone, std::atanh(x), 3);
    CHECK(Cbrtf, float, kAnyF, kNone, kNone, std::cbrt(x), 1);
    CHECK(Ceilf, float, kAnyF, kNone, kNone, std::ceil(x), 0);
    CHECK(Copysignf, float, kAnyF, kSecondF, kNone, std::copysign(x, y), 0);
    CHECK(Cosf, float, kAnyF, kNone, kNone, std::cos(x), 2);
    CHECK(Coshf, float, kAnyF, kNone, kNone, std::cosh(x), 2);
    CHECK(Cospif, float, kAnyF, kNone, kNone, cos_pi(x), 1);
    CHECK(CospiF, float, kAnyF, kNone, kNone, cos_pi(x), 1);
    CHECK(Erff, float, kAnyF, kNone, kNone, std::erf(x), 2);
    CHECK(Erfcf, float, kAnyF, kNone, kNone, std::erfc(x), 4);
    CHECK(ErfOfErfinvf, float, kUnitF, kNone, kNone, x, 8);  // erf's 2 ulps, and erfinvf's 2 through erf's slope
    CHECK(ErfOfErfinvF, float, kUnitF, kNone, kNone, x, 8);
    const std::vector<float> complements = {0.01f, 0.3f, 0.9f, 1.0f, 1.4f, 1.95f};
    CHECK(ErfcOfErfcinvf, float, complements, kNone, kNone, x, 16);
    CHECK(ErfcOfErfcinvF, float, complements, kNone, kNone, x, 16);
    CHECK(Erfcxf, float, kAnyF, kNone, kNone, std::exp(x * x) * std::erfc(x), 4);
    CHECK(ErfcxF, float, kAnyF, kNone, kNone, std::exp(x * x) * std::erfc(x), 4);
    CHECK(Expf, float, kAnyF, kNone, kNone, std::exp(x), 2);
    CHECK(Exp2f, float, kAnyF, kNone, kNone, std::exp2(x), 2);
    CHECK(Exp10f, float, kAnyF, kNone, kNone, std::pow(10.0L, x), 2);
    CHECK(Exp10F, float, kAnyF, kNone, kNone, std::pow(10.0L, x), 2);
    CHECK(Expm1f, float, kAnyF, kNone, kNone, std::expm1(x), 1);
    CHECK(Fabsf, float, kAnyF, kNone, kNone, std::fabs(x), 0);
    CHECK(Fdimf, float, kAnyF, kSecondF, kNone, std::fdim(x, y), 0);
    CHECK(Floorf, float, kAnyF, kNone, kNone, std::floor(x), 0);
    CHECK(Fmaf, float, kAnyF, kSecondF, kThirdF, x * y + z, 0);
    CHECK(Fmaxf, float, kAnyF, kSecondF, kNone, std::fmax(x, y), 0);
    CHECK(Fminf, float, kAnyF, kSecondF, kNone, std::fmin(x, y), 0);
    CHECK(Fmodf, float, kAnyF, kSecondF, kNone, std::fmod(x, y), 0);
    CHECK(Hypotf, float, kAnyF, kSecondF, kNone, std::hypot(x, y), 3);
    CHECK(Rhypotf, float, kAnyF, kSecondF, kNone, 1 / std::hypot(x, y), 2);
    // Bessel functions: CUDA bounds them by 9 ulps for |x| < 8, away from their zeros, as the samples are.
    CHECK(J0f, float, kBesselF, kNone, kNone, j0l(x), 9);
    CHECK(J0F, float, kBesselF, kNone, kNone, j0l(x), 9);
    CHECK(J1f, float, kBesselF, kNone, kNone, j1l(x), 9);
    CHECK(J1F, float, kBesselF, kNone, kNone, j1l(x), 9);
    CHECK(Y0f, float, kBesselF, kNone, kNone, y0l(x), 9);
    CHECK(Y0F, float, kBesselF, kNone, kNone, y0l(x), 9);
    CHECK(Y1f, float, kBesselF, kNone, kNone, y1l(x), 9);
    CHECK(Y1F, float, kBesselF, kNone, kNone, y1l(x), 9);
    // jn and yn: CUDA bounds their absolute error (2.2e-6 for n = 128): 1e-5 of the function's size here.
    CHECK(Jnf, float, kBesselF, kNone, kNone, jnl(2, x), 300);
    CHECK(JnF, float, kBesselF, kNone, kNone, jnl(2, x), 300);
    CHECK(Ynf, float, kBesselF, kNone, kNone, ynl(2, x), 300);
    CHECK(YnF, float, kBesselF, kNone, kNone, ynl(2, x), 300);
    CHECK(Ldexpf, float, kAnyF, kNone, kNone, std::ldexp(x, 3), 0);
    CHECK(Scalbnf, float, kAnyF, kNone, kNone, std::scalbn(x, -2), 0);
    CHECK(Scalblnf, float, kAnyF, kNone, kNone, std::scalbln(x, 5L), 0);
    CHECK(Lgammaf, float, kPositiveF, kNone, kNone, std::lgamma(x), 6);
    CHECK(Tgammaf, float, kPositiveF, kNone, kNone, x < 30 ? std::tgamma(x) : INFINITY, 5);
    CHECK(Logf, float, kPositiveF, kNone, kNone, std::log(x), 1);
    CHECK(Log2f, float, kPositiveF, kNone, kNone, std::log2(x), 1);
    CHECK(Log10f, float, kPositiveF, kNone, kNone, std::log10(x), 2);
    CHECK(Log1pf, float, kPositiveF, kNone, kNone, std::log1p(x), 1);
    CHECK(Logbf, float, kAnyF, kNone, kNone, std::logb(x), 0);
    CHECK(Nearbyintf, float, kAnyF, kNone, kNone, std::nearbyint(x), 0);
    CHECK(Nextafterf, float, kAnyF, kSecondF, kNone, std::nextafter(float(x), float(y)), 0);
    CHECK(Norm3df, float, kAnyF, kSecondF, kThirdF, std::sqrt(x * x + y * y + z * z), 3);
    CHECK(Rnorm3df, float, kAnyF, kSecondF, kThirdF, 1 / std::sqrt(x * x + y * y + z * z), 2);
    CHECK(Norm4df, float, kAnyF, kSecondF, kThirdF, std::sqrt(x * x + y * y + z * z + 4), 3);
    CHECK(Rnorm4df, float, kAnyF, kSecondF, kThirdF, 1 / std::sqrt(x * x + y * y + z * z + 4), 2);
    CHECK(Normf, float, kAnyF, kSecondF, kThirdF, std::sqrt(x * x + y * y + z * z), 4);
    CHECK(Rnormf, float, kAnyF, kSecondF, kThirdF, 1 / std::sqrt(x * x + y * y + z * z), 3);
    CHECK(Normcdff, float, kAnyF, kNone, kNone, std::erfc(-x / sqrt2) / 2, 5);
    CHECK(NormcdfF, float, kAnyF, kNone, kNone, std::erfc(-x / sqrt2) / 2, 5);
    const std::vector<float> probabilities = {0.025f, 0.1f, 0.5f, 0.8f, 0.975f};
    const auto quantile = [](real p) {  // the tabulated normal quantiles of the probabilities above
        return p < 0.05L ? -1.959963984540054L : p < 0.2L ? -1.281551565544601L : p < 0.6L ? 0.0L
               : p < 0.9L ? 0.841621233572914L : 1.959963984540054L;
    };
    check<Normcdfinvf, float>("normcdfinvf", probabilities, kNone, kNone, [&](real p, real, real) { return quantile(p); }, 5);
    check<NormcdfinvF, float>("normcdfinv", probabilities, kNone, kNone, [&](real p, real, real) { return quantile(p); }, 5);
    CHECK(Powf, float, kPositiveF, kSecondF, kNone, std::pow(x, y), 4);
    CHECK(Rcbrtf, float, kAnyF, kNone, kNone, 1 / std::cbrt(x), 1);
    CHECK(RcbrtF, float, kAnyF, kNone, kNone, 1 / std::cbrt(x), 1);
    CHECK(Remainderf, float, kAnyF, kSecondF, kNone, std::remainder(x, y), 0);
    CHECK(Rintf, float, kAnyF, kNone, kNone, std::rint(x), 0);
    CHECK(Roundf, float, kAnyF, kNone, kNone, std::round(x), 0);
    CHECK(Rsqrtf, float, kPositiveF, kNone, kNone, 1 / std::sqrt(x), 2);
    CHECK(RsqrtF, float, kPositiveF, kNone, kNone, 1 / std::sqrt(x), 2);
    CHECK(Sinf, float, kAnyF, kNone, kNone, std::sin(x), 2);
    CHECK(Sinhf, float, kAnyF, kNone, kNone, std::sinh(x), 3);
    CHECK(Sinpif, float, kAnyF, kNone, kNone, sin_pi(x), 1);
    CHECK(SinpiF, float, kAnyF, kNone, kNone, sin_pi(x), 1);
    CHECK(Sqrtf, float, kPositiveF, kNone, kNone, std::sqrt(x), 0);
    CHECK(Tanf, float, kAnyF, kNone, kNone, std::tan(x), 4);
    CHECK(Tanhf, float, kAnyF, kNone, kNone, std::tanh(x), 2);
    CHECK(Truncf, float, kAnyF, kNone, kNone, std::trunc(x), 0);
    CHECK(MaxF, float, kAnyF, kSecondF, kNone, std::fmax(x, y), 0);
    CHECK(MinF, float, kAnyF, kSecondF, kNone, std::fmin(x, y), 0);
    CHECK(Frexpf, float, kAnyF, kNone, kNone, ([&] { int e; const real m = std::frexp(x, &e); return m + e; }()), 0);
    CHECK(Modff, float, kAnyF, kNone, kNone, ([&] { real w; const real p = std::modf(x, &w); return p + 100 * w; }()), 0);
    CHECK(Remquof, float, kAnyF, kSecondF, kNone, ([&] { int q; const real r = std::remquo(float(x), float(y), &q); return r + 100 * (q & 7); }()), 0);
    CHECK(Sincosf, float, kAnyF, kNone, kNone, float(std::sin(x)) + 4 * float(std::cos(x)), 8);
    CHECK(SincosF, float, kAnyF, kNone, kNone, float(std::sin(x)) + 4 * float(std::cos(x)), 8);
    CHECK(Sincospif, float, kAnyF, kNone, kNone, sin_pi(x) + 4 * cos_pi(x), 8);
    CHECK(SincospiF, float, kAnyF, kNone, kNone, sin_pi(x) + 4 * cos_pi(x), 8);
    CHECK(Nanf, float, kAnyF, kNone, kNone, 1, 0);
    // The modified Bessel functions, at tabulated values.
    const std::vector<float> bessel_points = {0.0f, 1.0f, 2.5f, 10.0f};
    const auto i0 = [](real x, real, real) {
        return x == 0 ? 1.0L : x == 1 ? 1.266065877752008335598L : x == 2.5L ? 3.289839144050122618L : 2815.716628466254L;
    };
    const auto i1 = [](real x, real, real) {
        return x == 0 ? 0.0L : x == 1 ? 0.565159103992485027208L : x == 2.5L ? 2.516716245288698216L : 2670.988303701255L;
    };
    check<BesselI0f, float>("cyl_bessel_i0f", bessel_points, kNone, kNone, i0, 6);
    check<BesselI0F, float>("cyl_bessel_i0", bessel_points, kNone, kNone, i0, 6);
    check<BesselI1f, float>("cyl_bessel_i1f", bessel_points, kNone, kNone, i1, 6);
    check<BesselI1F, float>("cyl_bessel_i1", bessel_points, kNone, kNone, i1, 6);
}

void check_doubles()
{
    const real sqrt2 = std::sqrt(2.0L);
    CHECK(Acos, double, kUnitD, kNoneD, kNoneD, std::acos(x), 2);
    CHECK(Acosh, double, kPositiveD, kNoneD, kNoneD, x >= 1 ? std::acosh(x) : NAN, 3);
    CHECK(Asin, double, kUnitD, kNoneD, kNoneD, std::asin(x), 2);
    CHECK(Asinh, double, kAnyD, kNoneD, kNoneD, std::asinh(x), 3);
    CHECK(Atan, double, kAnyD, kNoneD, kNoneD, std::atan(x), 2);
    CHECK(Atan2, double, kAnyD, kSecondD, kNoneD, std::atan2(x, y), 2);
    CHECK(Atanh, double, kUnitD, kNoneD, kNoneD, std::atanh(x), 2);
    CHECK(Cbrt, double, kAnyD, kNoneD, kNoneD, std::cbrt(x), 1);
    CHECK(Ceil, double, kAnyD, kNoneD, kNoneD, std::ceil(x), 0);
    CHECK(Copysign, double, kAnyD, kSecondD, kNoneD, std::copysign(x, y), 0);
    CHECK(CopysignMixed, double, kAnyD, kSecondD, kNoneD, std::copysign(x, y) + std::copysign(real(float(x)), y), 0);
    CHECK(Cos, double, kAnyD, kNoneD, kNoneD, std::cos(x), 2);
    CHECK(Cosh, double, kAnyD, kNoneD, kNoneD, std::cosh(x), 1);
    CHECK(Cospi, double, kAnyD, kNoneD, kNoneD, cos_pi(x), 2);
    CHECK(Erf, double, kAnyD, kNoneD, kNoneD, std::erf(x), 2);
    CHECK(Erfc, double, kAnyD, kNoneD, kNoneD, std::erfc(x), 5);
    // erfinv and erfcinv, by the function they invert: a small change of the argument moves the result by its
    // slope, so the bound is on the argument that erf(result) gives back, in units of the argument.
    const std::vector<double> got_erfinv = on_device<Erfinv, double>(kUnitD, kNoneD, kNoneD);
    for (std::size_t i = 0; i < kUnitD.size(); ++i) EXPECT_ULPS(double(std::erf((real)got_erfinv[i])), (real)kUnitD[i], 12);
    const std::vector<double> complements = {0.01, 0.3, 0.9, 1.0, 1.4, 1.95};
    const std::vector<double> got_erfcinv = on_device<Erfcinv, double>(complements, kNoneD, kNoneD);
    for (std::size_t i = 0; i < complements.size(); ++i)
        EXPECT_ULPS(double(std::erfc((real)got_erfcinv[i])), (real)complements[i], 24);
    CHECK(Erfcx, double, kAnyD, kNoneD, kNoneD, std::exp(x * x) * std::erfc(x), 4);
    CHECK(Exp, double, kAnyD, kNoneD, kNoneD, std::exp(x), 1);
    CHECK(Exp2, double, kAnyD, kNoneD, kNoneD, std::exp2(x), 1);
    CHECK(Exp10, double, kAnyD, kNoneD, kNoneD, std::pow(10.0L, x), 1);
    CHECK(Expm1, double, kAnyD, kNoneD, kNoneD, std::expm1(x), 1);
    CHECK(Fabs, double, kAnyD, kNoneD, kNoneD, std::fabs(x), 0);
    CHECK(Fdim, double, kAnyD, kSecondD, kNoneD, std::fdim(x, y), 0);
    CHECK(Floor, double, kAnyD, kNoneD, kNoneD, std::floor(x), 0);
    CHECK(Fma, double, kAnyD, kSecondD, kThirdD, x * y + z, 0);
    CHECK(Fmax, double, kAnyD, kSecondD, kNoneD, std::fmax(x, y), 0);
    CHECK(Fmin, double, kAnyD, kSecondD, kNoneD, std::fmin(x, y), 0);
    CHECK(Fmod, double, kAnyD, kSecondD, kNoneD, std::fmod(x, y), 0);
    CHECK(Hypot, double, kAnyD, kSecondD, kNoneD, std::hypot(x, y), 2);
    CHECK(Rhypot, double, kAnyD, kSecondD, kNoneD, 1 / std::hypot(x, y), 1);
    CHECK(J0, double, kBesselD, kNoneD, kNoneD, j0l(x), 7);
    CHECK(J1, double, kBesselD, kNoneD, kNoneD, j1l(x), 7);
    CHECK(Y0, double, kBesselD, kNoneD, kNoneD, y0l(x), 7);
    CHECK(Y1, double, kBesselD, kNoneD, kNoneD, y1l(x), 7);
    CHECK(Jn, double, kBesselD, kNoneD, kNoneD, jnl(2, x), 1000);
    CHECK(Yn, double, kBesselD, kNoneD, kNoneD, ynl(2, x), 1000);
    CHECK(Ldexp, double, kAnyD, kNoneD, kNoneD, std::ldexp(x, 3), 0);
    CHECK(Scalbn, double, kAnyD, kNoneD, kNoneD, std::scalbn(x, -2), 0);
    CHECK(Scalbln, double, kAnyD, kNoneD, kNoneD, std::scalbln(x, 5L), 0);
    CHECK(Lgamma, double, kPositiveD, kNoneD, kNoneD, std::lgamma(x), 4);
    CHECK(Tgamma, double, kPositiveD, kNoneD, kNoneD, std::tgamma(x), 10);
    CHECK(Log, double, kPositiveD, kNoneD, kNoneD, std::log(x), 1);
    CHECK(Log2, double, kPositiveD, kNoneD, kNoneD, std::log2(x), 1);
    CHECK(Log10, double, kPositiveD, kNoneD, kNoneD, std::log10(x), 1);
    CHECK(Log1p, double, kPositiveD, kNoneD, kNoneD, std::log1p(x), 1);
    CHECK(Logb, double, kAnyD, kNoneD, kNoneD, std::logb(x), 0);
    CHECK(Nearbyint, double, kAnyD, kNoneD, kNoneD, std::nearbyint(x), 0);
    CHECK(Nextafter, double, kAnyD, kSecondD, kNoneD, std::nextafter(double(x), double(y)), 0);
    CHECK(Norm3d, double, kAnyD, kSecondD, kThirdD, std::sqrt(x * x + y * y + z * z), 2);
    CHECK(Rnorm3d, double, kAnyD, kSecondD, kThirdD, 1 / std::sqrt(x * x + y * y + z * z), 1);
    CHECK(Norm4d, double, kAnyD, kSecondD, kThirdD, std::sqrt(x * x + y * y + z * z + 4), 2);
    CHECK(Rnorm4d, double, kAnyD, kSecondD, kThirdD, 1 / std::sqrt(x * x + y * y + z * z + 4), 1);
    CHECK(Norm, double, kAnyD, kSecondD, kThirdD, std::sqrt(x * x + y * y + z * z), 2);
    CHECK(Rnorm, double, kAnyD, kSecondD, kThirdD, 1 / std::sqrt(x * x + y * y + z * z), 1);
    CHECK(Normcdf, double, kAnyD, kNoneD, kNoneD, std::erfc(-x / sqrt2) / 2, 5);
    const std::vector<double> probabilities = {0.025, 0.1, 0.5, 0.8, 0.975};
    const std::vector<double> got_quantiles = on_device<Normcdfinv, double>(probabilities, kNoneD, kNoneD);
    for (std::size_t i = 0; i < probabilities.size(); ++i)
        EXPECT_ULPS(double(std::erfc(-(real)got_quantiles[i] / sqrt2) / 2), (real)probabilities[i], 16);
    CHECK(Pow, double, kPositiveD, kSecondD, kNoneD, std::pow(x, y), 2);
    CHECK(Rcbrt, double, kAnyD, kNoneD, kNoneD, 1 / std::cbrt(x), 1);
    CHECK(Remainder, double, kAnyD, kSecondD, kNoneD, std::remainder(x, y), 0);
    CHECK(Rint, double, kAnyD, kNoneD, kNoneD, std::rint(x), 0);
    CHECK(Round, double, kAnyD, kNoneD, kNoneD, std::round(x), 0);
    CHECK(Rsqrt, double, kPositiveD, kNoneD, kNoneD, 1 / std::sqrt(x), 1);
    CHECK(Sin, double, kAnyD, kNoneD, kNoneD, std::sin(x), 2);
    CHECK(Sinh, double, kAnyD, kNoneD, kNoneD, std::sinh(x), 2);
    CHECK(Sinpi, double, kAnyD, kNoneD, kNoneD, sin_pi(x), 2);
    CHECK(Sqrt, double, kPositiveD, kNoneD, kNoneD, std::sqrt(x), 0);
    CHECK(Tan, double, kAnyD, kNoneD, kNoneD, std::tan(x), 2);
    CHECK(Tanh, double, kAnyD, kNoneD, kNoneD, std::tanh(x), 1);
    CHECK(Trunc, double, kAnyD, kNoneD, kNoneD, std::trunc(x), 0);
    CHECK(MaxD, double, kAnyD, kSecondD, kNoneD, std::fmax(x, y) + std::fmax(x, real(float(y))) + std::fmax(real(float(x)), y), 1);  // a sum of three: its roundings
    CHECK(MinD, double, kAnyD, kSecondD, kNoneD, std::fmin(x, y) + std::fmin(x, real(float(y))) + std::fmin(real(float(x)), y), 1);
    CHECK(Frexp, double, kAnyD, kNoneD, kNoneD, ([&] { int e; const real m = std::frexp(x, &e); return m + e; }()), 0);
    CHECK(Modf, double, kAnyD, kNoneD, kNoneD, ([&] { real w; const real p = std::modf(x, &w); return p + 100 * w; }()), 0);
    CHECK(Remquo, double, kAnyD, kSecondD, kNoneD, ([&] { int q; const real r = std::remquo(double(x), double(y), &q); return r + 100 * (q & 7); }()), 0);
    CHECK(Sincos, double, kAnyD, kNoneD, kNoneD, double(std::sin(x)) + 4 * double(std::cos(x)), 8);
    CHECK(Sincospi, double, kAnyD, kNoneD, kNoneD, sin_pi(x) + 4 * cos_pi(x), 8);
    const std::vector<double> bessel_points = {0.0, 1.0, 2.5, 10.0};
    const auto i0 = [](real x, real, real) {
        return x == 0 ? 1.0L : x == 1 ? 1.266065877752008335598L : x == 2.5L ? 3.289839144050122618L : 2815.716628466254L;
    };
    const auto i1 = [](real x, real, real) {
        return x == 0 ? 0.0L : x == 1 ? 0.565159103992485027208L : x == 2.5L ? 2.516716245288698216L : 2670.988303701255L;
    };
    check<BesselI0, double>("cyl_bessel_i0", bessel_points, kNoneD, kNoneD, i0, 6);
    check<BesselI1, double>("cyl_bessel_i1", bessel_points, kNoneD, kNoneD, i1, 6);
}

void check_std_overloads()
{
    // Each std overload of the float functions, summed, against the sum of their references.
    CHECK(StdUnary, float, kUnitF, kNone, kNone,
          2 * std::fabs(float(x)) + float(std::acos(x / 11)) + float(std::asin(x / 11)) + float(std::atan(x)) +
              float(std::cbrt(x)) + std::ceil(x) + float(std::cos(x)) + float(std::cosh(x / 4)) + float(std::erf(x)) +
              float(std::erfc(x)) + float(std::exp(x / 4)) + float(std::exp2(x / 4)) + float(std::expm1(x / 4)) +
              std::fabs(x) + std::floor(x) + std::nearbyint(x) + std::rint(x) + std::round(x) + float(std::sin(x)) +
              float(std::sinh(x / 4)) + float(std::tan(x / 8)) + float(std::tanh(x)) + std::trunc(x) +
              float(std::asinh(x)) + float(std::atanh(x / 11)),
          64);
    CHECK(StdPositive, float, kPositiveF, kNone, kNone,
          float(std::acosh(x + 1)) + float(std::lgamma(x)) + float(std::log(x)) + float(std::log10(x)) +
              float(std::log1p(x)) + float(std::log2(x)) + std::logb(x) + float(std::sqrt(x)) +
              float(std::tgamma(x / 8 + 1)) + std::ilogb(float(x)),
          64);
    CHECK(StdBinary, float, kAnyF, kSecondF, kThirdF,
          float(std::atan2(x, y)) + std::copysign(x, y) + std::fdim(x, y) + std::fmax(x, y) + std::fmin(x, y) +
              std::fmod(x, y) + float(std::hypot(x, y)) + std::nextafter(float(x), float(y)) +
              float(std::pow(std::fabs(x) + 1, y)) + std::remainder(x, y) + float(x * y + z) + x * 4 + x * 2 + x * 2,
          64);
    CHECK(StdPointer, float, kAnyF, kSecondF, kNone, ([&] {
              int e, q;
              real w;
              const real m = std::frexp(x, &e), p = std::modf(x, &w), r = std::remquo(float(x), float(y), &q);
              return m + e + p + w + r + (q & 7);
          }()),
          0);
    CHECK(StdInteger, float, kAnyF, kNone, kNone,
          real(std::lrint(float(x)) + std::lround(float(x)) + std::llrint(float(x)) + std::llround(float(x)) +
               std::abs(long(x)) + std::abs((long long)x)),
          0);
    const std::vector<float> special = {1.5f, -0.0f, INFINITY, -INFINITY, NAN, -2.0f};
    CHECK(StdPredicates, float, special, kNone, kNone, predicates(x), 0);
    CHECK(Predicates, float, special, kNone, kNone, predicates(x), 0);
}

void check_integers()
{
    const std::vector<long long> a = {5, -7, 0, 123456789012LL, -3, 1 << 20, 42};
    const std::vector<long long> b = {-2, 9, 0, -98765LL, -3, 17, 1LL << 40};
    checks::Device<long long> da(a), db(b), out(a.size());
    integers<<<1, unsigned(a.size())>>>(da.data, db.data, out.data, int(a.size()));
    const std::vector<long long> got = out.host();
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT(got[i] == integers_on_host(a[i], b[i]));
}

}  // namespace

int main()
{
    check_floats();
    check_doubles();
    check_std_overloads();
    check_integers();
    return checks::finish("math.cu");
}
