// The instances of a benchmark's problem: each kernel runs over kInstances of them, each with its own random
// inputs (drawn from the run's seed), its own outputs and its own expected result, so that pointers repeat
// only by chance and a cache keyed on the inputs' contents meets data it has not seen.
//
// Two instances with fixed inputs would still let a kernel keep each one's result from an earlier launch and
// copy it back (on an H100, a naive GEMM that did so measured x3.42 over the naive kernel, honestly x0.91).
// So before every launch the frame has the lab refresh the drawn instance (KernelUnderTest::refresh): a few of
// its inputs, at places drawn with the machine's entropy, change on the host and the device alike, with the
// expected values they touch, and the look at that launch includes the outputs they touch.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <future>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cml/device_buffer.hpp"
#include "cml/random.hpp"
#include "cml/read_back.hpp"

namespace cml {

// Two instances: no pointer or input is the same from one launch to the next more than half the time, and
// each instance costs its problem's host memory again (the largest benchmark, Lab 5's, holds ~3 GB with two).
constexpr int kInstances = 2;

// Runs work(i) for every instance i at once, one thread each, and waits for all: the instances' random
// inputs and CPU references, independent of each other, are most of a benchmark's setup. Instance i draws
// from its own RandomStream, so what it holds depends on the run's seed and i alone.
inline void for_each_instance(int count, const std::function<void(int)>& work)
{
    std::vector<std::future<void>> running;
    for (int i = 0; i < count; ++i) {
        running.push_back(std::async(std::launch::async, [&work, i] {
            const RandomStream stream{std::uint64_t(i)};
            work(i);
        }));
    }
    for (std::future<void>& done : running) done.get();  // rethrows what a thread threw
}

// kInstances instances of a lab's problem, each built as Instance(args...).
template <class Instance, class... Args>
std::vector<Instance> make_instances(const Args&... args)
{
    std::vector<std::optional<Instance>> built(kInstances);
    for_each_instance(kInstances, [&](int i) { built[std::size_t(i)].emplace(args...); });
    std::vector<Instance> instances;
    instances.reserve(kInstances);
    for (std::optional<Instance>& instance : built) instances.push_back(std::move(*instance));
    return instances;
}

// An input of one instance: uploaded once, its host copy kept (the CPU reference reads it too), so that after
// a kernel's launches the frame can tell whether the kernel wrote to it. A kernel that zeroes its inputs can
// make a wrong result look right.
template <class T>
class BenchInput {
public:
    BenchInput(std::string name, std::vector<T> values) : name_(std::move(name)), host_(std::move(values)), device_(host_) {}

    const T* data() const { return device_.data(); }
    const std::vector<T>& host() const { return host_; }
    std::size_t size() const { return host_.size(); }

    // host[j] = change(host[j]) at every position j, and the same values on the device: what the frame compares
    // the device copy with afterwards stays what was uploaded. One copy per run of consecutive positions, so
    // a whole row costs one.
    template <class Change>
    void change(std::vector<std::size_t> positions, Change change)
    {
        std::sort(positions.begin(), positions.end());
        positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
        for (std::size_t begin = 0; begin < positions.size();) {
            std::size_t end = begin + 1;
            while (end < positions.size() && positions[end] == positions[end - 1] + 1) ++end;
            for (std::size_t p = begin; p < end; ++p) host_[positions[p]] = change(host_[positions[p]]);
            const std::size_t first = positions[begin], count = end - begin;
            CML_CHECK(cudaMemcpy(device_.data() + first, host_.data() + first, count * sizeof(T), cudaMemcpyHostToDevice));
            begin = end;
        }
    }

    // "" when the device copy still holds what was uploaded; otherwise where it first differs, after
    // uploading it again so that the next kernel gets the input it expects.
    std::string restore_if_changed()
    {
        std::size_t first = 0;
        T now{};
        if (!first_difference(device_, host_, first, now)) return "";
        device_.upload(host_);
        std::ostringstream out;
        out.precision(9);
        out << name_ << "[" << first << "] is " << now << " where " << host_[first] << " was uploaded";
        return out.str();
    }

private:
    std::string name_;
    std::vector<T> host_;
    DeviceBuffer<T> device_;
};

// How many inputs a refresh changes, where a lab changes single elements: each moves its output far beyond
// the tolerance, so one would do; several make a lucky miss of the look at them impossible in practice.
constexpr std::size_t kRefreshed = 16;

// A generator seeded with the machine's entropy, not the run's seed, for the refreshes of every lab.
inline std::mt19937_64& refresh_generator()
{
    static std::mt19937_64 generator{std::random_device{}()};
    return generator;
}

// Up to `count` distinct positions in [0, n) where accept(position) holds, drawn with the machine's entropy (as
// the instance a launch takes is: a kernel cannot foresee them from the run's seed); fewer where few qualify.
template <class Accept>
std::vector<std::size_t> draw_positions(std::size_t n, std::size_t count, Accept accept)
{
    std::set<std::size_t> drawn;
    if (n == 0) return {};
    std::uniform_int_distribution<std::size_t> place(0, n - 1);
    for (std::size_t tries = 0; drawn.size() < count && tries < 64 * count; ++tries) {
        const std::size_t position = place(refresh_generator());
        if (accept(position)) drawn.insert(position);
    }
    return {drawn.begin(), drawn.end()};
}

// true or false with even odds, from the same entropy: which way a refresh turns its inputs.
inline bool draw_coin() { return std::bernoulli_distribution(0.5)(refresh_generator()); }

// Negates `input` at up to kRefreshed positions j drawn where accept(j) holds, and returns them: a lab's
// refresh of inputs that are symmetric about 0. A negation is exact and keeps every magnitude, so the
// tolerances derived from the inputs' magnitudes still hold.
template <class Accept>
std::vector<std::size_t> negate_some(BenchInput<float>& input, Accept accept)
{
    std::vector<std::size_t> at = draw_positions(input.size(), kRefreshed, accept);
    input.change(at, [](float value) { return -value; });
    return at;
}

// restore_if_changed() of each input, in one line: "" when none changed.
template <class... Inputs>
std::string restore_changed(Inputs&... inputs)
{
    std::string changed;
    for (const std::string& what : {inputs.restore_if_changed()...}) {
        if (what.empty()) continue;
        changed += (changed.empty() ? "" : "; ") + what;
    }
    return changed;
}

}  // namespace cml
