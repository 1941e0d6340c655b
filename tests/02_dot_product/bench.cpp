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

// One instance of the problem. Whole numbers in {-1, 0, 1}: sum |a_i b_i| <= n, so up to 2^24 elements every
// order of the additions gives the exact sum and the check is exact (reference.hpp). Values do not change
// the timing.
struct Instance {
    cml::BenchInput<float> a, b;
    cml::DeviceBuffer<float> result;
    DotReference want;

    explicit Instance(int n)
        : a("a", cml::random_whole_floats(n, 1)), b("b", cml::random_whole_floats(n, 1)), result(1),
          want(dot_reference(a.host(), b.host()))
    {
    }

    // Before every launch (cml/instances.hpp): a negated where a_i b_i is +1, or where it is -1 (which, drawn
    // at random), so the sum moves by 2 per place, all of them the same way: it cannot come back to what an
    // earlier launch found. sum |a_i b_i|, and with it the tolerance, stays as it was.
    void refresh()
    {
        const float sign = cml::draw_coin() ? 1.0f : -1.0f;
        const std::vector<std::size_t> negated =
            cml::negate_some(a, [&](std::size_t j) { return a.host()[j] * b.host()[j] == sign; });
        want.value -= 2.0 * sign * double(negated.size());
    }
};

void bench(const cml::BenchArgs& args, cml::BenchReport& report)
{
    const int n = int(args.size ? args.size : kDefaultSize);
    std::vector<Instance> instances = cml::make_instances<Instance>(n);
    report.problem = "n = " + std::to_string(n) + " floats; per element 2 reads of 4 bytes, one float result";

    auto kernel = [&](std::string name, std::string role, void (*launcher)(const float*, const float*, float*, int),
                      bool attempted) {
        cml::KernelUnderTest k;
        k.name = std::move(name);
        k.role = std::move(role);
        k.attempted = attempted;
        k.refresh = [&](int i) { instances[i].refresh(); };
        k.prepare = [&](int i) { instances[i].result.poison(); };
        k.launch = [&, launcher](int i) {
            launcher(instances[i].a.data(), instances[i].b.data(), instances[i].result.data(), n);
        };
        k.verify = [&](int i) {
            const DotReference& want = instances[i].want;
            return cml::compare(instances[i].result.download(), {want.value}, {0.0, dot_tolerance(want)});
        };
        k.restore_inputs = [&](int i) { return cml::restore_changed(instances[i].a, instances[i].b); };
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
