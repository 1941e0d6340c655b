#include "findings.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace cml::schedule {
namespace {

constexpr const char* kPrefix = "=========";
constexpr const char* kCallPrefix = "cml call: ";
constexpr const char* kExpects = "; expects:";
constexpr const char* kPinnedCopies = "pinned copies";
constexpr const char* kBuffers = "; buffers: ";

constexpr const char* kMeasured = "SCHEDULE MEASURED";  // the grader shows the line's text, never grades it

// In whole percent, except that a share above 0 never reads 0%, nor one below all of it 100%.
std::string percent(double fraction)
{
    const long whole = std::lround(fraction * 100);
    if (whole == 0 && fraction > 0) return "under 1%";
    if (whole == 100 && fraction < 1) return "over 99%";
    return std::to_string(whole) + "%";
}

// Nanoseconds in milliseconds, to three significant figures.
std::string milliseconds(unsigned long long ns)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.3g ms", double(ns) / 1e6);
    return text;
}

std::string stream_name(bool default_stream) { return default_stream ? "the default stream" : "a stream of its own"; }

const char* work_name(Work work)
{
    switch (work) {
    case Work::copy_in: return "the copy to the GPU";
    case Work::copy_out: return "the copy to the host";
    default: return "the kernel";
    }
}

}  // namespace

std::optional<CallMark> call_mark(const std::string& message)
{
    const std::string prefix = kCallPrefix;
    if (message.rfind(prefix, 0) != 0) return std::nullopt;
    CallMark mark;
    const std::size_t expects = message.find(kExpects);
    mark.name = message.substr(prefix.size(), expects == std::string::npos ? std::string::npos
                                                                           : expects - prefix.size());
    const std::string wanted = expects == std::string::npos ? "" : message.substr(expects);
    const std::size_t pinned = wanted.find(kPinnedCopies);
    mark.expects_pinned = pinned != std::string::npos;
    if (mark.expects_pinned)
        std::sscanf(wanted.c_str() + pinned + std::strlen(kPinnedCopies), " of %llu bytes in and %llu bytes out",
                    &mark.bytes_in, &mark.bytes_out);
    mark.expects_overlap = wanted.find("2 streams") != std::string::npos;
    mark.expects_prefetched = wanted.find("prefetched") != std::string::npos;
    const std::size_t buffers = wanted.find(kBuffers);
    unsigned long long in = 0, out = 0, in_bytes = 0, out_bytes = 0;
    if (buffers != std::string::npos &&
        std::sscanf(wanted.c_str() + buffers + std::strlen(kBuffers), "in 0x%llx of %llu bytes, out 0x%llx of %llu bytes",
                    &in, &in_bytes, &out, &out_bytes) == 4) {
        mark.in = std::uintptr_t(in);
        mark.out = std::uintptr_t(out);
        mark.bytes_in = in_bytes;
        mark.bytes_out = out_bytes;
    }
    return mark;
}

std::string pageable_copy(const std::string& call, bool to_host, bool async)
{
    return "Schedule error: " + call + " copied " + (to_host ? "to" : "from") + " pageable host memory (" +
           (async ? "cudaMemcpyAsync" : "cudaMemcpy") +
           "): the copy engine reads and writes only pinned memory, so the driver stages it through a small buffer "
           "of its own, a piece at a time";
}

std::string not_copied(const std::string& call, bool to_host, bool none)
{
    const std::string path = to_host ? "from a device buffer its kernel was given, to the caller's out through "
                                       "pinned memory (a copy of other bytes counts for nothing)"
                                     : "from the caller's in through pinned memory, to a device buffer its kernel "
                                       "was then given (a copy of other bytes counts for nothing)";
    return "Schedule error: " + call + " copied " + (none ? "none" : "only part") + " of its " +
           (to_host ? "output back to the host" : "input to the GPU") + ", " + path +
           ": Parts A and B move the data by copies, from pinned memory with cudaMemcpyAsync; a kernel that " +
           (to_host ? "writes" : "reads") + " host memory directly is the zero-copy stretch's, which they do not teach";
}

std::string kernel_reached_host(const std::string& call)
{
    return "Schedule error: " + call +
           " launched a kernel that can reach host memory itself (given a pointer into pinned, mapped or the "
           "caller's memory, or with host memory mapped for the GPU): Parts A and B move the data by copies to "
           "device buffers; zero-copy is the stretch's";
}

std::string arguments_not_read_finding(const std::string& call, const std::string& why)
{
    return "Schedule error: the arguments of a kernel of " + call + " could not be read (" + why +
           "), so the data's path from the caller's input to the kernel and back cannot be followed: not passed";
}

std::string left_queued(const std::string& call, Work work, bool default_stream)
{
    if (work == Work::copy_out)
        return "Race reported between Write access by the copy to the host on " + stream_name(default_stream) +
               " and Read access by the caller of " + call + ", which returned before synchronising that stream";
    return "Schedule error: " + call + " returned with " + work_name(work) + " still queued on " +
           stream_name(default_stream) + ": work left running after the function returns";
}

std::string unordered_copy_back(const std::string& call, bool kernel_first)
{
    const std::string order =
        kernel_first ? "the copy to the host, issued after the kernel, reads bytes the kernel writes"
                     : "the kernel, issued after the copy to the host, writes bytes the copy is still to read";
    return "Race reported between Write access by a kernel and Read access by the copy to the host in " + call +
           ": " + order +
           ", and nothing orders the two (the same stream, or cudaStreamWaitEvent on an event recorded after the "
           "first), so the copy may carry what the bytes held before";
}

std::string read_before_waiting(const std::string& call)
{
    return "Race reported between Write access by the copy to the host and Read access by the host in " + call +
           ", which read the copy's bytes (in pinned memory) before it waited for the copy: the caller's out holds "
           "what that memory held before the copy. Synchronise the copy's stream, or its event, first";
}

std::string stream_left_alive(const std::string& call, bool default_stream)
{
    return "Schedule error: " + call + " returned with " + stream_name(default_stream) +
           " still alive: cudaStreamDestroy every stream you create";
}

std::string event_left_alive(const std::string& call)
{
    return "Schedule error: " + call + " returned with an event it created still alive: "
                                       "cudaEventDestroy every event you create";
}

std::string pinned_left_pinned(const std::string& call)
{
    return "Schedule error: " + call + " returned with host memory it pinned still pinned: "
                                       "cudaFreeHost or cudaHostUnregister what you pin, before you return";
}

std::string managed_left_allocated(const std::string& call)
{
    return "Schedule error: " + call + " returned with managed memory it allocated still allocated: "
                                       "cudaFree what cudaMallocManaged gave you, before you return";
}

std::string device_left_allocated(const std::string& call)
{
    return "Schedule error: " + call + " returned with device memory it allocated still allocated: "
                                       "cudaFree each buffer you cudaMalloc, before you return";
}

std::string never_overlapped(const std::string& call)
{
    return "Schedule error: " + call +
           " never had a copy and a kernel on two streams that could run at the same time: each was waited for, or "
           "ordered after the other (one stream, a synchronise, or a chain of events), before the next was issued. "
           "Each chunk's copies and kernel on its own stream, with nothing between chunks";
}

std::string never_overlapped_on_the_gpu(const std::string& call)
{
    return "Schedule error: no copy of " + call +
           " ran beside a kernel on the GPU, in any of its calls: by the GPU's own times, every copy ran while no "
           "kernel did. Each chunk's copies and kernel on its own stream, with nothing ordering one chunk after "
           "another";
}

std::string page_faulted(const std::string& call)
{
    return "Schedule error: " + call +
           " launched a kernel that took page faults on managed memory: pages it touched were not on the GPU "
           "(not prefetched there, or moved back by advice), and each stopped its warps while the driver moved it "
           "alone. cudaMemPrefetchAsync both buffers to the device before the kernel, on the kernel's stream";
}

std::string not_prefetched_back(const std::string& call)
{
    return "Schedule error: " + call +
           " read the kernel's results from managed memory with no prefetch of them back to the host after the "
           "kernel: each page the host touched took a page fault, and the driver moved it alone. "
           "cudaMemPrefetchAsync the results to the host (cudaMemLocationTypeHost) on the kernel's stream after it, "
           "and synchronise before reading them (TODO 8)";
}

std::string faults_not_measured(const std::string& call, const std::string& why)
{
    return "Schedule error: the page faults of " + call + " were not measured (" + why +
           "), so prefetching cannot be judged: not passed";
}

std::string overlap_figure(const std::vector<CopyTime>& calls)
{
    CopyTime all, longest;
    int copied = 0;
    for (const CopyTime& c : calls) {
        if (c.copying == 0) continue;
        ++copied;
        all.copying += c.copying;
        all.computing += c.computing;
        all.beside += c.beside;
        if (c.copying > longest.copying) longest = c;
    }
    if (copied == 0) return no_overlap_figure("no call that expects two streams copied for any time on the GPU");
    const auto of_copies = [](const CopyTime& c) { return percent(double(c.beside) / double(c.copying)); };
    const auto of_kernels = [](const CopyTime& c) {
        return c.computing ? percent(double(c.beside) / double(c.computing)) : std::string("no kernel");
    };
    const std::string kernels = all.computing ? "kernels beside a copy for " + of_kernels(all) + " of theirs"
                                              : std::string("no kernel ran");
    std::string text = "copies ran beside a kernel for " + of_copies(all) + " of their time on the GPU, " + kernels +
                       " (" + milliseconds(all.copying) + " of copies and " + milliseconds(all.computing) +
                       " of kernels";
    if (copied == 1) return text + " in 1 call)";
    return text + " over " + std::to_string(copied) + " calls; the call that copied longest, " +
           milliseconds(longest.copying) + ": " + of_copies(longest) + " and " + of_kernels(longest) + ")";
}

std::string no_overlap_figure(const std::string& why) { return "no figure for the copies beside kernels: " + why; }

bool Findings::reports(const std::string& aspect) const
{
    return aspects_.empty() || ("," + aspects_ + ",").find("," + aspect + ",") != std::string::npos;
}

void Findings::add(const std::string& aspect, const std::string& text)
{
    if (!reports(aspect)) return;
    for (Found& found : found_)
        if (found.aspect == aspect && found.text == text) {
            ++found.times;
            return;
        }
    found_.push_back(Found{aspect, text, 1});
}

void Findings::measured(const std::string& aspect, const std::string& text)
{
    if (!reports(aspect)) return;
    for (auto& [said_of, said] : measured_)
        if (said_of == aspect) {
            said = text;
            return;
        }
    measured_.emplace_back(aspect, text);
}

unsigned long long Findings::count(const std::string& text) const
{
    unsigned long long times = 0;
    for (const Found& found : found_)
        if (found.text == text) times += found.times;
    return times;
}

std::vector<std::string> Findings::texts() const
{
    std::vector<std::string> texts;
    for (const Found& found : found_)
        if (std::find(texts.begin(), texts.end(), found.text) == texts.end()) texts.push_back(found.text);
    return texts;
}

unsigned long long Findings::print(std::FILE* to, int print_limit) const
{
    for (const char* aspect : {kPinned, kOverlap, kReturned, kPrefetched}) {
        if (!reports(aspect)) continue;
        int shown = 0;
        unsigned long long errors = 0;
        for (const Found& found : found_) {
            if (found.aspect != aspect) continue;
            ++errors;
            if (shown++ >= print_limit) continue;
            std::fprintf(to, "%s %s\n%s     (%llu time%s)\n%s\n", kPrefix, found.text.c_str(), kPrefix,
                         found.times, found.times == 1 ? "" : "s", kPrefix);
        }
        for (const auto& [said_of, said] : measured_)
            if (said_of == aspect) std::fprintf(to, "%s %s (%s): %s\n", kPrefix, kMeasured, aspect, said.c_str());
        std::fprintf(to, "%s SCHEDULE SUMMARY (%s): %llu error%s\n", kPrefix, aspect, errors, errors == 1 ? "" : "s");
    }
    const unsigned long long errors = size();
    std::fprintf(to, "%s SCHEDULE SUMMARY: %llu error%s\n", kPrefix, errors, errors == 1 ? "" : "s");
    return errors;
}

}  // namespace cml::schedule
