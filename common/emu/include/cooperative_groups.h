// Cooperative groups on the CPU emulator, as NVIDIA's samples and the labs' kernels use them: the thread
// block, its tiles of 1 to 32 threads (static, tiled_partition<N>, and dynamic, tiled_partition(g, n)) with
// their syncs, shuffles and votes, and cg::reduce (cooperative_groups/reduce.h). A block's sync is
// __syncthreads(), a tile's is __syncwarp() over the tile's lanes, so racecheck treats each as the barrier it
// is. Not here: grid and cluster groups, coalesced_threads(), multi-warp tiles, memcpy_async, scans.
#pragma once

#include <cuda_runtime.h>

namespace cooperative_groups {
namespace details {

inline unsigned block_rank() { return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z); }
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }

// The lanes of the tile of `size` threads (a power of two up to 32) that holds the calling thread: tiles are
// consecutive ranks of the block, so each lies inside one warp.
inline unsigned tile_mask(unsigned size)
{
    const unsigned lane = block_rank() % warpSize;
    return size >= 32 ? 0xffffffffu : ((1u << size) - 1) << (lane & ~(size - 1));
}

constexpr bool valid_tile_size(unsigned size) { return size >= 1 && size <= 32 && (size & (size - 1)) == 0; }

// A tile of Size threads (1, 2, 4, 8, 16 or 32), whatever its parent.
template <unsigned Size>
class tile_operations {
    static_assert(valid_tile_size(Size), "Size must be one of 1/2/4/8/16/32");

public:
    void sync() const { __syncwarp(mask()); }
    static constexpr unsigned size() { return Size; }
    static constexpr unsigned num_threads() { return Size; }
    unsigned thread_rank() const { return details::block_rank() & (Size - 1); }
    unsigned meta_group_rank() const { return meta_group_rank_; }  // which tile of the parent
    unsigned meta_group_size() const { return meta_group_size_; }  // tiles of the parent

    template <class T>
    T shfl(T value, int source_rank) const
    {
        return __shfl_sync(mask(), value, source_rank, int(Size));
    }
    template <class T>
    T shfl_down(T value, unsigned delta) const
    {
        return __shfl_down_sync(mask(), value, delta, int(Size));
    }
    template <class T>
    T shfl_up(T value, unsigned delta) const
    {
        return __shfl_up_sync(mask(), value, delta, int(Size));
    }
    template <class T>
    T shfl_xor(T value, unsigned lane_mask) const
    {
        return __shfl_xor_sync(mask(), value, int(lane_mask), int(Size));
    }
    int any(int predicate) const { return __ballot_sync(mask(), predicate) != 0; }
    int all(int predicate) const { return __ballot_sync(mask(), predicate) == mask(); }
    unsigned ballot(int predicate) const  // bit k: the thread of rank k in the tile
    {
        return __ballot_sync(mask(), predicate) >> (details::block_rank() % warpSize & ~(Size - 1));
    }

protected:
    tile_operations(unsigned meta_group_rank, unsigned meta_group_size)
        : meta_group_rank_(meta_group_rank), meta_group_size_(meta_group_size)
    {
    }
    unsigned mask() const { return tile_mask(Size); }

private:
    unsigned meta_group_rank_, meta_group_size_;
};

}  // namespace details

class thread_block {
public:
    static void sync() { __syncthreads(); }
    static unsigned thread_rank() { return details::block_rank(); }
    static unsigned size() { return details::block_size(); }
    static unsigned num_threads() { return details::block_size(); }
    static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    static dim3 group_dim() { return blockDim; }
    static dim3 dim_threads() { return blockDim; }
};

inline thread_block this_thread_block() { return thread_block(); }

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

// A group whose kind is known when the kernel runs: the block, or a tile of it (tiled_partition(g, n)).
class thread_group {
public:
    thread_group(const thread_block&) : tile_size_(0) {}
    template <unsigned Size, class Parent>
    thread_group(const thread_block_tile<Size, Parent>&) : tile_size_(Size)
    {
    }
    explicit thread_group(unsigned tile_size) : tile_size_(tile_size) {}

    void sync() const
    {
        if (tile_size_ == 0) {
            __syncthreads();
        } else {
            __syncwarp(details::tile_mask(tile_size_));
        }
    }
    unsigned long long size() const { return tile_size_ == 0 ? details::block_size() : tile_size_; }
    unsigned long long num_threads() const { return size(); }
    unsigned long long thread_rank() const
    {
        return tile_size_ == 0 ? details::block_rank() : details::block_rank() & (tile_size_ - 1);
    }

private:
    unsigned tile_size_;  // 0: the whole block
};

inline thread_group tiled_partition(const thread_group&, unsigned tile_size)
{
    if (!details::valid_tile_size(tile_size))
        cml_emu::unsupported("tiled_partition(group, n): the emulator has tiles of 1, 2, 4, 8, 16 or 32 threads");
    return thread_group(tile_size);
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

}  // namespace cooperative_groups
