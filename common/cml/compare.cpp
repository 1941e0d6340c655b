#include "cml/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "cml/device_buffer.hpp"
#include "cml/parallel.hpp"

namespace cml {

bool is_poison(float value)
{
    unsigned char bytes[sizeof value];
    std::memcpy(bytes, &value, sizeof value);
    return std::all_of(std::begin(bytes), std::end(bytes), [](unsigned char b) { return b == kPoisonByte; });
}

namespace {

// Elements [begin, end) of the comparison; first_bad is an index into the whole arrays.
Comparison compare_range(const float* got, const double* want, Tolerance tolerance, std::size_t begin, std::size_t end)
{
    Comparison result;
    result.count = end - begin;
    for (std::size_t i = begin; i < end; ++i) {
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
            result.first_bad_nan = std::isnan(got[i]) && !result.first_bad_unwritten;
        }
        ++result.bad_count;
    }
    return result;
}

// A comparison is split into parts of about this many elements, compared on every core: a benchmark
// compares its 64M-float outputs a few times per kernel. A smaller one runs on the calling thread.
constexpr std::size_t kPartElements = kGrain;

}  // namespace

void append(Comparison& whole, const Comparison& later)
{
    if (whole.ok && !later.ok) {
        whole.first_bad = later.first_bad;
        whole.first_bad_got = later.first_bad_got;
        whole.first_bad_want = later.first_bad_want;
        whole.first_bad_unwritten = later.first_bad_unwritten;
        whole.first_bad_nan = later.first_bad_nan;
    }
    whole.ok = whole.ok && later.ok;
    whole.count += later.count;
    whole.bad_count += later.bad_count;
    const bool nan = std::isnan(whole.max_rel_error) || std::isnan(later.max_rel_error);
    whole.max_rel_error = nan ? std::numeric_limits<double>::quiet_NaN() : std::max(whole.max_rel_error, later.max_rel_error);
}

Comparison compare(const float* got, const double* want, std::size_t count, Tolerance tolerance)
{
    const std::size_t parts = (count + kPartElements - 1) / kPartElements;
    if (parts <= 1) return compare_range(got, want, tolerance, 0, count);
    std::vector<Comparison> found(parts);
    parallel_ranges(count, kPartElements, [&](std::size_t begin, std::size_t end) {
        found[begin / kPartElements] = compare_range(got, want, tolerance, begin, end);
    });
    Comparison result = found.front();
    for (std::size_t p = 1; p < parts; ++p) append(result, found[p]);
    return result;
}

Comparison compare(const std::vector<float>& got, const std::vector<double>& want, Tolerance tolerance)
{
    if (got.size() != want.size()) throw std::invalid_argument("compare: got and want differ in length");
    return compare(got.data(), want.data(), got.size(), tolerance);
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
    // A GPU's arithmetic turns any NaN it is given into its own, so this one was computed: from 0/0 or inf - inf,
    // or from a value read before anything wrote it (an accumulator or shared memory never set).
    if (first_bad_nan) out << " (a NaN the kernel computed: from 0/0 or inf - inf, or from a value it read before"
                              " anything wrote it, such as an accumulator never set to 0)";
    out << "; max relative error " << max_rel_error;
    return out.str();
}

}  // namespace cml
