// cg::reduce over a tile, as cooperative_groups/reduce.h gives it on a GPU: every thread of the tile gets
// op applied over the tile's values, in the same butterfly order (shfl_xor by size/2, ..., 1), so float sums
// round as they do there. With the operators it takes: plus, less (the minimum), greater (the maximum),
// bit_and, bit_or, bit_xor.
#pragma once

#include <type_traits>

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
auto reduce(const thread_block_tile<Size, Parent>& tile, T&& value, Op&& op) -> std::decay_t<decltype(op(value, value))>
{
    std::decay_t<decltype(op(value, value))> out = value;
    for (unsigned lanes = Size / 2; lanes > 0; lanes /= 2) out = op(out, tile.shfl_xor(out, lanes));
    return out;
}

}  // namespace cooperative_groups
