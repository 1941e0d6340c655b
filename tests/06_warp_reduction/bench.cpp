// Lab 6 benchmark: the full tree (the baseline), your unrolled last warp and your warp shuffles, on 64M floats,
// at 1 element per thread (latency-bound: graded) and 8 per thread (memory-bound: shown), the settings of the
// H100 calibration. Each pair is one group, so each speedup is measured against the tree in the same run.
// Napkin math: every element is read once (4 bytes) and each block writes one float; there is no reuse, so
// the floor is 4 n bytes at copy speed. At 1 per thread, 262144 blocks each do one load per thread and then
// spend the rest of their life on the reduction's steps: the steps, not the memory, set the time.
#include <cstddef>
#include <string>
#include <vector>

#include "baseline.hpp"
#include "cml/bench.hpp"
#include "cml/device_buffer.hpp"
#include "reference.hpp"
#include "warp_reduction.hpp"

namespace {

constexpr long long kDefaultSize = 1LL << 26;
constexpr int kMagnitude = 8;
const std::vector<int> kPerThread = {1, 8};  // grader/targets: only 1 per thread has thresholds

using Launcher = void (*)(const float*, float*, int, int);

struct Version {
    const char* group;  // "unrolled, 1/thread" and so on
    const char* name;
    Launcher launcher;
};
const Version kVersions[] = {{"unrolled", "unrolled last warp", block_sums_unrolled},
                             {"shuffle", "warp shuffles", block_sums_shuffle}};

// One instance of the problem. Whole numbers in [-8, 8]: each block's sum is exact in any order
// (reference.hpp), so the check is exact. Its expected sums at each number of elements per thread, computed
// before the first launch: the launches have the GPU alone, and nothing waits on the CPU between them.
struct Instance {
    cml::BenchInput<float> in;
    cml::DeviceBuffer<float> partial;  // sized for 1 per thread, the most blocks
    std::vector<std::vector<double>> want;  // [k]: at kPerThread[k] elements per thread

    explicit Instance(int n) : in("in", cml::random_whole_floats(n, kMagnitude)), partial(block_count(n, 1))
    {
        for (int per_thread : kPerThread) want.push_back(block_sums_reference(in.host(), per_thread));
    }

    // Before every launch (cml/instances.hpp): in negated where it is positive, or where it is negative
    // (which, drawn at random), and the expected sums with it, exactly. Every change to a block's sum is
    // then of one sign: none can cancel another, and some block's sum differs from what an earlier launch
    // found. max|in|, and with it the tolerance, stays as it was.
    void refresh()
    {
        const float sign = cml::draw_coin() ? 1.0f : -1.0f;
        const std::vector<std::size_t> negated = cml::negate_some(in, [&](std::size_t j) { return in.host()[j] * sign > 0.0f; });
        for (std::size_t setting = 0; setting < kPerThread.size(); ++setting) {
            const std::size_t span = std::size_t(kBlock) * kPerThread[setting];
            for (std::size_t j : negated) want[setting][j / span] += 2.0 * in.host()[j];
        }
    }
};

void bench(const cml::BenchArgs& args, cml::BenchReport& report)
{
    const int n = int(args.size ? args.size : kDefaultSize);
    std::vector<Instance> instances = cml::make_instances<Instance>(n);
    report.problem = "n = " + std::to_string(n) + " floats; per element 1 read of 4 bytes, per block 1 write";

    for (std::size_t setting = 0; setting < kPerThread.size(); ++setting) {
        const int per_thread = kPerThread[setting];
        const double tolerance = block_sum_tolerance(per_thread, kMagnitude, true);
        const int blocks = block_count(n, per_thread);
        auto kernel = [&, setting, per_thread, blocks, tolerance](const Version& version, const char* name, const char* role,
                                                         Launcher launcher) {
            cml::KernelUnderTest k;
            k.name = name;
            k.role = role;
            k.group = std::string(version.group) + ", " + std::to_string(per_thread) + "/thread";
            k.refresh = [&](int i) { instances[i].refresh(); };
            k.prepare = [&](int i) { instances[i].partial.poison(); };
            k.launch = [&, launcher, per_thread](int i) {
                launcher(instances[i].in.data(), instances[i].partial.data(), n, per_thread);
            };
            k.verify = [&, setting, blocks, tolerance](int i) {
                std::vector<float> got = instances[i].partial.download();
                got.resize(blocks);
                return cml::compare(got, instances[i].want[setting], {0.0, tolerance});
            };
            k.restore_inputs = [&](int i) { return cml::restore_changed(instances[i].in); };
            k.bytes = 4.0 * n + 4.0 * blocks;
            return k;
        };
        for (const Version& version : kVersions) {
            report.run(kernel(version, "full tree", "baseline", block_sums_tree), args);
            report.run(kernel(version, version.name, "student", version.launcher), args);
        }
    }
}

}  // namespace

int main(int argc, char** argv) { return cml::bench_main(argc, argv, "06_warp_reduction", bench); }
