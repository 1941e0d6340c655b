// Lab 4 benchmark: the naive baseline, your gemm_tiled, your register-blocked stretch (if attempted) and
// cuBLAS (pedantic fp32, no tensor cores), on square matrices, N = 4096 by default.
// Napkin math: 2 N^3 flops; the fewest bytes are A, B and C once each, 12 N^2, so every version is bound by
// arithmetic or by the on-chip memories, never by DRAM (GB/s below count those 12 N^2 bytes only).
#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <cublas_v2.h>

#include "baseline.hpp"
#include "cml/bench.hpp"
#include "cml/device_buffer.hpp"
#include "cml/random.hpp"
#include "cml/spot_check.hpp"
#include "gemm.hpp"
#include "reference.hpp"

namespace {

constexpr long long kDefaultSize = 4096;  // the calibration's size (grader/targets/h100.toml)

void check_cublas(cublasStatus_t status, const char* call)
{
    if (status != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string(call) + " failed: " + cublasGetStatusString(status));
}

// cuBLAS in plain fp32: what a user would call instead of writing a kernel. Pedantic math keeps it off the
// TF32 tensor cores, which on an H100 are ~8x faster but round the inputs to 10-bit mantissas.
class Cublas {
public:
    Cublas()
    {
        check_cublas(cublasCreate(&handle_), "cublasCreate");
        check_cublas(cublasSetMathMode(handle_, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode");
    }
    ~Cublas() { cublasDestroy(handle_); }
    Cublas(const Cublas&) = delete;
    Cublas& operator=(const Cublas&) = delete;

    // cuBLAS is column-major. A row-major m x n matrix is its transpose, column-major, so C = A B row-major
    // is C^T = B^T A^T column-major: the same call with A and B (and m and n) swapped, no copies.
    void gemm(const float* a, const float* b, float* c, int m, int n, int k)
    {
        const float one = 1.0f, zero = 0.0f;
        check_cublas(cublasSgemm(handle_, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, b, n, a, k, &zero, c, n),
                     "cublasSgemm");
    }

private:
    cublasHandle_t handle_ = nullptr;
};

// One instance of the problem: A, B, C and the elements of C that are checked, with their expected values.
struct Instance {
    cml::BenchInput<float> a, b;
    cml::DeviceBuffer<float> c;
    int size;
    GemmSample sample;
    std::vector<std::size_t> refreshed;  // the sampled elements (indices into the sample) the last refresh changed

    explicit Instance(int size)
        : a("A", cml::random_floats(std::size_t(size) * size)), b("B", cml::random_floats(std::size_t(size) * size)),
          c(std::size_t(size) * size), size(size), sample(a.host(), b.host(), size, size, size, cml::rng())
    {
    }

    // Before every launch (cml/instances.hpp): one row of A, drawn at random, negated, so that row of C is
    // negated (elements of size ~20 at N = 4096, against a tolerance of ~0.5), and its expected values exactly. Every
    // row's sum of |a|, and with it the tolerance, stays as it was. The sample holds ~15 elements of any row
    // (the edge columns and random ones): the look at each launch includes them.
    void refresh()
    {
        if (size == 0) return;
        const std::size_t row = cml::draw_positions(std::size_t(size), 1, [](std::size_t) { return true; }).front();
        std::vector<std::size_t> whole_row(static_cast<std::size_t>(size));
        for (std::size_t p = 0; p < whole_row.size(); ++p) whole_row[p] = row * size + p;
        a.change(whole_row, [](float value) { return -value; });
        refreshed.clear();
        for (std::size_t s = 0; s < sample.index.size(); ++s) {
            if (sample.index[s] / size != row) continue;
            sample.want[s] = -sample.want[s];
            refreshed.push_back(s);
        }
    }
};

// The look at every warm-up and timed launch (cml/spot_check.hpp): kSpotChunks of the sampled elements, drawn
// at random (the machine's entropy), and up to kSpotChunks of those the refresh before the launch negated,
// read back one by one. The full comparison downloads all of C (64 MB at N = 4096, ~55 ms of checking a launch
// on an H100, with the GPU held alone): it stays for the checked launch, the last timed one and one drawn at
// random.
cml::Comparison spot_check(const Instance& instance)
{
    static std::random_device entropy;
    const GemmSample& sample = instance.sample;
    if (sample.index.empty()) return cml::Comparison{};
    std::uniform_int_distribution<std::size_t> pick(0, sample.index.size() - 1);
    std::vector<std::size_t> picked(cml::kSpotChunks);
    for (std::size_t& s : picked) s = pick(entropy);
    std::vector<std::size_t> refreshed = instance.refreshed;  // a row at a tile edge is sampled whole: a share
    std::shuffle(refreshed.begin(), refreshed.end(), entropy);
    refreshed.resize(std::min(refreshed.size(), cml::kSpotChunks));
    picked.insert(picked.end(), refreshed.begin(), refreshed.end());

    std::vector<float> got(picked.size());
    std::vector<double> want(picked.size());
    std::vector<std::size_t> where(picked.size());
    for (std::size_t i = 0; i < picked.size(); ++i) {
        where[i] = sample.index[picked[i]];
        want[i] = sample.want[picked[i]];
        CML_CHECK(cudaMemcpy(&got[i], instance.c.data() + where[i], sizeof(float), cudaMemcpyDeviceToHost));
    }
    cml::Comparison result = cml::compare(got, want, {0.0, sample.tolerance});
    if (!result.ok) result.first_bad = where[result.first_bad];
    return result;
}

void bench(const cml::BenchArgs& args, cml::BenchReport& report)
{
    const int size = int(args.size ? args.size : kDefaultSize);
    const int m = size, n = size, k = size;
    std::vector<Instance> instances = cml::make_instances<Instance>(size);
    Cublas cublas;
    char problem[200];
    std::snprintf(problem, sizeof problem,
                  "M = N = K = %d: %.1f GFLOP, A + B + C = %.0f MB; checked at %zu elements of C (whole rows and "
                  "columns at tile edges, and random ones)",
                  size, 2.0 * m * n * double(k) / 1e9, 4.0 * 3.0 * m * n / 1e6, instances[0].sample.index.size());
    report.problem = problem;

    using Launcher = std::function<void(const float*, const float*, float*, int, int, int)>;
    auto kernel = [&](std::string name, std::string role, Launcher launcher, bool attempted) {
        cml::KernelUnderTest kut;
        kut.name = std::move(name);
        kut.role = std::move(role);
        kut.attempted = attempted;
        kut.refresh = [&](int i) { instances[i].refresh(); };
        kut.prepare = [&](int i) { instances[i].c.poison(); };
        kut.launch = [&, launcher](int i) {
            launcher(instances[i].a.data(), instances[i].b.data(), instances[i].c.data(), m, n, k);
        };
        kut.verify = [&](int i) { return instances[i].sample.compare(instances[i].c.download()); };
        kut.spot_check = [&](int i) { return spot_check(instances[i]); };
        kut.restore_inputs = [&](int i) { return cml::restore_changed(instances[i].a, instances[i].b); };
        kut.bytes = 4.0 * (double(m) * k + double(k) * n + double(m) * n);
        kut.flops = 2.0 * m * n * double(k);
        return kut;
    };
    report.run(kernel("naive", "baseline", gemm_naive, true), args);
    report.run(kernel("gemm_tiled", "student", gemm_tiled, true), args);
    report.run(kernel("gemm_register_blocked", "stretch", gemm_register_blocked, gemm_register_blocked_attempted),
               args);
    const Launcher library = [&](const float* x, const float* y, float* z, int rows, int cols, int inner) {
        cublas.gemm(x, y, z, rows, cols, inner);
    };
    report.run(kernel("cuBLAS sgemm (fp32)", "reference", library, true), args);

    // What a user would pick instead: each kernel's speed as a fraction of cuBLAS's on this GPU.
    const cml::KernelResult& cublas_result = report.results().back();
    if (args.profile || cublas_result.gflops() <= 0) return;
    std::printf("fraction of cuBLAS fp32 (%.0f GFLOP/s) on this GPU:", cublas_result.gflops());
    for (const cml::KernelResult& r : report.results()) {
        if (r.attempted && r.role != "reference")
            std::printf("  %s %.2f", r.name.c_str(), r.gflops() / cublas_result.gflops());
    }
    std::printf("\n\n");
}

}  // namespace

int main(int argc, char** argv) { return cml::bench_main(argc, argv, "04_tiled_gemm", bench); }
