// Lab 11 benchmark: the histogram of 64 MB of text, the size ncu profiles on a GPU (the CPU emulator: 1 MB). The
// baseline adds every byte to global memory with atomicAdd; yours is histogram, and (if attempted) the stretch's
// histogram_per_warp. The problem line prints the input's contention: how many bins the text uses, and the share
// of the busiest.
// Napkin math: each byte is read once, n bytes at copy speed; the 1 KB of bins is nothing. What limits the
// baseline is not memory but the queue of atomics at each hot bin in L2: the space alone is a large share of the
// bytes (the problem line prints it), and that share of all n atomics waits for one address. A private histogram per block moves that queue into each SM's
// shared memory, and leaves L2 one atomic per bin and block.
#include <string>
#include <vector>

#include "baseline.hpp"
#include "cml/bench.hpp"
#include "cml/device_buffer.hpp"
#include "histogram.hpp"
#include "reference.hpp"

namespace {

constexpr long long kDefaultSize = 1LL << 26;

// One instance of the problem: its text, its bins and the histogram they must hold.
struct Instance {
    cml::BenchInput<unsigned char> data;
    cml::DeviceBuffer<unsigned> bins;
    std::vector<unsigned long long> want;

    explicit Instance(int n) : data("data", text_bytes(std::size_t(n))), bins(kBins), want(histogram_reference(data.host()))
    {
    }

    // Before every launch (cml/instances.hpp): a few bytes moved to another bin (their top bit flipped), so each
    // launch's histogram differs from every earlier one's.
    void refresh()
    {
        const std::vector<std::size_t> at = cml::draw_positions(data.size(), cml::kRefreshed, [](std::size_t) { return true; });
        for (std::size_t j : at) {
            --want[data.host()[j]];
            ++want[data.host()[j] ^ 0x80u];
        }
        data.change(at, [](unsigned char byte) { return static_cast<unsigned char>(byte ^ 0x80u); });
    }
};

void bench(const cml::BenchArgs& args, cml::BenchReport& report)
{
    const int n = int(args.size ? args.size : kDefaultSize);
    std::vector<Instance> instances = cml::make_instances<Instance>(n);
    report.problem = "n = " + std::to_string(n) + " bytes of text, each read once; " + contention(instances[0].want);

    auto kernel = [&](std::string name, std::string role, void (*launcher)(const unsigned char*, unsigned*, int),
                      bool attempted) {
        cml::KernelUnderTest k;
        k.name = std::move(name);
        k.role = std::move(role);
        k.attempted = attempted;
        k.refresh = [&](int i) { instances[i].refresh(); };
        k.prepare = [&](int i) { instances[i].bins.poison(); };
        k.launch = [&, launcher](int i) { launcher(instances[i].data.data(), instances[i].bins.data(), n); };
        k.verify = [&](int i) { return compare_bins(instances[i].bins.download(), instances[i].want); };
        k.restore_inputs = [&](int i) { return cml::restore_changed(instances[i].data); };
        k.bytes = double(n);
        return k;
    };
    report.run(kernel("one global atomicAdd per byte", "baseline", histogram_global_atomics, true), args);
    report.run(kernel("histogram", "student", histogram, true), args);
    report.run(kernel("histogram_per_warp", "stretch", histogram_per_warp, histogram_per_warp_attempted), args);
}

}  // namespace

int main(int argc, char** argv) { return cml::bench_main(argc, argv, "11_histogram_atomics", bench); }
