// cg::inclusive_scan and cg::exclusive_scan over a tile or a coalesced group, as cooperative_groups/scan.h gives
// them on a GPU: thread r gets op over the values of ranks 0 to r (inclusive) or 0 to r - 1 (exclusive; rank 0
// gets a value-initialized T), plus when no op is given. The forms that update a cuda::atomic are not emulated.
#pragma once

#include <type_traits>
#include <utility>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cooperative_groups {

namespace details {

// Hillis and Steele's scan: at step s, rank r takes in rank r - s.
template <class Group, class T, class Op>
T inclusive_scan_of(const Group& group, T value, Op& op)
{
    const unsigned r = group.thread_rank();
    for (unsigned s = 1; s < group.num_threads(); s *= 2) {
        const T other = shuffle(group, value, r >= s ? r - s : r);
        if (r >= s) value = op(other, value);
    }
    return value;
}

template <class Group, class T, class Op>
T exclusive_scan_of(const Group& group, T value, Op& op)
{
    const T inclusive = inclusive_scan_of(group, value, op);
    const unsigned r = group.thread_rank();
    const T before = shuffle(group, inclusive, r > 0 ? r - 1 : 0);
    return r > 0 ? before : T{};
}

}  // namespace details

template <class Group, class T, class Op>
auto inclusive_scan(const Group& group, T&& value, Op&& op) -> std::decay_t<decltype(op(value, value))>
{
    std::decay_t<decltype(op(value, value))> in = value;
    return details::inclusive_scan_of(group, in, op);
}
template <class Group, class T>
std::decay_t<T> inclusive_scan(const Group& group, T&& value)
{
    return inclusive_scan(group, std::forward<T>(value), plus<std::decay_t<T>>());
}
template <class Group, class T, class Op>
auto exclusive_scan(const Group& group, T&& value, Op&& op) -> std::decay_t<decltype(op(value, value))>
{
    std::decay_t<decltype(op(value, value))> in = value;
    return details::exclusive_scan_of(group, in, op);
}
template <class Group, class T>
std::decay_t<T> exclusive_scan(const Group& group, T&& value)
{
    return exclusive_scan(group, std::forward<T>(value), plus<std::decay_t<T>>());
}

template <class... Args>
CML_EMU_NOT_EMULATED("cooperative_groups::inclusive_scan_update (a cuda::atomic's update)")
void inclusive_scan_update(Args&&...);
template <class... Args>
CML_EMU_NOT_EMULATED("cooperative_groups::exclusive_scan_update (a cuda::atomic's update)")
void exclusive_scan_update(Args&&...);

}  // namespace cooperative_groups
