// The instances of a benchmark's problem: each kernel runs over kInstances of them, each with its own random
// inputs (drawn from the run's seed), its own outputs and its own expected result, so that pointers repeat
// only by chance and a cache keyed on the inputs' contents meets data it has not seen.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <future>
#include <optional>
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
// make a wrong result look right (/work/shared/research/grader-attacks.md, #5).
template <class T>
class BenchInput {
public:
    BenchInput(std::string name, std::vector<T> values) : name_(std::move(name)), host_(std::move(values)), device_(host_) {}

    const T* data() const { return device_.data(); }
    const std::vector<T>& host() const { return host_; }
    std::size_t size() const { return host_.size(); }

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
