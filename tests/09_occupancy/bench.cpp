// Lab 9 benchmark, 64M floats reversed. Napkin math: per element 1 read and 1 write of 4 bytes, no reuse, so the
// floor is 8 n bytes at copy speed, whatever the launch: a kernel that falls short of it is not hiding the
// latency of DRAM. The baseline is the skeleton's launch (256 threads, a 115 KB tile: one block per SM on an
// H100); yours is the launch launch_for_this_gpu() chooses; the stretch keeps one block per SM. ncu profiles the
// checked launches of the baseline and yours (grader/labs.toml: the occupancy checks).
#include <cmath>
#include <string>
#include <vector>

#include "baseline.hpp"
#include "cml/bench.hpp"
#include "cml/device_buffer.hpp"
#include "cml/random.hpp"
#include "cml/spot_check.hpp"
#include "occupancy.hpp"
#include "reference.hpp"

namespace {

constexpr long long kDefaultSize = 1LL << 26;

// One instance of the problem: its input, its output and the reversed input it must hold.
struct Instance {
    cml::BenchInput<float> in;
    cml::DeviceBuffer<float> out;
    std::vector<double> want;
    std::vector<std::size_t> refreshed;  // the outputs the last refresh changed

    explicit Instance(int n) : in("in", cml::random_floats(n)), out(n), want(reverse_reference(in.host())) {}

    // Before every launch (cml/instances.hpp): a few inputs negated where |in| >= 1/4, so each of their mirror
    // images moves by at least 1/2.
    void refresh()
    {
        const std::size_t n = want.size();
        refreshed.clear();
        for (std::size_t j : cml::negate_some(in, [&](std::size_t j) { return std::fabs(in.host()[j]) >= 0.25f; })) {
            want[n - 1 - j] = in.host()[j];
            refreshed.push_back(n - 1 - j);
        }
    }
};

void bench(const cml::BenchArgs& args, cml::BenchReport& report)
{
    const int n = int(args.size ? args.size : kDefaultSize);
    std::vector<Instance> instances = cml::make_instances<Instance>(n);
    const ReverseLaunch chosen = launch_for_this_gpu();
    report.problem = "n = " + std::to_string(n) + " floats; per element 1 read and 1 write of 4 bytes; your launch: " +
                     std::to_string(chosen.threads) + " threads, a tile of " + std::to_string(chosen.tile) +
                     " floats";

    auto kernel = [&](std::string name, std::string role, std::function<void(const float*, float*)> launcher,
                      bool attempted) {
        cml::KernelUnderTest k;
        k.name = std::move(name);
        k.role = std::move(role);
        k.attempted = attempted;
        k.refresh = [&](int i) { instances[i].refresh(); };
        k.prepare = [&](int i) { instances[i].out.poison(); };
        k.launch = [&, launcher](int i) { launcher(instances[i].in.data(), instances[i].out.data()); };
        k.verify = [&](int i) { return cml::compare(instances[i].out, instances[i].want, {0.0, 0.0}); };
        k.spot_check = [&](int i) {
            return cml::spot_check(instances[i].out, instances[i].want, {0.0, 0.0}, instances[i].refreshed);
        };
        k.restore_inputs = [&](int i) { return cml::restore_changed(instances[i].in); };
        k.bytes = 8.0 * n;
        return k;
    };
    const ReverseLaunch one = kOneBlockPerSm;
    report.run(kernel("one block per SM", "baseline",
                      [&](const float* in, float* out) { reverse_tiled(in, out, n, one.threads, one.tile); }, true),
               args);
    report.run(kernel("reverse", "student", [&](const float* in, float* out) { reverse(in, out, n, chosen); }, true),
               args);
    report.run(kernel("reverse_in_flight", "stretch",
                      [&](const float* in, float* out) { reverse_in_flight(in, out, n); },
                      reverse_in_flight_attempted),
               args);
}

}  // namespace

int main(int argc, char** argv) { return cml::bench_main(argc, argv, "09_occupancy", bench); }
