// Lab 1 benchmark: the strided baseline, your vector_add and (if attempted) your float4 version, on 64M floats.
// Napkin math: per element 2 reads and 1 write of 4 bytes, no reuse, so the floor is 12 n bytes at copy speed.
#include <string>
#include <vector>

#include "baseline.hpp"
#include "cml/bench.hpp"
#include "cml/device_buffer.hpp"
#include "cml/random.hpp"
#include "reference.hpp"
#include "vector_add.hpp"

namespace {

constexpr long long kDefaultSize = 1LL << 26;

void bench(const cml::BenchArgs& args, cml::BenchReport& report)
{
    const int n = int(args.size ? args.size : kDefaultSize);
    const std::vector<float> a = cml::random_floats(n), b = cml::random_floats(n);
    const std::vector<double> want = vector_add_reference(a, b);
    cml::DeviceBuffer<float> a_dev(a), b_dev(b), c_dev(n);
    report.problem = "n = " + std::to_string(n) + " floats; per element 2 reads and 1 write of 4 bytes";

    auto kernel = [&](std::string name, std::string role, void (*launcher)(const float*, const float*, float*, int),
                      bool attempted) {
        cml::KernelUnderTest k;
        k.name = std::move(name);
        k.role = std::move(role);
        k.attempted = attempted;
        k.reset = [&] { c_dev.poison(); };
        k.launch = [&, launcher] { launcher(a_dev.data(), b_dev.data(), c_dev.data(), n); };
        k.verify = [&] { return cml::compare(c_dev.download(), want, {kSumRelTol, 0.0}); };
        k.bytes = 12.0 * n;
        return k;
    };
    report.run(kernel("lanes 32 apart", "baseline", vector_add_lanes_32_apart, true), args);
    report.run(kernel("vector_add", "student", vector_add, true), args);
    report.run(kernel("vector_add_float4", "stretch", vector_add_float4, vector_add_float4_attempted), args);
}

}  // namespace

int main(int argc, char** argv) { return cml::bench_main(argc, argv, "01_vector_add", bench); }
