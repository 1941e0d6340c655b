// Lab 5 benchmark: the naive transpose, your tiled transpose, your swizzled stretch (if attempted), and a
// copy kernel with the same launch shape (the speed to hope for), on a square matrix, 8192 x 8192 by default.
// Napkin math: each element is read once and written once, 8 bytes; no reuse, so the floor is 8 N^2 bytes
// at copy speed. Under ncu (--profile, the grader uses --size 256) each kernel runs once.
#include <string>
#include <vector>

#include "baseline.hpp"
#include "cml/bench.hpp"
#include "cml/device_buffer.hpp"
#include "cml/random.hpp"
#include "reference.hpp"
#include "transpose.hpp"

namespace {

constexpr long long kDefaultSize = 8192;  // the calibration's size (grader/targets/h100.toml)

void bench(const cml::BenchArgs& args, cml::BenchReport& report)
{
    const int side = int(args.size ? args.size : kDefaultSize);
    const int rows = side, cols = side;
    const std::vector<float> in = cml::random_floats(std::size_t(rows) * cols);
    const std::vector<double> transposed = transpose_reference(in, rows, cols);
    const std::vector<double> copied(in.begin(), in.end());
    cml::DeviceBuffer<float> in_dev(in), out_dev(in.size());
    report.problem = std::to_string(rows) + " x " + std::to_string(cols) +
                     " floats; per element 1 read and 1 write of 4 bytes";

    auto kernel = [&](std::string name, std::string role, void (*launcher)(const float*, float*, int, int),
                      bool attempted, const std::vector<double>& want) {
        cml::KernelUnderTest k;
        k.name = std::move(name);
        k.role = std::move(role);
        k.attempted = attempted;
        k.reset = [&] { out_dev.poison(); };
        k.launch = [&, launcher] { launcher(in_dev.data(), out_dev.data(), rows, cols); };
        k.verify = [&, expected = &want] { return cml::compare(out_dev.download(), *expected, {0.0, 0.0}); };
        k.bytes = 8.0 * rows * cols;
        return k;
    };
    report.run(kernel("naive", "baseline", transpose_naive, true, transposed), args);
    report.run(kernel("transpose", "student", transpose, true, transposed), args);
    report.run(kernel("transpose_swizzled", "stretch", transpose_swizzled, transpose_swizzled_attempted, transposed),
               args);
    report.run(kernel("copy kernel (not a transpose)", "reference", copy_tiles, true, copied), args);
}

}  // namespace

int main(int argc, char** argv) { return cml::bench_main(argc, argv, "05_padded_transpose", bench); }
