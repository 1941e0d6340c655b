#include "cml/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "cml/device_buffer.hpp"

namespace cml {

bool is_poison(float value)
{
    unsigned char bytes[sizeof value];
    std::memcpy(bytes, &value, sizeof value);
    return std::all_of(std::begin(bytes), std::end(bytes), [](unsigned char b) { return b == kPoisonByte; });
}

Comparison compare(const std::vector<float>& got, const std::vector<double>& want, Tolerance tolerance)
{
    if (got.size() != want.size()) throw std::invalid_argument("compare: got and want differ in length");
    Comparison result;
    result.count = got.size();
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double error = std::fabs(double(got[i]) - want[i]);
        const double scale = std::max(std::fabs(want[i]), std::numeric_limits<double>::min());
        // NaN compares false everywhere, so a NaN output is always counted as bad.
        const bool good = error <= tolerance.abs_tol + tolerance.rel_tol * std::fabs(want[i]);
        result.max_rel_error = std::isnan(error) ? error : std::max(result.max_rel_error, error / scale);
        if (good) continue;
        if (result.ok) {
            result.ok = false;
            result.first_bad = i;
            result.first_bad_got = got[i];
            result.first_bad_want = want[i];
            result.first_bad_unwritten = is_poison(got[i]);
        }
        ++result.bad_count;
    }
    return result;
}

std::string Comparison::describe() const
{
    std::ostringstream out;
    out.precision(9);
    if (ok) {
        out << "all " << count << " elements match, max relative error " << max_rel_error;
        return out.str();
    }
    out << bad_count << " of " << count << " elements wrong; first at index " << first_bad << ": got "
        << first_bad_got << ", want " << first_bad_want;
    if (first_bad_unwritten) out << " (never written: still holds the poison pattern)";
    out << "; max relative error " << max_rel_error;
    return out.str();
}

}  // namespace cml
