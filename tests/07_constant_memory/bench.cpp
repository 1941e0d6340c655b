// Lab 7 benchmark, 64M elements. Napkin math for both parts: per element 1 read and 1 write of 4 bytes from
// DRAM; the coefficients (128 bytes) and the table (4 KB) stay on chip, so GB/s below count those 8 bytes.
//   A: degree-31 polynomial, 31 multiply-adds per element: your __constant__ coefficients against the same
//      kernel reading them through a global pointer.
//   B: table look-up, each lane a different entry: your choice of memory space against the table in
//      __constant__; the same table read through a global pointer is shown for comparison.
// Each instance has its own coefficients or table, loaded where each kernel reads them before its launches
// on that instance. ncu profiles Part A's checked launches (grader/labs.toml: the counter check is about its
// coefficients); the CPU emulator's --profile run does Part A alone.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "baseline.hpp"
#include "cml/bench.hpp"
#include "cml/device_buffer.hpp"
#include "cml/random.hpp"
#include "cml/spot_check.hpp"
#include "constant_memory.hpp"
#include "reference.hpp"

namespace {

constexpr long long kDefaultSize = 1LL << 26;
const std::string kPolynomial = "A: polynomial";  // group names, as grader/targets/h100.toml names them
const std::string kLookup = "B: look-up";

// Part A, one instance: the coefficients (on the device too, for the baseline's pointer), x, y = p(x).
struct Polynomial {
    cml::BenchInput<float> c, x;
    cml::DeviceBuffer<float> out;
    std::vector<double> want;
    double tolerance;

    std::vector<std::size_t> refreshed;  // the elements the last refresh changed

    explicit Polynomial(int n)
        : c("c", cml::random_floats(kMaxCoefficients)), x("x", cml::random_floats(n)), out(n),
          want(polynomial_reference(c.host(), x.host())), tolerance(polynomial_error_bound(c.host(), x.host()))
    {
    }
    std::string restore_inputs() { return cml::restore_changed(c, x); }

    // Before every launch (cml/instances.hpp): x negated where |x| >= 1/4, so p(x) there moves by twice its
    // odd part, and p computed again there. max|x|, and with it the tolerance, stays as it was.
    void refresh()
    {
        refreshed = cml::negate_some(x, [&](std::size_t j) { return std::fabs(x.host()[j]) >= 0.25f; });
        std::vector<float> at;
        for (std::size_t j : refreshed) at.push_back(x.host()[j]);
        const std::vector<double> p = polynomial_reference(c.host(), at);
        for (std::size_t r = 0; r < refreshed.size(); ++r) want[refreshed[r]] = p[r];
    }
};

// Part B, one instance: the table (on the device too, for the global-memory kernel), the indices, the
// looked-up values. A copied float is exact: no tolerance.
struct Lookup {
    cml::BenchInput<float> table;
    cml::BenchInput<int> index;
    cml::DeviceBuffer<float> out;
    std::vector<double> want;
    double tolerance = 0.0;

    std::vector<std::size_t> refreshed;  // the elements the last refresh changed

    explicit Lookup(int n)
        : table("table", cml::random_floats(kTableEntries)), index("index", random_indices(n)), out(n),
          want(lookup_reference(table.host(), index.host()))
    {
    }
    std::string restore_inputs() { return cml::restore_changed(table, index); }

    // Before every launch (cml/instances.hpp): a few indices moved half the table on, to another random entry.
    void refresh()
    {
        refreshed = cml::draw_positions(index.size(), cml::kRefreshed, [](std::size_t) { return true; });
        index.change(refreshed, [](int entry) { return (entry + kTableEntries / 2) % kTableEntries; });
        for (std::size_t j : refreshed) want[j] = table.host()[std::size_t(index.host()[j])];
    }
};

// One benchmark entry over the instances of a part: `load` puts an instance's coefficients or table where the
// kernel reads them (those behind a pointer need nothing), `launch` runs the kernel on it.
template <class Part>
cml::KernelUnderTest entry(std::string name, std::string role, const std::string& group, std::vector<Part>& parts,
                           std::function<void(const Part&)> load, std::function<void(Part&)> launch)
{
    cml::KernelUnderTest k;
    k.name = std::move(name);
    k.role = std::move(role);
    k.group = group;
    k.refresh = [&parts](int i) { parts[i].refresh(); };
    k.prepare = [&parts, load](int i) {
        parts[i].out.poison();
        if (load) load(parts[i]);
    };
    k.launch = [&parts, launch](int i) { launch(parts[i]); };
    k.verify = [&parts](int i) { return cml::compare(parts[i].out, parts[i].want, {0.0, parts[i].tolerance}); };
    k.spot_check = [&parts](int i) {
        return cml::spot_check(parts[i].out, parts[i].want, {0.0, parts[i].tolerance}, parts[i].refreshed);
    };
    k.restore_inputs = [&parts](int i) { return parts[i].restore_inputs(); };
    k.bytes = 8.0 * double(parts[0].out.size());  // 1 read and 1 write of 4 bytes per element
    return k;
}

void bench(const cml::BenchArgs& args, cml::BenchReport& report)
{
    const int n = int(args.size ? args.size : kDefaultSize);
    report.problem = "n = " + std::to_string(n) + "; per element 1 read and 1 write of 4 bytes; A: degree " +
                     std::to_string(kMaxCoefficients - 1) + ", B: a table of " + std::to_string(kTableEntries) +
                     " floats";

    // Both parts' instances before the first launch: the launches have the GPU alone, and Part B's inputs and
    // expected values take about a second to draw and compute.
    std::vector<Polynomial> polynomials = cml::make_instances<Polynomial>(n);
    std::vector<Lookup> lookups = args.profile ? std::vector<Lookup>{} : cml::make_instances<Lookup>(n);
    auto global_coefficients = [n](Polynomial& p) {
        polynomial_global(p.c.data(), kMaxCoefficients, p.x.data(), p.out.data(), n);
    };
    auto constant_coefficients = [](const Polynomial& p) { set_polynomial(p.c.host().data(), kMaxCoefficients); };
    auto student_polynomial = [n](Polynomial& p) { polynomial(p.x.data(), p.out.data(), n); };
    report.run(entry<Polynomial>("global pointer", "baseline", kPolynomial, polynomials, nullptr, global_coefficients),
               args);
    report.run(entry<Polynomial>("polynomial", "student", kPolynomial, polynomials, constant_coefficients,
                                 student_polynomial),
               args);
    if (args.profile) return;

    auto constant_table = [](const Lookup& l) { set_table_constant(l.table.host().data()); };
    auto student_table = [](const Lookup& l) { set_table(l.table.host().data()); };
    auto baseline_lookup = [n](Lookup& l) { lookup_constant(l.index.data(), l.out.data(), n); };
    auto student_lookup = [n](Lookup& l) { lookup(l.index.data(), l.out.data(), n); };
    auto global_lookup = [n](Lookup& l) { lookup_global(l.table.data(), l.index.data(), l.out.data(), n); };
    report.run(entry<Lookup>("__constant__ table", "baseline", kLookup, lookups, constant_table, baseline_lookup), args);
    report.run(entry<Lookup>("lookup", "student", kLookup, lookups, student_table, student_lookup), args);
    report.run(entry<Lookup>("global-memory table", "reference", kLookup, lookups, nullptr, global_lookup), args);
}

}  // namespace

int main(int argc, char** argv) { return cml::bench_main(argc, argv, "07_constant_memory", bench); }
