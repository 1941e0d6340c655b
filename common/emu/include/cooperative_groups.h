// Cooperative groups on the CPU emulator: the grid (grid.sync() in a cooperative launch, which keeps every block
// of the grid on the workers), the cluster (of one block, as a launch without __cluster_dims__ has), the block,
// its tiles of 1 to 32 threads (one warp) and of 64 to 1024 (several), static (tiled_partition<N>) or chosen at
// run time (tiled_partition(g, n)), the lanes active together (coalesced_threads(), binary_partition,
// labeled_partition), and cooperative_groups/reduce.h, scan.h and memcpy_async.h. Each sync is the barrier it
// is on a GPU, so racecheck sees it: the block's is __syncthreads(), a warp tile's __syncwarp() over its lanes,
// a larger tile's a barrier of its threads alone (src/block_threads.cpp).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

namespace cooperative_groups {
namespace details {

inline unsigned block_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
inline unsigned lane() { return block_rank() % warpSize; }

constexpr bool power_of_two(unsigned n) { return n >= 1 && (n & (n - 1)) == 0; }

// The lanes of the tile of `size` threads (a power of two up to 32) that holds the calling thread: tiles are
// consecutive ranks of the block, so each lies inside one warp.
inline unsigned tile_mask(unsigned size)
{
    return size >= 32 ? 0xffffffffu : ((1u << size) - 1) << (lane() & ~(size - 1));
}

// Where each kind of barrier of part of a block keeps its key apart (cml_emu::partial_barrier).
constexpr std::uint64_t kTileBarrier = 1ull << 41;
constexpr std::uint64_t kBlockExchange = 1ull << 42;

// An exchange among `count` threads of the block that call it with `key`: each gets the value of the thread of
// block rank `source`. Values of any size, 8 bytes at a time.
template <class T>
T exchange(std::uint64_t key, int count, T value, unsigned source)
{
    static_assert(std::is_trivially_destructible<T>::value, "groups exchange values of plain bits");
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    for (std::size_t at = 0; at < sizeof(T); at += 8) {
        const std::size_t piece = sizeof(T) - at < 8 ? sizeof(T) - at : 8;
        std::uint64_t bits = 0;
        std::memcpy(&bits, bytes + at, piece);
        int none = 0;
        bits = cml_emu::partial_barrier(key, count, bits, int(source), none);
        std::memcpy(bytes + at, &bits, piece);
    }
    std::memcpy(static_cast<void*>(&value), bytes, sizeof(T));
    return value;
}

// How many of the `count` threads that call it with `key` gave a true predicate.
inline int count_true(std::uint64_t key, int count, int predicate)
{
    cml_emu::partial_barrier(key, count, 0, -1, predicate);
    return predicate;
}

// Compacts the bits of `lanes` that `mask` holds into its low bits, in order (a coalesced group's ballot).
inline unsigned compact(unsigned lanes, unsigned mask)
{
    unsigned out = 0, bit = 0;
    for (unsigned rest = mask; rest; rest &= rest - 1, ++bit)
        if (lanes >> __builtin_ctz(rest) & 1u) out |= 1u << bit;
    return out;
}

enum group_type : unsigned { coalesced_group_id = 1, thread_block_id = 4, grid_group_id = 5, cluster_group_id = 6 };

}  // namespace details

// ---- the block, the grid, the cluster ----

class thread_block {
public:
    struct arrival_token {};
    static void sync() { __syncthreads(); }
    static unsigned thread_rank() { return details::block_rank(); }
    static unsigned size() { return details::block_size(); }
    static unsigned num_threads() { return details::block_size(); }
    static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    static dim3 group_dim() { return blockDim; }
    static dim3 dim_threads() { return blockDim; }
    // A split barrier: the wait holds the threads until all have arrived (here the wait is the barrier).
    arrival_token barrier_arrive() const { return {}; }
    void barrier_wait(arrival_token&&) const { __syncthreads(); }
};

inline thread_block this_thread_block() { return thread_block(); }

// Scratch memory for tiles of more than 32 threads on GPUs older than sm_80; the emulator needs none.
template <unsigned MaxBlockSize = 1024>
struct block_tile_memory {
};
template <unsigned MaxBlockSize>
thread_block this_thread_block(block_tile_memory<MaxBlockSize>&)
{
    return thread_block();
}

class grid_group {
public:
    struct arrival_token {};
    // Whether the launch was cooperative (cudaLaunchCooperativeKernel): only then may its threads sync.
    bool is_valid() const { return cml_emu::cooperative_launch(); }
    void sync() const { cml_emu::grid_barrier(); }
    arrival_token barrier_arrive() const { return {}; }
    void barrier_wait(arrival_token&&) const { cml_emu::grid_barrier(); }
    unsigned long long size() const { return num_threads(); }
    unsigned long long num_threads() const { return num_blocks() * details::block_size(); }
    unsigned long long thread_rank() const { return block_rank() * details::block_size() + details::block_rank(); }
    unsigned long long num_blocks() const { return (unsigned long long)gridDim.x * gridDim.y * gridDim.z; }
    unsigned long long block_rank() const
    {
        return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
    }
    dim3 block_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    dim3 dim_blocks() const { return gridDim; }
    dim3 dim_threads() const { return blockDim; }
    dim3 group_dim() const { return gridDim; }
    // Clusters of one block: the cluster is the block.
    unsigned long long num_clusters() const { return num_blocks(); }
    unsigned long long cluster_rank() const { return block_rank(); }
    dim3 cluster_index() const { return block_index(); }
    dim3 dim_clusters() const { return gridDim; }
};

inline grid_group this_grid() { return grid_group(); }

// The cluster of a launch without __cluster_dims__: the block alone.
class cluster_group {
public:
    struct arrival_token {};
    static void sync() { __syncthreads(); }
    static arrival_token barrier_arrive() { return {}; }
    static void barrier_wait() { __syncthreads(); }
    static void barrier_wait(arrival_token&&) { __syncthreads(); }
    static unsigned block_rank() { return 0; }
    static unsigned num_blocks() { return 1; }
    static dim3 block_index() { return dim3(0, 0, 0); }
    static dim3 dim_blocks() { return dim3(1, 1, 1); }
    static unsigned thread_rank() { return details::block_rank(); }
    static unsigned size() { return details::block_size(); }
    static unsigned num_threads() { return details::block_size(); }
    static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    static dim3 dim_threads() { return blockDim; }
    template <class T>
    static T* map_shared_rank(T* address, int rank)
    {
        return static_cast<T*>(__cluster_map_shared_rank(address, unsigned(rank)));
    }
    static unsigned query_shared_rank(const void* address) { return __cluster_query_shared_rank(address); }
};

inline cluster_group this_cluster() { return cluster_group(); }

// ---- tiles ----

namespace details {

// A tile of Size threads (a power of two up to 1024), whatever its parent. Up to 32 its threads are lanes of
// one warp, and its calls are warp-level ones over its lanes; beyond, barriers of its threads alone.
template <unsigned Size>
class tile_operations {
    static_assert(power_of_two(Size) && Size <= 1024, "Size must be a power of two up to 1024");
    static constexpr bool one_warp = Size <= 32;

public:
    void sync() const
    {
        if (one_warp) {
            __syncwarp(mask());
        } else {
            int none = 0;
            cml_emu::partial_barrier(key(), int(Size), 0, -1, none);
        }
    }
    static constexpr unsigned size() { return Size; }
    static constexpr unsigned num_threads() { return Size; }
    unsigned thread_rank() const { return details::block_rank() & (Size - 1); }
    unsigned meta_group_rank() const { return meta_group_rank_; }  // which tile of the parent
    unsigned meta_group_size() const { return meta_group_size_; }  // tiles of the parent

    template <class T>
    T shfl(T value, int source_rank) const
    {
        if (one_warp) return __shfl_sync(mask(), value, source_rank, int(Size));
        return exchange(key(), int(Size), value, first() + (unsigned(source_rank) & (Size - 1)));
    }
    template <class T>
    T shfl_down(T value, unsigned delta) const
    {
        static_assert(one_warp, "shfl_down is for tiles of up to 32 threads");
        return __shfl_down_sync(mask(), value, delta, int(Size));
    }
    template <class T>
    T shfl_up(T value, unsigned delta) const
    {
        static_assert(one_warp, "shfl_up is for tiles of up to 32 threads");
        return __shfl_up_sync(mask(), value, delta, int(Size));
    }
    template <class T>
    T shfl_xor(T value, unsigned lane_mask) const
    {
        static_assert(one_warp, "shfl_xor is for tiles of up to 32 threads");
        return __shfl_xor_sync(mask(), value, int(lane_mask), int(Size));
    }
    int any(int predicate) const
    {
        if (one_warp) return __ballot_sync(mask(), predicate) != 0;
        return count_true(key(), int(Size), predicate != 0) > 0;
    }
    int all(int predicate) const
    {
        if (one_warp) return __ballot_sync(mask(), predicate) == mask();
        return count_true(key(), int(Size), predicate != 0) == int(Size);
    }
    unsigned ballot(int predicate) const  // bit k: the thread of rank k in the tile
    {
        static_assert(one_warp, "ballot is for tiles of up to 32 threads");
        return __ballot_sync(mask(), predicate) >> (lane() & ~(Size - 1) & 31u);
    }
    template <class T>
    unsigned match_any(T value) const
    {
        static_assert(one_warp, "match_any is for tiles of up to 32 threads");
        return __match_any_sync(mask(), value) >> (lane() & ~(Size - 1) & 31u);
    }
    template <class T>
    unsigned match_all(T value, int& predicate) const
    {
        static_assert(one_warp, "match_all is for tiles of up to 32 threads");
        return __match_all_sync(mask(), value, &predicate) >> (lane() & ~(Size - 1) & 31u);
    }

protected:
    tile_operations(unsigned meta_group_rank, unsigned meta_group_size)
        : meta_group_rank_(meta_group_rank), meta_group_size_(meta_group_size)
    {
    }
    unsigned mask() const { return tile_mask(Size); }
    unsigned first() const { return details::block_rank() & ~(Size - 1); }  // the block rank of rank 0
    std::uint64_t key() const { return kTileBarrier | std::uint64_t(Size) << 20 | first(); }

private:
    unsigned meta_group_rank_, meta_group_size_;
};

}  // namespace details

// A tile of Size threads of its parent, a block or a larger tile.
template <unsigned Size, class Parent = void>
class thread_block_tile : public details::tile_operations<Size> {
public:
    // A typed tile is also a thread_block_tile<Size> (of no named parent), as tiled_partition's result
    // is assigned in NVIDIA's samples.
    template <class Other>
    thread_block_tile(const thread_block_tile<Size, Other>& tile)
        : details::tile_operations<Size>(tile.meta_group_rank(), tile.meta_group_size())
    {
    }
    thread_block_tile(unsigned meta_group_rank, unsigned meta_group_size)
        : details::tile_operations<Size>(meta_group_rank, meta_group_size)
    {
    }
};

template <unsigned Size>
thread_block_tile<Size, thread_block> tiled_partition(const thread_block& block)
{
    return thread_block_tile<Size, thread_block>(block.thread_rank() / Size, (block.size() + Size - 1) / Size);
}

template <unsigned Size, unsigned ParentSize, class Grandparent>
thread_block_tile<Size, thread_block_tile<ParentSize, Grandparent>> tiled_partition(
    const thread_block_tile<ParentSize, Grandparent>& parent)
{
    static_assert(Size <= ParentSize, "a tile is partitioned into smaller tiles");
    return thread_block_tile<Size, thread_block_tile<ParentSize, Grandparent>>(parent.thread_rank() / Size,
                                                                               ParentSize / Size);
}

// The calling thread alone.
inline thread_block_tile<1, void> this_thread() { return thread_block_tile<1, void>(details::block_rank(), details::block_size()); }

// ---- the lanes of a warp that are active together ----

class coalesced_group {
public:
    explicit coalesced_group(unsigned mask, unsigned meta_group_rank = 0, unsigned meta_group_size = 1)
        : mask_(mask), meta_group_rank_(meta_group_rank), meta_group_size_(meta_group_size)
    {
    }
    void sync() const { __syncwarp(mask_); }
    unsigned size() const { return unsigned(__builtin_popcount(mask_)); }
    unsigned num_threads() const { return size(); }
    unsigned thread_rank() const { return unsigned(__builtin_popcount(mask_ & ((1u << details::lane()) - 1u))); }
    unsigned meta_group_rank() const { return meta_group_rank_; }
    unsigned meta_group_size() const { return meta_group_size_; }

    template <class T>
    T shfl(T value, int source_rank) const
    {
        return __shfl_sync(mask_, value, int(lane_of(unsigned(source_rank) % size())));
    }
    template <class T>
    T shfl_down(T value, unsigned delta) const
    {
        const unsigned source = thread_rank() + delta;
        return __shfl_sync(mask_, value, int(source < size() ? lane_of(source) : details::lane()));
    }
    template <class T>
    T shfl_up(T value, int delta) const
    {
        const int source = int(thread_rank()) - delta;
        return __shfl_sync(mask_, value, int(source >= 0 ? lane_of(unsigned(source)) : details::lane()));
    }
    int any(int predicate) const { return __ballot_sync(mask_, predicate) != 0; }
    int all(int predicate) const { return __ballot_sync(mask_, predicate) == mask_; }
    unsigned ballot(int predicate) const { return details::compact(__ballot_sync(mask_, predicate), mask_); }
    template <class T>
    unsigned match_any(T value) const
    {
        return details::compact(__match_any_sync(mask_, value), mask_);
    }
    template <class T>
    unsigned match_all(T value, int& predicate) const
    {
        return details::compact(__match_all_sync(mask_, value, &predicate), mask_);
    }
    unsigned get_mask() const { return mask_; }

private:
    unsigned lane_of(unsigned rank) const { return __fns(mask_, 0, int(rank) + 1); }
    unsigned mask_, meta_group_rank_, meta_group_size_;
};

// The lanes active at the kernel's call (the defaults are its site, as for __activemask).
inline coalesced_group coalesced_threads(unsigned line = __builtin_LINE(), unsigned column = CML_EMU_COLUMN,
                                         const char* file = __builtin_FILE())
{
    return coalesced_group(__activemask(line, column, file));
}

// The group's threads cut into tiles of `size` consecutive ranks: this thread's tile.
inline coalesced_group tiled_partition(const coalesced_group& parent, unsigned size)
{
    const unsigned mine = parent.thread_rank() / size;
    unsigned mask = 0, rank = 0;
    for (unsigned rest = parent.get_mask(); rest; rest &= rest - 1, ++rank)
        if (rank / size == mine) mask |= 1u << __builtin_ctz(rest);
    return coalesced_group(mask, mine, (parent.size() + size - 1) / size);
}

// The threads of the group whose predicate (binary_partition) or label (labeled_partition) is this thread's.
inline coalesced_group binary_partition(const coalesced_group& group, bool predicate)
{
    const unsigned votes = __ballot_sync(group.get_mask(), predicate);
    return coalesced_group(predicate ? votes : group.get_mask() & ~votes);
}
template <unsigned Size, class Parent>
coalesced_group binary_partition(const thread_block_tile<Size, Parent>& tile, bool predicate)
{
    static_assert(Size <= 32, "a binary partition of a tile of up to 32 threads");
    return binary_partition(coalesced_group(details::tile_mask(Size)), predicate);
}
template <class Label>
coalesced_group labeled_partition(const coalesced_group& group, Label label)
{
    return coalesced_group(__match_any_sync(group.get_mask(), label));
}
template <class Label, unsigned Size, class Parent>
coalesced_group labeled_partition(const thread_block_tile<Size, Parent>& tile, Label label)
{
    static_assert(Size <= 32, "a labeled partition of a tile of up to 32 threads");
    return labeled_partition(coalesced_group(details::tile_mask(Size)), label);
}

// ---- a group whose kind is known when the kernel runs ----

class thread_group {
public:
    thread_group(const thread_block&) : kind_(details::thread_block_id), tile_size_(0), mask_(0) {}
    template <unsigned Size, class Parent>
    thread_group(const thread_block_tile<Size, Parent>&) : kind_(0), tile_size_(Size), mask_(0)
    {
    }
    thread_group(const coalesced_group& group) : kind_(details::coalesced_group_id), tile_size_(0), mask_(group.get_mask()) {}
    explicit thread_group(unsigned tile_size) : kind_(0), tile_size_(tile_size), mask_(0) {}

    void sync() const
    {
        if (kind_ == details::thread_block_id) {
            __syncthreads();
        } else if (kind_ == details::coalesced_group_id) {
            __syncwarp(mask_);
        } else if (tile_size_ <= 32) {
            __syncwarp(details::tile_mask(tile_size_));
        } else {
            int none = 0;
            cml_emu::partial_barrier(details::kTileBarrier | std::uint64_t(tile_size_) << 20 |
                                         (details::block_rank() & ~(tile_size_ - 1)),
                                     int(tile_size_), 0, -1, none);
        }
    }
    unsigned long long size() const
    {
        return kind_ == details::thread_block_id      ? details::block_size()
               : kind_ == details::coalesced_group_id ? unsigned(__builtin_popcount(mask_))
                                                      : tile_size_;
    }
    unsigned long long num_threads() const { return size(); }
    unsigned long long thread_rank() const
    {
        return kind_ == details::thread_block_id      ? details::block_rank()
               : kind_ == details::coalesced_group_id ? coalesced_group(mask_).thread_rank()
                                                      : details::block_rank() & (tile_size_ - 1);
    }
    unsigned get_type() const { return kind_; }

private:
    unsigned kind_;       // details::group_type, 0 for a tile
    unsigned tile_size_;  // of a tile
    unsigned mask_;       // of a coalesced group
};

inline thread_group tiled_partition(const thread_group& parent, unsigned tile_size)
{
    if (!details::power_of_two(tile_size) || tile_size > parent.size())
        cml_emu::unsupported("tiled_partition(group, n) with n not a power of two up to the group's size");
    return thread_group(tile_size);
}
inline thread_group tiled_partition(const thread_block& parent, unsigned tile_size)
{
    return tiled_partition(thread_group(parent), tile_size);
}

template <class Group>
void sync(const Group& group)
{
    group.sync();
}

template <class Group>
auto thread_rank(const Group& group) -> decltype(group.thread_rank())
{
    return group.thread_rank();
}

template <class Group>
auto group_size(const Group& group) -> decltype(group.num_threads())
{
    return group.num_threads();
}

// ---- exchanges over any group, for reduce, the scans and invoke_one_broadcast ----

namespace details {

template <unsigned Size, class Parent, class T>
T shuffle(const thread_block_tile<Size, Parent>& tile, T value, unsigned source_rank)
{
    return tile.shfl(value, int(source_rank));
}
template <class T>
T shuffle(const coalesced_group& group, T value, unsigned source_rank)
{
    return group.shfl(value, int(source_rank));
}
template <class T>
T shuffle(const thread_block&, T value, unsigned source_rank)
{
    return exchange(kBlockExchange, int(block_size()), value, source_rank);
}

}  // namespace details

// One thread of the group calls fn (the first); invoke_one_broadcast gives every thread what it returned.
template <class Group, class Fn, class... Args>
void invoke_one(const Group& group, Fn&& fn, Args&&... args)
{
    if (group.thread_rank() == 0) std::forward<Fn>(fn)(std::forward<Args>(args)...);
}
template <class Group, class Fn, class... Args>
auto invoke_one_broadcast(const Group& group, Fn&& fn, Args&&... args)
{
    using Result = std::decay_t<decltype(fn(std::forward<Args>(args)...))>;
    Result result{};
    if (group.thread_rank() == 0) result = std::forward<Fn>(fn)(std::forward<Args>(args)...);
    return details::shuffle(group, result, 0);
}

}  // namespace cooperative_groups
