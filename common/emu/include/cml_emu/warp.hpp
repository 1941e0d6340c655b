// Warp-level functions on the CPU emulator: __syncwarp, shuffles, votes, matches and reductions over the lanes
// a mask names, each waiting for those lanes (src/block_threads.cpp), and __activemask(): the lanes that reached
// the same call site together, once no other thread of the block can run.
#pragma once

#include <cstdint>
#include <cstring>

#include "cml_emu/device.hpp"

#if __has_builtin(__builtin_COLUMN)
#define CML_EMU_COLUMN __builtin_COLUMN()
#else
#define CML_EMU_COLUMN 0u  // the emulator's own files, compiled by a compiler without it, never call it
#endif

inline void __syncwarp(unsigned mask = 0xffffffffu) { cml_emu::warp_collective(cml_emu::WarpOp::sync, mask, 0, 0, 32); }
// The lanes that reached this call site together. The site is where the kernel calls it (the defaults are the
// caller's), so that a compiler that merges the calls of two branches into one still leaves them apart.
unsigned __activemask(unsigned line = __builtin_LINE(), unsigned column = CML_EMU_COLUMN,
                      const char* file = __builtin_FILE());

inline unsigned __ballot_sync(unsigned mask, int predicate)
{
    return unsigned(cml_emu::warp_collective(cml_emu::WarpOp::ballot, mask, predicate != 0, 0, 32));
}
inline int __any_sync(unsigned mask, int predicate)
{
    return int(cml_emu::warp_collective(cml_emu::WarpOp::any, mask, predicate != 0, 0, 32));
}
inline int __all_sync(unsigned mask, int predicate)
{
    return int(cml_emu::warp_collective(cml_emu::WarpOp::all, mask, predicate != 0, 0, 32));
}
// Whether the predicate is the same in every lane of the mask.
inline int __uni_sync(unsigned mask, int predicate)
{
    const int all = __all_sync(mask, predicate);
    return all || !__any_sync(mask, predicate);
}

template <class T>
T __shfl_sync(unsigned mask, T value, int source_lane, int width = warpSize)
{
    return cml_emu::shuffle(cml_emu::WarpOp::shfl, mask, value, source_lane, width);
}
template <class T>
T __shfl_up_sync(unsigned mask, T value, unsigned delta, int width = warpSize)
{
    return cml_emu::shuffle(cml_emu::WarpOp::shfl_up, mask, value, int(delta), width);
}
template <class T>
T __shfl_down_sync(unsigned mask, T value, unsigned delta, int width = warpSize)
{
    return cml_emu::shuffle(cml_emu::WarpOp::shfl_down, mask, value, int(delta), width);
}
template <class T>
T __shfl_xor_sync(unsigned mask, T value, int lane_mask, int width = warpSize)
{
    return cml_emu::shuffle(cml_emu::WarpOp::shfl_xor, mask, value, lane_mask, width);
}

// __match_any_sync and __match_all_sync compare the values' bits, of 4 or 8 bytes (int, unsigned, long, long
// long and their unsigned, float, double).
namespace cml_emu {
template <class T>
std::uint64_t bits_of(T value)
{
    static_assert(sizeof(T) <= 8, "a value of up to 8 bytes");
    std::uint64_t bits = 0;
    std::memcpy(&bits, &value, sizeof(T));
    return bits;
}
}  // namespace cml_emu

template <class T>
unsigned __match_any_sync(unsigned mask, T value)
{
    return unsigned(cml_emu::warp_collective(cml_emu::WarpOp::match_any, mask, cml_emu::bits_of(value), 0, 32));
}
template <class T>
unsigned __match_all_sync(unsigned mask, T value, int* predicate)
{
    const auto same = unsigned(cml_emu::warp_collective(cml_emu::WarpOp::match_all, mask, cml_emu::bits_of(value), 0, 32));
    *predicate = same != 0;
    return same;
}

#define CML_EMU_WARP_REDUCE(name, T, op)                                                                     \
    inline T name(unsigned mask, T value)                                                                    \
    {                                                                                                        \
        return T(std::uint32_t(cml_emu::warp_collective(cml_emu::WarpOp::op, mask, std::uint32_t(value), 0, 32))); \
    }
CML_EMU_WARP_REDUCE(__reduce_add_sync, int, reduce_add)
CML_EMU_WARP_REDUCE(__reduce_add_sync, unsigned, reduce_add)
CML_EMU_WARP_REDUCE(__reduce_min_sync, int, reduce_min)
CML_EMU_WARP_REDUCE(__reduce_min_sync, unsigned, reduce_umin)
CML_EMU_WARP_REDUCE(__reduce_max_sync, int, reduce_max)
CML_EMU_WARP_REDUCE(__reduce_max_sync, unsigned, reduce_umax)
CML_EMU_WARP_REDUCE(__reduce_and_sync, unsigned, reduce_and)
CML_EMU_WARP_REDUCE(__reduce_or_sync, unsigned, reduce_or)
CML_EMU_WARP_REDUCE(__reduce_xor_sync, unsigned, reduce_xor)
#undef CML_EMU_WARP_REDUCE

// The position of the offset-th set bit of mask, counted from base towards the high bits (offset > 0) or the
// low ones (offset < 0); 0xffffffff where there is none (PTX's fns).
inline unsigned __fns(unsigned mask, unsigned base, int offset)
{
    if (offset == 0) return mask >> (base & 31u) & 1u ? base : 0xffffffffu;
    int count = (offset > 0 ? offset : -offset) - 1;
    for (int position = int(base); position >= 0 && position < 32; position += offset > 0 ? 1 : -1) {
        if (!(mask >> position & 1u)) continue;
        if (count-- == 0) return unsigned(position);
    }
    return 0xffffffffu;
}
