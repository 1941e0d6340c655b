#include "data_path.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <string_view>

namespace cml::schedule {
namespace {

const unsigned char* bytes_at(std::uintptr_t address) { return reinterpret_cast<const unsigned char*>(address); }

// The part of [at, at + bytes) inside [base, base + size), as offsets into the latter.
std::vector<std::pair<std::size_t, std::size_t>> inside(const unsigned char* at, std::size_t bytes,
                                                        const unsigned char* base, std::size_t size)
{
    const auto from = std::uintptr_t(at), to = from + bytes;
    const auto start = std::uintptr_t(base), end = start + size;
    if (size == 0 || to <= start || from >= end) return {};
    return {{std::max(from, start) - start, std::min(to, end) - start}};
}

}  // namespace

std::vector<std::size_t> DataPath::places(Host host, Device device)
{
    std::vector<std::size_t> at = {device.offset};
    if (host.pinned_offset != kNotPinned && host.pinned_offset != device.offset) at.push_back(host.pinned_offset);
    return at;
}

std::vector<DataPath::Span> DataPath::matching(const unsigned char* at, std::size_t bytes, const unsigned char* base,
                                               std::size_t size, const std::vector<std::size_t>& places)
{
    for (std::size_t place : places)
        if (bytes > 0 && place <= size && bytes <= size - place && std::memcmp(at, base + place, bytes) == 0)
            return {{place, place + bytes}};
    return {};
}

void DataPath::copied_to_device(Host from, Device to, std::size_t bytes)
{
    const auto* at = static_cast<const unsigned char*>(from.at);
    const unsigned char* in = bytes_at(mark_.in);
    std::vector<Span> carried = inside(at, bytes, in, mark_.bytes_in);
    if (carried.empty() && mark_.in != 0) carried = matching(at, bytes, in, mark_.bytes_in, places(from, to));
    ins_.push_back(Copy{next_++, to.allocation, carried});
}

void DataPath::copied_to_host(Device from, Host to, std::size_t bytes)
{
    const auto* at = static_cast<const unsigned char*>(to.at);
    std::vector<Span> carried = inside(at, bytes, bytes_at(mark_.out), mark_.bytes_out);
    outs_.push_back(Copy{next_++, from.allocation, carried});
    if (carried.empty() && mark_.out != 0) staged_.push_back(Staged{outs_.size() - 1, at, bytes, places(to, from)});
}

std::size_t DataPath::digest(const unsigned char* at, std::size_t bytes)
{
    return std::hash<std::string_view>{}(std::string_view(reinterpret_cast<const char*>(at), bytes));
}

void DataPath::kernel(const std::set<std::uintptr_t>& allocations, bool reaches_host)
{
    kernels_.emplace_back(next_++, allocations);
    reached_host_ |= reaches_host || mapped_;
}

void DataPath::arrived(const void* start, std::size_t bytes)
{
    const auto from = std::uintptr_t(start), to = from + bytes;
    for (Staged& s : staged_) {
        const auto at = std::uintptr_t(s.at);
        if (s.arrived || at < from || at + s.bytes > to) continue;
        s.digest = digest(s.at, s.bytes);
        s.arrived = true;
    }
}

bool DataPath::kernel_given(std::uintptr_t allocation, std::size_t copy, bool after) const
{
    for (const auto& [index, given] : kernels_)
        if ((after ? index > copy : index < copy) && (allocation == kEveryKernel || given.count(allocation)))
            return true;
    return false;
}

std::size_t DataPath::covered(std::vector<Span> spans)
{
    std::sort(spans.begin(), spans.end());
    std::size_t total = 0, reached = 0;
    for (const auto& [from, to] : spans) {
        const std::size_t start = std::max(from, reached);
        if (to > start) total += to - start;
        reached = std::max(reached, to);
    }
    return total;
}

std::vector<std::string> DataPath::returned()
{
    const unsigned char* output = bytes_at(mark_.out);
    for (Staged& s : staged_) {
        if (!s.arrived) s.digest = digest(s.at, s.bytes);
        for (std::size_t place : s.places)
            if (place <= mark_.bytes_out && s.bytes <= mark_.bytes_out - place && digest(output + place, s.bytes) == s.digest) {
                outs_[s.copy].carried = {{place, place + s.bytes}};
                break;
            }
    }
    staged_.clear();
    std::vector<std::string> found;
    if (!mark_.expects_pinned) return found;
    const std::string& name = mark_.name;
    if (reached_host_) found.push_back(kernel_reached_host(name));
    std::vector<Span> in, out;
    for (const Copy& c : ins_)
        if (kernel_given(c.allocation, c.index, true)) in.insert(in.end(), c.carried.begin(), c.carried.end());
    for (const Copy& c : outs_)
        if (kernel_given(c.allocation, c.index, false)) out.insert(out.end(), c.carried.begin(), c.carried.end());
    const std::size_t reached_in = covered(in), reached_out = covered(out);
    if (reached_in < mark_.bytes_in) found.push_back(not_copied(name, false, reached_in == 0));
    if (reached_out < mark_.bytes_out) found.push_back(not_copied(name, true, reached_out == 0));
    return found;
}

}  // namespace cml::schedule
