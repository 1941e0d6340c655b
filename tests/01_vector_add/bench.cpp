// Lab 1 benchmark: the strided baseline, your vector_add and (if attempted) your float4 version, on 64M floats.
// Napkin math: per element 2 reads and 1 write of 4 bytes, no reuse, so the floor is 12 n bytes at copy speed.
#include <cmath>
#include <string>
#include <vector>

#include "baseline.hpp"
#include "cml/bench.hpp"
#include "cml/device_buffer.hpp"
#include "cml/random.hpp"
#include "cml/spot_check.hpp"
#include "reference.hpp"
#include "vector_add.hpp"

namespace {

constexpr long long kDefaultSize = 1LL << 26;

// One instance of the problem: its inputs, its output and the sums the output must hold.
struct Instance {
    cml::BenchInput<float> a, b;
    cml::DeviceBuffer<float> c;
    std::vector<double> want;
    std::vector<std::size_t> refreshed;  // the elements the last refresh changed

    explicit Instance(int n)
        : a("a", cml::random_floats(n)), b("b", cml::random_floats(n)), c(n),
          want(vector_add_reference(a.host(), b.host()))
    {
    }

    // Before every launch (cml/instances.hpp): a negated where |a| >= 1/4, so each of those sums moves by at
    // least 1/2, far beyond its tolerance.
    void refresh()
    {
        refreshed = cml::negate_some(a, [&](std::size_t j) { return std::fabs(a.host()[j]) >= 0.25f; });
        for (std::size_t j : refreshed) want[j] = double(a.host()[j]) + double(b.host()[j]);
    }
};

void bench(const cml::BenchArgs& args, cml::BenchReport& report)
{
    const int n = int(args.size ? args.size : kDefaultSize);
    std::vector<Instance> instances = cml::make_instances<Instance>(n);
    report.problem = "n = " + std::to_string(n) + " floats; per element 2 reads and 1 write of 4 bytes";

    auto kernel = [&](std::string name, std::string role, void (*launcher)(const float*, const float*, float*, int),
                      bool attempted) {
        cml::KernelUnderTest k;
        k.name = std::move(name);
        k.role = std::move(role);
        k.attempted = attempted;
        k.refresh = [&](int i) { instances[i].refresh(); };
        k.prepare = [&](int i) { instances[i].c.poison(); };
        k.launch = [&, launcher](int i) { launcher(instances[i].a.data(), instances[i].b.data(), instances[i].c.data(), n); };
        k.verify = [&](int i) { return cml::compare(instances[i].c, instances[i].want, {kSumRelTol, 0.0}); };
        k.spot_check = [&](int i) {
            const Instance& instance = instances[i];
            return cml::spot_check(instance.c, instance.want, {kSumRelTol, 0.0}, instance.refreshed);
        };
        k.restore_inputs = [&](int i) { return cml::restore_changed(instances[i].a, instances[i].b); };
        k.bytes = 12.0 * n;
        return k;
    };
    report.run(kernel("lanes 32 apart", "baseline", vector_add_lanes_32_apart, true), args);
    report.run(kernel("vector_add", "student", vector_add, true), args);
    report.run(kernel("vector_add_float4", "stretch", vector_add_float4, vector_add_float4_attempted), args);
}

}  // namespace

int main(int argc, char** argv) { return cml::bench_main(argc, argv, "01_vector_add", bench); }
