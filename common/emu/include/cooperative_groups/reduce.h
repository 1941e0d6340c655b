// cg::reduce and its operators as the CPU emulator provides them (cooperative_groups.h beside this folder says why):
// a butterfly of shuffles over the tile, so every thread of the tile gets the result, as with CUDA's.
#pragma once

#include <cooperative_groups.h>

namespace cooperative_groups {

template <class T>
struct plus {
    T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {
    T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T>
struct greater {
    T operator()(T a, T b) const { return a < b ? b : a; }
};
template <class T>
struct bit_and {
    T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
    T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
    T operator()(T a, T b) const { return a ^ b; }
};

template <unsigned Size, class Parent, class T, class Op>
T reduce(const thread_block_tile<Size, Parent>& tile, T value, Op op)
{
    for (unsigned offset = Size / 2; offset > 0; offset /= 2) value = op(value, tile.shfl_xor(value, offset));
    return value;
}

}  // namespace cooperative_groups
