// Lab 12 benchmark. Napkin math:
//   A: a gather of 4M outputs, each the sum of kTaps = 8 entries of a 1M-float table (4 MB, which the L2 holds:
//      each entry is read 32 times over): per output 8 index reads and 1 write of 4 bytes from DRAM, the table's
//      reads from the caches. Your kernel against the same loop by plain loads the compiler cannot prove read-only.
//   B: a 4096 x 4096 image rotated by 30 degrees into a 4096 x 4096 output: per output pixel 1 write of 4 bytes,
//      the four texels it blends from the caches (neighbouring pixels share them), so the image is read about
//      once. Your texture fetch against the interpolation by hand from global memory.
// --size N: Part A has N outputs, Part B images of sqrt(N) x sqrt(N). set_image runs before each of your Part B
// launches, outside the timed region (it copies the image into a CUDA array, which a resample then reads many
// times).
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "baseline.hpp"
#include "cml/bench.hpp"
#include "cml/device_buffer.hpp"
#include "cml/random.hpp"
#include "cml/spot_check.hpp"
#include "readonly_texture.hpp"
#include "reference.hpp"

namespace {

constexpr long long kDefaultOutputs = 1LL << 22;
constexpr int kTableEntries = 1 << 20;
constexpr int kDefaultSide = 4096;
constexpr double kDegrees = 30.0;
const std::string kGather = "A: gather";  // group names, as grader/targets/h100.toml names them
const std::string kResample = "B: resample";

// Part A, one instance: the table, the indices, the sums.
struct Gather {
    cml::BenchInput<float> table;
    cml::BenchInput<int> index;
    cml::DeviceBuffer<float> out;
    std::vector<double> want;
    double tolerance;

    std::vector<std::size_t> refreshed;  // the outputs the last refresh changed

    explicit Gather(int n)
        : table("table", cml::random_floats(kTableEntries)), index("index", random_indices(std::size_t(n), kTableEntries)),
          out(std::size_t(n)), want(gather_reference(table.host(), index.host())), tolerance(gather_error_bound(table.host()))
    {
    }
    std::string restore_inputs() { return cml::restore_changed(table, index); }

    // Before every launch (cml/instances.hpp): a few indices moved half the table on, to another random entry.
    void refresh()
    {
        const std::vector<std::size_t> moved =
            cml::draw_positions(index.size(), cml::kRefreshed, [](std::size_t) { return true; });
        index.change(moved, [](int entry) { return (entry + kTableEntries / 2) % kTableEntries; });
        refreshed.clear();
        for (std::size_t j : moved) {
            const std::size_t i = j / kTaps;
            double sum = 0.0;
            for (int k = 0; k < kTaps; ++k) sum += table.host()[std::size_t(index.host()[i * kTaps + k])];
            want[i] = sum;
            refreshed.push_back(i);
        }
    }
};

// Part B, one instance: the image, the resampled output.
struct Resample {
    Image picture;  // the host's copy the reference reads, kept equal to image's
    cml::BenchInput<float> image;
    int side;
    Transform t = rotation(kDegrees, 1.0);
    cml::DeviceBuffer<float> out;
    std::vector<double> want;
    double tolerance;

    std::vector<std::size_t> refreshed;  // the outputs the last refresh changed

    explicit Resample(int side_)
        : picture(random_image(side_, side_)), image("image", picture.pixels), side(side_),
          out(std::size_t(side_) * std::size_t(side_)), want(resample_reference(picture, side, side, t)),
          tolerance(resample_error_bound(1.0, 1.0, side, side, side, side, t))
    {
    }
    std::string restore_inputs() { return cml::restore_changed(image); }

    // Before every launch: the texel under a few output pixels turned to 1 - v (the values stay in [0, 1], and
    // so does the tolerance), and every output within reach of it computed again. Only pixels whose source point
    // lies 2 texels or more inside the image are drawn: an edge texel is also what every point past that edge
    // is clamped to, far away. At scale 1 an inner texel is blended into outputs less than 2 pixels from its own.
    void refresh()
    {
        constexpr int kReach = 3;
        const auto inside = [this](std::size_t o) {
            const float2 p = source_point(t, int(o % side), int(o / side), side, side, side, side);
            return p.x >= 2.0f && p.y >= 2.0f && p.x <= float(side) - 2.0f && p.y <= float(side) - 2.0f;
        };
        const std::vector<std::size_t> at = cml::draw_positions(out.size(), cml::kRefreshed, inside);
        std::vector<std::size_t> texels;
        for (std::size_t o : at) {
            const float2 p = source_point(t, int(o % side), int(o / side), side, side, side, side);
            texels.push_back(std::size_t(p.y) * std::size_t(side) + std::size_t(p.x));
        }
        image.change(texels, [](float v) { return 1.0f - v; });
        for (std::size_t texel : texels) picture.pixels[texel] = image.host()[texel];
        refreshed.clear();
        for (std::size_t o : at) {
            const int x = int(o % side), y = int(o / side);
            for (int yy = std::max(0, y - kReach); yy <= std::min(side - 1, y + kReach); ++yy) {
                for (int xx = std::max(0, x - kReach); xx <= std::min(side - 1, x + kReach); ++xx) {
                    const std::size_t near = std::size_t(yy) * std::size_t(side) + std::size_t(xx);
                    want[near] = resample_reference_at(picture, xx, yy, side, side, t);
                    refreshed.push_back(near);
                }
            }
        }
    }
};

template <class Part>
cml::KernelUnderTest entry(std::string name, std::string role, const std::string& group, std::vector<Part>& parts,
                           std::function<void(const Part&)> load, std::function<void(Part&)> launch, double bytes)
{
    cml::KernelUnderTest k;
    k.name = std::move(name);
    k.role = std::move(role);
    k.group = group;
    k.refresh = [&parts](int i) { parts[i].refresh(); };
    k.prepare = [&parts, load](int i) {
        parts[i].out.poison();
        if (load) load(parts[i]);
    };
    k.launch = [&parts, launch](int i) { launch(parts[i]); };
    k.verify = [&parts](int i) { return cml::compare(parts[i].out, parts[i].want, {0.0, parts[i].tolerance}); };
    k.spot_check = [&parts](int i) {
        return cml::spot_check(parts[i].out, parts[i].want, {0.0, parts[i].tolerance}, parts[i].refreshed);
    };
    k.restore_inputs = [&parts](int i) { return parts[i].restore_inputs(); };
    k.bytes = bytes;
    return k;
}

void bench(const cml::BenchArgs& args, cml::BenchReport& report)
{
    const int n = int(args.size ? args.size : kDefaultOutputs);
    const int side = args.size ? std::max(1, int(std::sqrt(double(args.size)))) : kDefaultSide;
    report.problem = "A: n = " + std::to_string(n) + " outputs of " + std::to_string(kTaps) + " entries of a " +
                     std::to_string(kTableEntries) + "-float table; B: " + std::to_string(side) + " x " +
                     std::to_string(side) + " rotated by " + std::to_string(int(kDegrees)) + " degrees";

    std::vector<Gather> gathers = cml::make_instances<Gather>(n);
    std::vector<Resample> resamples = cml::make_instances<Resample>(side);
    const double gather_bytes = double(n) * (kTaps + 1) * 4.0;  // the indices read, the sums written
    const double resample_bytes = 2.0 * double(side) * side * 4.0;  // the image read once, the output written

    auto plain = [n](Gather& g) { gather_plain(g.table.data(), g.index.data(), g.out.data(), n); };
    auto student_gather = [n](Gather& g) { gather(g.table.data(), g.index.data(), g.out.data(), n); };
    report.run(entry<Gather>("plain loads", "baseline", kGather, gathers, nullptr, plain, gather_bytes), args);
    report.run(entry<Gather>("gather", "student", kGather, gathers, nullptr, student_gather, gather_bytes), args);

    auto by_hand = [side](Resample& r) {
        resample_by_hand(r.image.data(), side, side, r.out.data(), side, side, r.t);
    };
    auto load_image = [side](const Resample& r) { set_image(r.image.data(), side, side); };
    auto student_resample = [side](Resample& r) { resample(r.out.data(), side, side, r.t); };
    report.run(entry<Resample>("interpolation by hand", "baseline", kResample, resamples, nullptr, by_hand,
                               resample_bytes),
               args);
    report.run(entry<Resample>("resample", "student", kResample, resamples, load_image, student_resample,
                               resample_bytes),
               args);
}

}  // namespace

int main(int argc, char** argv) { return cml::bench_main(argc, argv, "12_readonly_texture", bench); }
