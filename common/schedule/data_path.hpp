// The pinned check's rule for a call that moves its data by copies (Parts A and B of Lab 10): the data followed
// from the caller's input, through pinned memory, to the device buffer a kernel is given, and from the device
// buffer a kernel is given back to the caller's output. The same rule on the CPU emulator
// (common/emu/src/schedule.cpp) and on a GPU (cupti_recorder.cpp): each maker resolves an address to what holds
// it and tells this class, in the order the program made its calls; the bytes it compares are the program's own,
// read in its process.
//
// In: a copy to the GPU carries the caller's input where its host side is the caller's `in`, or other host
// memory whose bytes, as the copy is issued, are the input's at the same place: its offset in the pinned buffer
// that holds it, or its offset in the device buffer it fills (a staging buffer of the whole array, or of one
// chunk). Those bytes reach a kernel when a kernel issued after the copy, in the call, is given a pointer into the
// device buffer the copy filled (a __device__ or __constant__ variable: every kernel after it).
//
// Out: a copy to the host carries a kernel's output where a kernel issued before it, in the call, was given a
// pointer into the device buffer it reads. Those bytes reach the caller where the copy's host side is the
// caller's `out`, or other host memory whose bytes, once the host learned the copy was done (or, failing that,
// when the memory is released or the call ends), are in `out` at the same place (as above) when the call ends.
//
// Every byte of the input must reach a kernel so, and every byte of the output come back so. Copies that carry
// other bytes (decoys: the input to a buffer no kernel is given, and back) count for nothing. And no kernel of
// the call may reach host memory itself: given a pointer into pinned, mapped or the caller's memory, or launched
// where the call mapped host memory for the GPU (the zero-copy stretch's way, which these parts do not teach).
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "findings.hpp"

namespace cml::schedule {

class DataPath {
public:
    static constexpr std::uintptr_t kEveryKernel = 0;  // a __device__ or __constant__ variable: no pointer needed
    static constexpr std::size_t kNotPinned = SIZE_MAX;

    // The device side of a copy: the allocation that holds it (by its start), and the copy's offset there.
    struct Device {
        std::uintptr_t allocation = kEveryKernel;
        std::size_t offset = 0;
    };
    // The host side: where, and its offset in the pinned buffer that holds it (kNotPinned: none does).
    struct Host {
        const void* at = nullptr;
        std::size_t pinned_offset = kNotPinned;
    };

    explicit DataPath(const CallMark& mark) : mark_(mark) {}

    void copied_to_device(Host from, Device to, std::size_t bytes);
    void copied_to_host(Device from, Host to, std::size_t bytes);
    // A launch, given pointers into these device allocations; `reaches_host`: given a pointer into host memory,
    // or launched while host memory was mapped for the GPU.
    void kernel(const std::set<std::uintptr_t>& allocations, bool reaches_host);
    void host_memory_mapped() { mapped_ = true; }  // cudaHostGetDevicePointer, or a mapped flag, in the call
    // The host learned that the copies to [start, start + bytes) are done: what they brought is there now.
    void arrived(const void* start, std::size_t bytes);
    // [start, start + bytes) of host memory is about to be freed or unpinned: what copies brought there and the
    // host never learned of is taken as it is now, while it is there.
    void releasing(const void* start, std::size_t bytes) { arrived(start, bytes); }
    // At the call's end: the findings of the pinned aspect, where the call expects pinned copies.
    std::vector<std::string> returned();

private:
    using Span = std::pair<std::size_t, std::size_t>;  // [from, to) of the caller's buffer
    struct Copy {
        std::size_t index;  // its place among the call's copies and launches
        std::uintptr_t allocation;
        std::vector<Span> carried;  // the caller's bytes it carries, where it carries any
    };
    struct Staged {  // a copy to host memory other than the caller's out: what it brought, to be found in out
        std::size_t copy;  // in outs_
        const unsigned char* at;
        std::size_t bytes;
        std::vector<std::size_t> places;  // where in out its bytes may belong
        bool arrived = false;
        std::size_t digest = 0;  // of the bytes it brought, once arrived
    };
    // The span of the caller's buffer [base, base + size) that `bytes` at `places` match, where one does.
    static std::vector<Span> matching(const unsigned char* at, std::size_t bytes, const unsigned char* base,
                                      std::size_t size, const std::vector<std::size_t>& places);
    static std::vector<std::size_t> places(Host host, Device device);
    static std::size_t digest(const unsigned char* at, std::size_t bytes);
    // A kernel given a pointer into `allocation` was launched after the copy `copy` (or, not `after`, before it).
    bool kernel_given(std::uintptr_t allocation, std::size_t copy, bool after) const;
    static std::size_t covered(std::vector<Span> spans);

    CallMark mark_;
    std::size_t next_ = 0;
    std::vector<Copy> ins_, outs_;
    std::vector<Staged> staged_;
    std::vector<std::pair<std::size_t, std::set<std::uintptr_t>>> kernels_;  // (index, allocations)
    bool reached_host_ = false, mapped_ = false;
};

}  // namespace cml::schedule
