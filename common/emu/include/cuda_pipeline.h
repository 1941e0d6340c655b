// cp.async on the CPU emulator: CUDA's pipeline primitives (__pipeline_memcpy_async, __pipeline_commit,
// __pipeline_wait_prior). The copy is made at once, by the thread that issues it, so commit and wait only
// order what is already done. Its loads and stores are this thread's own accesses, seen by memcheck, racecheck
// and the counters as the kernel's: a thread that reads another's slots after the wait, with no barrier
// between, is a race here as on a GPU (the wait covers the calling thread's copies only).
// Not here: cuda::memcpy_async and cuda::pipeline (<cuda/pipeline>), whose barrier objects this emulator lacks.
#pragma once

#include <cstddef>
#include <cstdint>

// No builtins: the copy loop must stay loads and stores the emulator sees, never a call to memcpy. That keeps
// clang from inlining it into a kernel, so it is static: a local helper of each file, as a kernel.cu's own are.
__attribute__((no_builtin("memcpy", "memset"))) static inline void __pipeline_memcpy_async(
    void* __restrict__ dst_shared, const void* __restrict__ src_global, std::size_t size_and_align,
    std::size_t zfill = 0)
{
    // A GPU copies size_and_align - zfill bytes and writes zeros over the rest: in 4-byte words where the sizes
    // allow, as a kernel's float copy would be made, or else byte by byte.
    const std::size_t copied = zfill < size_and_align ? size_and_align - zfill : 0;
    if (copied % 4 == 0 && size_and_align % 4 == 0) {
        auto* to = static_cast<std::uint32_t*>(dst_shared);
        const auto* from = static_cast<const std::uint32_t*>(src_global);
        for (std::size_t w = 0; w < size_and_align / 4; ++w) to[w] = w < copied / 4 ? from[w] : 0u;
        return;
    }
    auto* to = static_cast<unsigned char*>(dst_shared);
    const auto* from = static_cast<const unsigned char*>(src_global);
    for (std::size_t i = 0; i < size_and_align; ++i) to[i] = i < copied ? from[i] : 0;
}

// Each copy has landed when it returns: the batches that commit groups and wait_prior awaits are all complete.
inline void __pipeline_commit() {}
inline void __pipeline_wait_prior(std::size_t) {}
