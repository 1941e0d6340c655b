// Lab 2 benchmark: one atomicAdd per element (the baseline), your dot_product and (if attempted) your
// grid-stride version, on 16M floats, the size of the H100 calibration.
// Napkin math: per element 2 reads of 4 bytes and no reuse, so the floor is 8 n bytes at copy speed; the one
// result is 4 bytes. What limits the first two kernels is not memory but the queue of atomicAdds at that one
// address, ~1.7 ns each on an H100: n of them for the baseline, n / 256 for a tree per block of 256.
#include <string>
#include <vector>

#include "baseline.hpp"
#include "cml/bench.hpp"
#include "cml/device_buffer.hpp"
#include "dot_product.hpp"
#include "reference.hpp"

namespace {

constexpr long long kDefaultSize = 1LL << 24;

void bench(const cml::BenchArgs& args, cml::BenchReport& report)
{
    const int n = int(args.size ? args.size : kDefaultSize);
    // Whole numbers in {-1, 0, 1}: sum |a_i b_i| <= n, so up to 2^24 elements every order of the additions
    // gives the exact sum and the check below is exact (reference.hpp). Values do not change the timing.
    const std::vector<float> a = random_whole_floats(n, 1), b = random_whole_floats(n, 1);
    const DotReference want = dot_reference(a, b);
    const double tolerance = dot_tolerance(want);
    cml::DeviceBuffer<float> a_dev(a), b_dev(b), result(1);
    report.problem = "n = " + std::to_string(n) + " floats; per element 2 reads of 4 bytes, one float result";

    auto kernel = [&](std::string name, std::string role, void (*launcher)(const float*, const float*, float*, int),
                      bool attempted) {
        cml::KernelUnderTest k;
        k.name = std::move(name);
        k.role = std::move(role);
        k.attempted = attempted;
        k.reset = [&] { result.poison(); };
        k.launch = [&, launcher] { launcher(a_dev.data(), b_dev.data(), result.data(), n); };
        k.verify = [&] { return cml::compare(result.download(), {want.value}, {0.0, tolerance}); };
        k.bytes = 8.0 * n;
        return k;
    };
    report.run(kernel("one atomicAdd per element", "baseline", dot_product_atomic_per_element, true), args);
    report.run(kernel("dot_product", "student", dot_product, true), args);
    report.run(kernel("dot_product_grid_stride", "stretch", dot_product_grid_stride,
                      dot_product_grid_stride_attempted),
               args);
}

}  // namespace

int main(int argc, char** argv) { return cml::bench_main(argc, argv, "02_dot_product", bench); }
