// Lab 5 benchmark: the naive transpose, your tiled transpose, your swizzled stretch (if attempted), and a
// copy kernel with the same launch shape (the speed to hope for), on a square matrix, 8192 x 8192 by default.
// Napkin math: each element is read once and written once, 8 bytes; no reuse, so the floor is 8 N^2 bytes
// at copy speed. ncu profiles each kernel's checked launch (the CPU emulator's --profile run: at 256 x 256).
#include <cmath>
#include <string>
#include <vector>

#include "baseline.hpp"
#include "cml/bench.hpp"
#include "cml/device_buffer.hpp"
#include "cml/random.hpp"
#include "cml/spot_check.hpp"
#include "reference.hpp"
#include "transpose.hpp"

namespace {

constexpr long long kDefaultSize = 8192;  // the calibration's size (grader/targets/h100.toml)

// One instance of the problem: the matrix, the output, and what the output must hold after a transpose or
// after the copy kernel.
struct Instance {
    cml::BenchInput<float> in;
    cml::DeviceBuffer<float> out;
    std::vector<double> transposed;
    std::vector<double> copied;

    // The elements of each expected output that the last refresh changed.
    std::vector<std::size_t> refreshed_transposed, refreshed_copied;
    int rows, cols;

    Instance(int rows, int cols)
        : in("in", cml::random_floats(std::size_t(rows) * cols)), out(in.size()),
          transposed(transpose_reference(in.host(), rows, cols)), copied(in.host().begin(), in.host().end()),
          rows(rows), cols(cols)
    {
    }

    // Before every launch (cml/instances.hpp): in negated where |in| >= 1/4, and both expected outputs with
    // it, exactly (a transpose moves floats, its tolerance is 0).
    void refresh()
    {
        refreshed_copied = cml::negate_some(in, [&](std::size_t j) { return std::fabs(in.host()[j]) >= 0.25f; });
        refreshed_transposed.clear();
        for (std::size_t j : refreshed_copied) {
            const std::size_t r = j / cols, c = j % cols, to = c * rows + r;
            copied[j] = in.host()[j];
            transposed[to] = in.host()[j];
            refreshed_transposed.push_back(to);
        }
    }
};

void bench(const cml::BenchArgs& args, cml::BenchReport& report)
{
    const int side = int(args.size ? args.size : kDefaultSize);
    const int rows = side, cols = side;
    std::vector<Instance> instances = cml::make_instances<Instance>(rows, cols);
    report.problem = std::to_string(rows) + " x " + std::to_string(cols) +
                     " floats; per element 1 read and 1 write of 4 bytes";

    using Want = std::vector<double> Instance::*;  // which of the instance's expected outputs
    using Refreshed = std::vector<std::size_t> Instance::*;  // and which of its elements the refresh changed
    auto kernel = [&](std::string name, std::string role, void (*launcher)(const float*, float*, int, int),
                      bool attempted, Want want) {
        const Refreshed refreshed =
            want == &Instance::transposed ? &Instance::refreshed_transposed : &Instance::refreshed_copied;
        cml::KernelUnderTest k;
        k.name = std::move(name);
        k.role = std::move(role);
        k.attempted = attempted;
        k.refresh = [&](int i) { instances[i].refresh(); };
        k.prepare = [&](int i) { instances[i].out.poison(); };
        k.launch = [&, launcher](int i) { launcher(instances[i].in.data(), instances[i].out.data(), rows, cols); };
        k.verify = [&, want](int i) { return cml::compare(instances[i].out, instances[i].*want, {0.0, 0.0}); };
        k.spot_check = [&, want, refreshed](int i) {
            const Instance& instance = instances[i];
            return cml::spot_check(instance.out, instance.*want, {0.0, 0.0}, instance.*refreshed);
        };
        k.restore_inputs = [&](int i) { return cml::restore_changed(instances[i].in); };
        k.bytes = 8.0 * rows * cols;
        return k;
    };
    const Want transposed = &Instance::transposed;
    report.run(kernel("naive", "baseline", transpose_naive, true, transposed), args);
    report.run(kernel("transpose", "student", transpose, true, transposed), args);
    report.run(kernel("transpose_swizzled", "stretch", transpose_swizzled, transpose_swizzled_attempted, transposed),
               args);
    report.run(kernel("copy kernel (not a transpose)", "reference", copy_tiles, true, &Instance::copied), args);
}

}  // namespace

int main(int argc, char** argv) { return cml::bench_main(argc, argv, "05_padded_transpose", bench); }
