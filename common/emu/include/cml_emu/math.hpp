// The CUDA Math API on the CPU emulator. nvcc gives device code the C library's math functions by itself
// (<cmath> and <math.h>, the float overloads of std included), and these beside them: the functions that only
// CUDA has, and the C++ overloads of min and max it declares. Those of one number are defined in
// src/math.cpp, under their C names, as the C library would define them; those that write through a pointer
// are here, so that the emulator sees their stores as the kernel's.
#pragma once

#include <math.h>
#include <stdlib.h>

#include <cmath>
#include <cstdlib>

extern "C" {
float rsqrtf(float x) noexcept;
double rsqrt(double x) noexcept;
float rcbrtf(float x) noexcept;
double rcbrt(double x) noexcept;
float sinpif(float x) noexcept;
double sinpi(double x) noexcept;
float cospif(float x) noexcept;
double cospi(double x) noexcept;
float normcdff(float x) noexcept;
double normcdf(double x) noexcept;
float normcdfinvf(float p) noexcept;
double normcdfinv(double p) noexcept;
float erfinvf(float y) noexcept;
double erfinv(double y) noexcept;
float erfcinvf(float y) noexcept;
double erfcinv(double y) noexcept;
float erfcxf(float x) noexcept;
double erfcx(double x) noexcept;
float cyl_bessel_i0f(float x) noexcept;
double cyl_bessel_i0(double x) noexcept;
float cyl_bessel_i1f(float x) noexcept;
double cyl_bessel_i1(double x) noexcept;
float rhypotf(float x, float y) noexcept;
double rhypot(double x, double y) noexcept;
float norm3df(float a, float b, float c) noexcept;
double norm3d(double a, double b, double c) noexcept;
float rnorm3df(float a, float b, float c) noexcept;
double rnorm3d(double a, double b, double c) noexcept;
float norm4df(float a, float b, float c, float d) noexcept;
double norm4d(double a, double b, double c, double d) noexcept;
float rnorm4df(float a, float b, float c, float d) noexcept;
double rnorm4d(double a, double b, double c, double d) noexcept;
}

static inline void sincospif(float x, float* sine, float* cosine)
{
    *sine = sinpif(x);
    *cosine = cospif(x);
}
static inline void sincospi(double x, double* sine, double* cosine)
{
    *sine = sinpi(x);
    *cosine = cospi(x);
}
// The float overloads CUDA declares beside the C functions: a float in, a float out, as on a GPU.
static inline float rsqrt(const float x) { return rsqrtf(x); }
static inline float rcbrt(const float x) { return rcbrtf(x); }
static inline float sinpi(const float x) { return sinpif(x); }
static inline float cospi(const float x) { return cospif(x); }
static inline float normcdf(const float x) { return normcdff(x); }
static inline float normcdfinv(const float x) { return normcdfinvf(x); }
static inline float erfinv(const float x) { return erfinvf(x); }
static inline float erfcinv(const float x) { return erfcinvf(x); }
static inline float erfcx(const float x) { return erfcxf(x); }
static inline float cyl_bessel_i0(const float x) { return cyl_bessel_i0f(x); }
static inline float cyl_bessel_i1(const float x) { return cyl_bessel_i1f(x); }
static inline float exp10(const float x) { return exp10f(x); }
static inline float j0(const float x) { return j0f(x); }
static inline float j1(const float x) { return j1f(x); }
static inline float jn(const int n, const float x) { return jnf(n, x); }
static inline float y0(const float x) { return y0f(x); }
static inline float y1(const float x) { return y1f(x); }
static inline float yn(const int n, const float x) { return ynf(n, x); }
static inline void sincospi(float x, float* sine, float* cosine) { sincospif(x, sine, cosine); }
static inline void sincos(float x, float* sine, float* cosine)
{
    *sine = std::sin(x);
    *cosine = std::cos(x);
}
// The Euclidean length of the `dimensions` values at p, and its reciprocal: in long double, where no float's or
// double's square overflows.
static inline long double cml_emu_norm(int dimensions, const double* p)
{
    long double sum = 0;
    for (int i = 0; i < dimensions; ++i) sum += (long double)p[i] * p[i];
    return std::sqrt(sum);
}
static inline long double cml_emu_norm(int dimensions, const float* p)
{
    long double sum = 0;
    for (int i = 0; i < dimensions; ++i) sum += (long double)p[i] * p[i];
    return std::sqrt(sum);
}
static inline float normf(int dimensions, const float* p) { return float(cml_emu_norm(dimensions, p)); }
static inline double norm(int dimensions, const double* p) { return double(cml_emu_norm(dimensions, p)); }
static inline float rnormf(int dimensions, const float* p) { return float(1.0L / cml_emu_norm(dimensions, p)); }
static inline double rnorm(int dimensions, const double* p) { return double(1.0L / cml_emu_norm(dimensions, p)); }

// min and max as CUDA declares them: of two integers of one type, or of an int and an unsigned (the unsigned
// comparison, as C++ converts them), or of floating point values (fmin and fmax: a NaN loses).
#define CML_EMU_MIN_MAX(R, A, B)                                                                              \
    static inline R min(const A a, const B b) { return static_cast<R>(a) < static_cast<R>(b) ? a : b; }      \
    static inline R max(const A a, const B b) { return static_cast<R>(a) > static_cast<R>(b) ? a : b; }
CML_EMU_MIN_MAX(int, int, int)
CML_EMU_MIN_MAX(unsigned, unsigned, unsigned)
CML_EMU_MIN_MAX(unsigned, int, unsigned)
CML_EMU_MIN_MAX(unsigned, unsigned, int)
CML_EMU_MIN_MAX(long, long, long)
CML_EMU_MIN_MAX(unsigned long, unsigned long, unsigned long)
CML_EMU_MIN_MAX(unsigned long, long, unsigned long)
CML_EMU_MIN_MAX(unsigned long, unsigned long, long)
CML_EMU_MIN_MAX(long long, long long, long long)
CML_EMU_MIN_MAX(unsigned long long, unsigned long long, unsigned long long)
CML_EMU_MIN_MAX(unsigned long long, long long, unsigned long long)
CML_EMU_MIN_MAX(unsigned long long, unsigned long long, long long)
#undef CML_EMU_MIN_MAX
static inline float min(const float a, const float b) { return std::fmin(a, b); }
static inline float max(const float a, const float b) { return std::fmax(a, b); }
static inline double min(const double a, const double b) { return std::fmin(a, b); }
static inline double max(const double a, const double b) { return std::fmax(a, b); }
static inline double min(const float a, const double b) { return std::fmin(double(a), b); }
static inline double max(const float a, const double b) { return std::fmax(double(a), b); }
static inline double min(const double a, const float b) { return std::fmin(a, double(b)); }
static inline double max(const double a, const float b) { return std::fmax(a, double(b)); }
static inline unsigned umin(const unsigned a, const unsigned b) { return a < b ? a : b; }
static inline unsigned umax(const unsigned a, const unsigned b) { return a > b ? a : b; }
static inline long long llmin(const long long a, const long long b) { return a < b ? a : b; }
static inline long long llmax(const long long a, const long long b) { return a > b ? a : b; }
static inline unsigned long long ullmin(const unsigned long long a, const unsigned long long b) { return a < b ? a : b; }
static inline unsigned long long ullmax(const unsigned long long a, const unsigned long long b) { return a > b ? a : b; }
