// The arithmetic of the intrinsics that round in a chosen direction (__fadd_ru, __dmul_rz, __int2float_rd, ...),
// made by the CPU's own floating point unit in that rounding mode. Each operation runs between two changes of
// the mode, its operands read and its result written through volatile variables, so that no compiler moves
// or folds it out from between them.
#include <cfenv>

#include "cml_emu/rounding.hpp"

namespace cml_emu {
namespace {

int mode_of(Rounding rounding)
{
    switch (rounding) {
    case Rounding::zero: return FE_TOWARDZERO;
    case Rounding::up: return FE_UPWARD;
    case Rounding::down: return FE_DOWNWARD;
    default: return FE_TONEAREST;
    }
}

class InMode {
public:
    explicit InMode(Rounding rounding) : saved_(std::fegetround()) { std::fesetround(mode_of(rounding)); }
    ~InMode() { std::fesetround(saved_); }
    InMode(const InMode&) = delete;
    InMode& operator=(const InMode&) = delete;

private:
    int saved_;
};

template <class R, class A, class Op>
R rounded(Rounding rounding, A a, A b, A c, Op op)
{
    volatile A x = a, y = b, z = c;
    volatile R result;
    {
        InMode mode(rounding);
        result = op(x, y, z);
    }
    return result;
}

}  // namespace

#define CML_EMU_ROUNDED(name, T, expression)                                                                   \
    T name(T a, T b, Rounding r) { return rounded<T>(r, a, b, T(0), [](T x, T y, T) { return T(expression); }); }

CML_EMU_ROUNDED(add, float, x + y)
CML_EMU_ROUNDED(add, double, x + y)
CML_EMU_ROUNDED(subtract, float, x - y)
CML_EMU_ROUNDED(subtract, double, x - y)
CML_EMU_ROUNDED(multiply, float, x* y)
CML_EMU_ROUNDED(multiply, double, x* y)
CML_EMU_ROUNDED(divide, float, x / y)
CML_EMU_ROUNDED(divide, double, x / y)
#undef CML_EMU_ROUNDED

float square_root(float a, Rounding r)
{
    return rounded<float>(r, a, 0.0f, 0.0f, [](float x, float, float) { return __builtin_sqrtf(x); });
}
double square_root(double a, Rounding r)
{
    return rounded<double>(r, a, 0.0, 0.0, [](double x, double, double) { return __builtin_sqrt(x); });
}
float fused_multiply_add(float a, float b, float c, Rounding r)
{
    return rounded<float>(r, a, b, c, [](float x, float y, float z) { return __builtin_fmaf(x, y, z); });
}
double fused_multiply_add(double a, double b, double c, Rounding r)
{
    return rounded<double>(r, a, b, c, [](double x, double y, double z) { return __builtin_fma(x, y, z); });
}
float to_float(double a, Rounding r)
{
    return rounded<float>(r, a, 0.0, 0.0, [](double x, double, double) { return float(x); });
}
float to_float(long long a, Rounding r)
{
    return rounded<float>(r, a, 0LL, 0LL, [](long long x, long long, long long) { return float(x); });
}
float to_float(unsigned long long a, Rounding r)
{
    using ull = unsigned long long;
    return rounded<float>(r, a, ull(0), ull(0), [](ull x, ull, ull) { return float(x); });
}
double to_double(long long a, Rounding r)
{
    return rounded<double>(r, a, 0LL, 0LL, [](long long x, long long, long long) { return double(x); });
}
double to_double(unsigned long long a, Rounding r)
{
    using ull = unsigned long long;
    return rounded<double>(r, a, ull(0), ull(0), [](ull x, ull, ull) { return double(x); });
}

}  // namespace cml_emu
