// The functions of the CUDA Math API that the C library lacks (include/cml_emu/math.hpp), under their C names.
// Each computes in long double (64 bits of significand) and rounds once to the type asked for, well within the
// few units in the last place that CUDA's Math API documents for the same function.
#include <cmath>
#include <limits>

#include "cml_emu/math.hpp"

namespace {

using real = long double;
constexpr real kPi = 3.141592653589793238462643383279502884L;
constexpr real kSqrtPi = 1.772453850905516027298167483341145183L;
constexpr real kSqrt2 = 1.414213562373095048801688724209698079L;

// sin(pi x), with x first reduced to [-1, 1] (exactly), so that pi times it is never large; an integer x
// gives a zero of x's sign.
real sin_pi(real x)
{
    if (std::isinf(x)) return std::numeric_limits<real>::quiet_NaN();
    real r = std::fmod(x, 2.0L);  // exact
    if (r > 1) r -= 2;            // exact (Sterbenz): r in (1, 2)
    if (r < -1) r += 2;
    if (r == 0) return std::copysign(0.0L, x);
    if (r == 1 || r == -1) return std::copysign(0.0L, r);
    if (r == 0.5L || r == -0.5L) return r * 2;
    return std::sin(kPi * r);
}

// cos(pi x) = sin(pi (1/2 - |x| mod 2)), exactly 0 at the odd multiples of 1/2.
real cos_pi(real x)
{
    if (std::isinf(x)) return std::numeric_limits<real>::quiet_NaN();
    real r = std::fmod(std::fabs(x), 2.0L);
    if (r > 1) r = 2 - r;  // cos is even about 1
    const real s = sin_pi(0.5L - r);
    return s == 0 ? 0.0L : s;
}

// The standard normal quantile: Acklam's rational approximation (relative error below 1.2e-9), then Newton's
// steps on the normal distribution function, each of which doubles the correct digits.
real normal_quantile(real p)
{
    if (std::isnan(p) || p < 0 || p > 1) return std::numeric_limits<real>::quiet_NaN();
    if (p == 0) return -std::numeric_limits<real>::infinity();
    if (p == 1) return std::numeric_limits<real>::infinity();
    if (p > 0.5L) return -normal_quantile(1 - p);  // 1 - p exact (Sterbenz)
    static const real a[] = {-3.969683028665376e+01L, 2.209460984245205e+02L, -2.759285104469687e+02L,
                             1.383577518672690e+02L,  -3.066479806614716e+01L, 2.506628277459239e+00L};
    static const real b[] = {-5.447609879822406e+01L, 1.615858368580409e+02L, -1.556989798598866e+02L,
                             6.680131188771972e+01L,  -1.328068155288572e+01L};
    static const real c[] = {-7.784894002430293e-03L, -3.223964580411365e-01L, -2.400758277161838e+00L,
                             -2.549732539343734e+00L, 4.374664141464968e+00L,  2.938163982698783e+00L};
    static const real d[] = {7.784695709041462e-03L, 3.224671290700398e-01L, 2.445134137142996e+00L,
                             3.754408661907416e+00L};
    real y;
    if (p < 0.02425L) {
        const real q = std::sqrt(-2 * std::log(p));
        y = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
            ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
    } else {
        const real q = p - 0.5L, r = q * q;
        y = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
            (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
    }
    for (int step = 0; step < 3; ++step) {
        const real error = 0.5L * std::erfc(-y / kSqrt2) - p;
        y -= error * std::sqrt(2 * kPi) * std::exp(y * y / 2);
    }
    return y;
}

// erfc^-1(q) = -quantile(q / 2) / sqrt(2), with q / 2 exact.
real inverse_erfc(real q)
{
    if (std::isnan(q) || q < 0 || q > 2) return std::numeric_limits<real>::quiet_NaN();
    return -normal_quantile(q / 2) / kSqrt2;
}

// erf^-1(y): near 0 by Newton's steps on erf from its series' first terms (no 1 + y there, which would lose
// the digits of a small y); else from erfc^-1(1 - |y|), 1 - |y| exact.
real inverse_erf(real y)
{
    if (std::isnan(y) || y < -1 || y > 1) return std::numeric_limits<real>::quiet_NaN();
    if (y == 0) return y;
    if (std::fabs(y) > 0.5L) return std::copysign(inverse_erfc(1 - std::fabs(y)), y);
    real x = kSqrtPi / 2 * y * (1 + kPi * y * y / 12);
    for (int step = 0; step < 6; ++step) x -= (std::erf(x) - y) * kSqrtPi / 2 * std::exp(x * x);
    return x;
}

// exp(x^2) erfc(x): directly while erfc(x) stays within long double; beyond, its asymptotic series.
real scaled_erfc(real x)
{
    if (std::isnan(x)) return x;
    if (x < 100) return std::exp(x * x) * std::erfc(x);
    const real s = 1 / (2 * x * x);
    return (1 - s * (1 - 3 * s * (1 - 5 * s * (1 - 7 * s * (1 - 9 * s))))) / (x * kSqrtPi);
}

// The modified Bessel functions of the first kind of order 0 and 1, by their power series, whose terms are all
// positive: no digits cancel, for any x (long double holds I0 and I1 of every double that does not overflow).
real bessel_i(real x, int order)
{
    if (std::isinf(x)) return order == 0 ? std::fabs(x) : x;
    if (std::isnan(x)) return x;
    const real quarter_square = x * x / 4;
    real term = order == 0 ? 1 : x / 2, sum = term;
    for (int k = 1; k < 100000 && term > sum * 1e-22L; ++k) {
        term *= quarter_square / (real(k) * real(k + order));
        sum += term;
    }
    return sum;
}

// The Euclidean length of (a, b, c, d); infinite when any is, NaN or not (as hypot is).
real length(real a, real b, real c, real d)
{
    if (std::isinf(a) || std::isinf(b) || std::isinf(c) || std::isinf(d)) return std::numeric_limits<real>::infinity();
    return std::sqrt(a * a + b * b + c * c + d * d);
}

}  // namespace

extern "C" {

float rsqrtf(float x) noexcept { return float(1 / std::sqrt(real(x))); }
double rsqrt(double x) noexcept { return double(1 / std::sqrt(real(x))); }
float rcbrtf(float x) noexcept { return float(1 / std::cbrt(real(x))); }
double rcbrt(double x) noexcept { return double(1 / std::cbrt(real(x))); }
float sinpif(float x) noexcept { return float(sin_pi(x)); }
double sinpi(double x) noexcept { return double(sin_pi(x)); }
float cospif(float x) noexcept { return float(cos_pi(x)); }
double cospi(double x) noexcept { return double(cos_pi(x)); }
float normcdff(float x) noexcept { return float(0.5L * std::erfc(-real(x) / kSqrt2)); }
double normcdf(double x) noexcept { return double(0.5L * std::erfc(-real(x) / kSqrt2)); }
float normcdfinvf(float p) noexcept { return float(normal_quantile(p)); }
double normcdfinv(double p) noexcept { return double(normal_quantile(p)); }
float erfinvf(float y) noexcept { return float(inverse_erf(y)); }
double erfinv(double y) noexcept { return double(inverse_erf(y)); }
float erfcinvf(float y) noexcept { return float(inverse_erfc(y)); }
double erfcinv(double y) noexcept { return double(inverse_erfc(y)); }
float erfcxf(float x) noexcept { return float(scaled_erfc(x)); }
double erfcx(double x) noexcept { return double(scaled_erfc(x)); }
float cyl_bessel_i0f(float x) noexcept { return float(bessel_i(x, 0)); }
double cyl_bessel_i0(double x) noexcept { return double(bessel_i(x, 0)); }
float cyl_bessel_i1f(float x) noexcept { return float(bessel_i(x, 1)); }
double cyl_bessel_i1(double x) noexcept { return double(bessel_i(x, 1)); }
float rhypotf(float x, float y) noexcept { return float(1 / length(x, y, 0, 0)); }
double rhypot(double x, double y) noexcept { return double(1 / length(x, y, 0, 0)); }
float norm3df(float a, float b, float c) noexcept { return float(length(a, b, c, 0)); }
double norm3d(double a, double b, double c) noexcept { return double(length(a, b, c, 0)); }
float rnorm3df(float a, float b, float c) noexcept { return float(1 / length(a, b, c, 0)); }
double rnorm3d(double a, double b, double c) noexcept { return double(1 / length(a, b, c, 0)); }
float norm4df(float a, float b, float c, float d) noexcept { return float(length(a, b, c, d)); }
double norm4d(double a, double b, double c, double d) noexcept { return double(length(a, b, c, d)); }
float rnorm4df(float a, float b, float c, float d) noexcept { return float(1 / length(a, b, c, d)); }
double rnorm4d(double a, double b, double c, double d) noexcept { return double(1 / length(a, b, c, d)); }

}  // extern "C"
