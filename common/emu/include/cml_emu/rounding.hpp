// Arithmetic rounded in a chosen direction, as the intrinsics' suffixes ask: _rn to nearest even, _rz toward
// zero, _ru up, _rd down (src/rounding.cpp).
#pragma once

namespace cml_emu {

enum class Rounding { nearest, zero, up, down };

float add(float a, float b, Rounding r);
double add(double a, double b, Rounding r);
float subtract(float a, float b, Rounding r);
double subtract(double a, double b, Rounding r);
float multiply(float a, float b, Rounding r);
double multiply(double a, double b, Rounding r);
float divide(float a, float b, Rounding r);
double divide(double a, double b, Rounding r);
float square_root(float a, Rounding r);
double square_root(double a, Rounding r);
float fused_multiply_add(float a, float b, float c, Rounding r);
double fused_multiply_add(double a, double b, double c, Rounding r);
float to_float(double a, Rounding r);
float to_float(long long a, Rounding r);
float to_float(unsigned long long a, Rounding r);
double to_double(long long a, Rounding r);
double to_double(unsigned long long a, Rounding r);

}  // namespace cml_emu
