// cg::memcpy_async on the CPU emulator: a copy that the group's threads share, each its own words of it, made
// when the group waits for it (cg::wait, cg::wait_prior<N>): until then the destination holds what it held, as it
// may on a GPU, so a kernel that reads it before the wait fails here. The copy's loads and stores are the
// threads' own accesses, seen by memcheck, racecheck and the counters. The forms with an nvcuda pipeline are
// not emulated.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cooperative_groups.h>

namespace cooperative_groups {

namespace details {

// The thread's share of one copy: 4-byte words where the addresses and size allow, else bytes.
__attribute__((no_builtin("memcpy", "memset"))) static inline void make_copy(const cml_emu::AsyncCopy& copy)
{
    const bool words = (std::uintptr_t(copy.destination) | std::uintptr_t(copy.source) | copy.bytes) % 4 == 0;
    if (words) {
        auto* to = static_cast<std::uint32_t*>(copy.destination);
        const auto* from = static_cast<const std::uint32_t*>(copy.source);
        for (std::size_t w = copy.rank; w < copy.bytes / 4; w += copy.threads) to[w] = from[w];
        return;
    }
    auto* to = static_cast<unsigned char*>(copy.destination);
    const auto* from = static_cast<const unsigned char*>(copy.source);
    for (std::size_t b = copy.rank; b < copy.bytes; b += copy.threads) to[b] = from[b];
}

// Makes the calling thread's copies but the `keep` newest.
static inline void make_copies(std::size_t keep)
{
    for (cml_emu::AsyncCopy copy; cml_emu::next_async_copy(keep, copy);) make_copy(copy);
}

}  // namespace details

// `count` bytes from src to dst (a size_t or a cuda::aligned_size_t).
template <class Group, class T, class Count>
void memcpy_async(const Group& group, T* __restrict__ dst, const T* __restrict__ src, const Count& count)
{
    cml_emu::add_async_copy(cml_emu::AsyncCopy{dst, src, std::size_t(count), unsigned(group.thread_rank()),
                                               unsigned(group.num_threads())});
}
// min(dst_count, src_count) elements of T.
template <class Group, class T, class DstLayout, class SrcLayout>
void memcpy_async(const Group& group, T* __restrict__ dst, const DstLayout& dst_count, const T* __restrict__ src,
                  const SrcLayout& src_count)
{
    const std::size_t elements = std::size_t(dst_count) < std::size_t(src_count) ? std::size_t(dst_count)
                                                                                 : std::size_t(src_count);
    memcpy_async(group, dst, src, elements * sizeof(T));
}

// Every copy of the group's threads made, and the group synced, so each sees the others' words.
template <class Group>
void wait(const Group& group)
{
    details::make_copies(0);
    group.sync();
}
// All but the Stage newest copies made, and the group synced.
template <unsigned Stage, class Group>
void wait_prior(const Group& group)
{
    details::make_copies(Stage);
    group.sync();
}

// The forms with an nvcuda::experimental::pipeline (a sixth argument to memcpy_async, a second to wait_prior).
template <class A, class B, class C, class D, class E, class Pipeline>
CML_EMU_NOT_EMULATED("cooperative_groups::memcpy_async with an nvcuda pipeline")
void memcpy_async(A&&, B&&, C&&, D&&, E&&, Pipeline&&);
template <class Group, class Pipeline>
CML_EMU_NOT_EMULATED("cooperative_groups::wait with an nvcuda pipeline")
void wait(Group&, Pipeline&, std::size_t);
template <unsigned Stage, class Group, class Pipeline>
CML_EMU_NOT_EMULATED("cooperative_groups::wait_prior with an nvcuda pipeline")
void wait_prior(Group&, Pipeline&);

}  // namespace cooperative_groups
