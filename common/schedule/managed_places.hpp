// Where the pages of each managed allocation are, as the prefetches and the kernels move them in the order of
// order.hpp: the prefetched aspect's rules, the same on the CPU emulator (common/emu/src/schedule.cpp) and on a
// GPU (cupti_recorder.cpp, beside the GPU's own count of its page faults).
//
// An allocation is the GPU's for a kernel once one prefetch to the device covered all of it, ordered before the
// kernel, or once a kernel faulted it in; it is the host's again once any of it was prefetched to the host. A
// kernel is taken to touch every allocation it is given a pointer into (its arguments are read, not its accesses).
// The host's own reads are not seen: the results the host read are the allocation, given to a kernel, whose bytes
// the caller's output holds when it is freed, and those must have come back by a prefetch to the host ordered
// after the last kernel given them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "order.hpp"

namespace cml::schedule {

class ManagedPlaces {
public:
    void allocated(std::uintptr_t start, std::size_t bytes)
    {
        pages_[start] = Pages{};
        pages_[start].bytes = bytes;
    }
    bool holds(std::uintptr_t address) const { return find(address) != nullptr; }
    // A launch at `step`, given these argument words: true where one points into an allocation whose pages were
    // not the GPU's for it (a page fault), which are the GPU's from then on.
    bool kernel(const std::vector<std::uintptr_t>& words, const Step& step, const Order& order);
    // cudaMemPrefetchAsync of [start, start + bytes), at `step`.
    void prefetched(std::uintptr_t start, std::size_t bytes, bool to_device, const Step& step);
    // cudaFree of the allocation at `start`, before it is freed: true where its bytes are the results the host
    // read (the caller's `out` of `out_bytes` holds them) and no prefetch to the host after the last kernel given
    // it brought them back.
    bool freed_unprefetched(std::uintptr_t start, const void* out, std::size_t out_bytes, const Order& order);
    // The same of every allocation still alive, as a call returns: the results it read from one it keeps.
    bool alive_unprefetched(const void* out, std::size_t out_bytes, const Order& order) const;

private:
    struct Pages {
        std::size_t bytes = 0;
        std::optional<Step> placed;  // the prefetch or the kernel that last moved them
        bool on_device = false;
        bool by_kernel = false;
        std::optional<Step> last_kernel;
    };
    Pages* find(std::uintptr_t address, std::uintptr_t* start = nullptr);
    static bool unprefetched(std::uintptr_t start, const Pages& pages, const void* out, std::size_t out_bytes,
                             const Order& order);
    const Pages* find(std::uintptr_t address) const { return const_cast<ManagedPlaces*>(this)->find(address); }

    std::map<std::uintptr_t, Pages> pages_;  // by start
};

}  // namespace cml::schedule
