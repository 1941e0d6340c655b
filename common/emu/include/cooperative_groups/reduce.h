// cg::reduce over a tile or a coalesced group, as cooperative_groups/reduce.h gives it on a GPU: every thread of
// the group gets op applied over the group's values. A tile of up to 32 threads combines in the same butterfly
// order (shfl_xor by size/2, ..., 1), so float sums round as they do there; a larger tile or a coalesced group
// in a tree of its ranks. With the operators it takes: plus, less (the minimum), greater (the maximum),
// bit_and, bit_or, bit_xor. reduce_store_async stores the result from one thread; the forms that update a
// cuda::atomic are not emulated.
#pragma once

#include <type_traits>
#include <utility>

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

namespace details {

// op over the values of the group's ranks, in a tree (rank r takes in r + s, for s = 1, 2, 4, ...); every
// thread gets rank 0's.
template <class Group, class T, class Op>
T reduce_tree(const Group& group, T value, Op& op)
{
    const unsigned n = group.num_threads(), r = group.thread_rank();
    for (unsigned s = 1; s < n; s *= 2) {
        const T other = shuffle(group, value, r + s < n ? r + s : r);
        if (r % (2 * s) == 0 && r + s < n) value = op(value, other);
    }
    return shuffle(group, value, 0);
}

}  // namespace details

template <unsigned Size, class Parent, class T, class Op>
auto reduce(const thread_block_tile<Size, Parent>& tile, T&& value, Op&& op) -> std::decay_t<decltype(op(value, value))>
{
    std::decay_t<decltype(op(value, value))> out = value;
    if constexpr (Size > 32) {
        return details::reduce_tree(tile, out, op);
    } else {
        for (unsigned lanes = Size / 2; lanes > 0; lanes /= 2) out = op(out, tile.shfl_xor(out, lanes));
        return out;
    }
}

template <class T, class Op>
auto reduce(const coalesced_group& group, T&& value, Op&& op) -> std::decay_t<decltype(op(value, value))>
{
    std::decay_t<decltype(op(value, value))> out = value;
    return details::reduce_tree(group, out, op);
}

// The group's reduction, stored at dst by one of its threads.
template <class Group, class T, class Input, class Op>
void reduce_store_async(const Group& group, T* dst, Input&& value, Op&& op)
{
    const auto result = reduce(group, std::forward<Input>(value), std::forward<Op>(op));
    if (group.thread_rank() == 0) *dst = result;
}

template <class... Args>
CML_EMU_NOT_EMULATED("cooperative_groups::reduce_update_async (a cuda::atomic's update)")
void reduce_update_async(Args&&...);
template <class Group, class Atomic, class Input, class Op,
          std::enable_if_t<!std::is_pointer<std::decay_t<Atomic>>::value, int> = 0>
CML_EMU_NOT_EMULATED("cooperative_groups::reduce_store_async to a cuda::atomic")
void reduce_store_async(const Group&, Atomic&&, Input&&, Op&&);

}  // namespace cooperative_groups
