// The emulator's own test kernels: warp-level functions, votes, barrier reductions, shared memory, atomics,
// cooperative groups and a deadlock, the parts of CUDA the labs use little or not at all.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <cstring>

#include "kernels.hpp"

namespace cg = cooperative_groups;

namespace {

constexpr unsigned kFull = 0xffffffffu;

__global__ void shuffles_kernel(int* out)
{
    const int lane = threadIdx.x;
    const int value = lane * 10;
    out[0 * 32 + lane] = __shfl_sync(kFull, value, 31 - lane);
    out[1 * 32 + lane] = __shfl_up_sync(kFull, value, 3);
    out[2 * 32 + lane] = __shfl_down_sync(kFull, value, 5);
    out[3 * 32 + lane] = __shfl_xor_sync(kFull, value, 1);
    out[4 * 32 + lane] = __shfl_down_sync(kFull, value, 1, 8);
}

__global__ void votes_kernel(unsigned* out)
{
    const int t = threadIdx.x, lane = t % 32;
    if (t < 32) {
        const unsigned ballot = __ballot_sync(kFull, lane % 3 == 0);
        const int any = __any_sync(kFull, lane == 7);
        const int all = __all_sync(kFull, lane < 32);
        const int not_all = __all_sync(kFull, lane < 31);
        if (lane == 0) {
            out[0] = ballot;
            out[1] = any;
            out[2] = all;
            out[3] = not_all;
        }
    }
    const int count = __syncthreads_count(t % 2);
    const int any_last = __syncthreads_or(t == 63);
    const int all_but_last = __syncthreads_and(t < 63);
    if (t == 0) {
        out[4] = count;
        out[5] = any_last;
        out[6] = all_but_last;
    }
}

constexpr int kMaxThreads = 1024;

__global__ void shared_reversal_kernel(int* out)
{
    __shared__ int doubled[kMaxThreads];
    extern __shared__ int plain[];
    const int t = threadIdx.x, n = blockDim.x;
    doubled[t] = 2 * t;
    plain[t] = t;
    __syncthreads();
    out[blockIdx.x * n + t] = doubled[n - 1 - t] + plain[n - 1 - t] + blockIdx.x;
}

__global__ void atomics_kernel(int* count, float* sum, int* most, int* flag, int* winners)
{
    const int rank = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(count, 1);
    atomicAdd(sum, 0.5f);
    atomicMax(most, rank);
    if (atomicCAS(flag, 0, 1) == 0) atomicAdd(winners, 1);
}

__global__ void shared_atomics_kernel(int* out)
{
    __shared__ int count;
    if (threadIdx.x == 0) count = 0;
    __syncthreads();
    atomicAdd(&count, 1);  // every thread at once: no hazard, atomics are ordered among themselves
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = count;
}

// One tile size: what each thread of a tile of S learns, then a neighbour's slot within the tile read after
// tile.sync() (no hazard: the tile's own barrier orders it), and a block.sync() before the slots are reused.
template <unsigned S>
__device__ void tile_facts(const cg::thread_block& block, int* slots, int* out)
{
    const cg::thread_block_tile<S> tile = cg::tiled_partition<S>(block);
    const int r = int(block.thread_rank());
    const int first = r - int(tile.thread_rank());
    out[0] = int(tile.thread_rank());
    out[1] = int(tile.size());
    out[2] = int(tile.meta_group_rank());
    out[3] = int(tile.meta_group_size());
    out[4] = tile.shfl(r, 0);
    out[5] = tile.shfl_down(r, 1);
    out[6] = tile.shfl_xor(r, S / 2);
    out[7] = cg::reduce(tile, r, cg::plus<int>());
    out[8] = int(tile.ballot(r % 2 == 0));
    out[9] = tile.any(r == first + 1) + 2 * tile.all(r < first + int(S) - 1);
    slots[r] = 2 * r;
    tile.sync();
    out[10] = slots[first + (int(tile.thread_rank()) + 1) % int(S)];
    block.sync();
}

__global__ void cooperative_groups_kernel(int* out, int* block_facts)
{
    __shared__ int slots[kCooperativeThreads];
    const cg::thread_block block = cg::this_thread_block();
    const int r = int(block.thread_rank());
    tile_facts<32>(block, slots, out + (0 * kCooperativeThreads + r) * kTileFacts);
    tile_facts<16>(block, slots, out + (1 * kCooperativeThreads + r) * kTileFacts);
    tile_facts<8>(block, slots, out + (2 * kCooperativeThreads + r) * kTileFacts);
    tile_facts<4>(block, slots, out + (3 * kCooperativeThreads + r) * kTileFacts);
    // The block: its rank and size, a dynamic tile of 16, and slots read across warps after cg::sync(block).
    const cg::thread_group sixteen = cg::tiled_partition(block, 16);
    slots[r] = 3 * r;
    cg::sync(block);
    int* facts = block_facts + r * 4;
    facts[0] = int(block.size());
    facts[1] = int(sixteen.thread_rank());
    facts[2] = int(sixteen.size());
    facts[3] = slots[kCooperativeThreads - 1 - r];
}

__global__ void tiles_of_one_warp_race_kernel(int* out)
{
    __shared__ int slots[32];
    const cg::thread_block_tile<16> half = cg::tiled_partition<16>(cg::this_thread_block());
    slots[threadIdx.x] = int(threadIdx.x);
    half.sync();  // orders the 16 lanes of this half, not the other half's writes
    out[threadIdx.x] = slots[threadIdx.x ^ 16];
}

__global__ void read_past_the_end_kernel(const int* in, int n, int* out)
{
    out[0] = in[n];
}

__global__ void write_far_past_the_end_kernel(int* out, int n)
{
    out[n + kIntsIn64Kb + int(threadIdx.x)] = int(threadIdx.x);
}

__global__ void wild_read_kernel(const int* in, int* out)
{
    out[threadIdx.x] = in[kIntsIn4Gb + threadIdx.x];
}

__global__ void write_to_host_memory_kernel(int* host)
{
    host[threadIdx.x] = -1;
}

constexpr int kSharedInts = 32;

__global__ void shared_past_the_end_kernel(int* out)
{
    __shared__ int slots[kSharedInts];
    slots[threadIdx.x] = int(threadIdx.x);
    __syncthreads();
    out[threadIdx.x] = slots[threadIdx.x + kSharedInts];
}

// Lab 11's signed byte: bins[-1], 4 bytes before the block's first shared byte.
__global__ void shared_before_the_start_kernel(int* out)
{
    __shared__ unsigned int bins[kSharedInts];
    bins[threadIdx.x] = 0;
    __syncthreads();
    const signed char byte = -1;
    if (threadIdx.x == 0) atomicAdd(&bins[byte], 1u);
    __syncthreads();
    out[threadIdx.x] = int(bins[threadIdx.x]);
}

__global__ void unwritten_shared_kernel(int* out)
{
    __shared__ int slots[2 * kSharedInts];
    slots[threadIdx.x] = int(threadIdx.x);
    __syncthreads();
    out[threadIdx.x] = slots[threadIdx.x + kSharedInts];
}

// Each 4-byte word of the two arrays is written by threads of different warps, a byte or two bytes each.
__global__ void bytes_of_one_word_kernel(int* out)
{
    __shared__ unsigned char bytes[kByteThreads];
    __shared__ unsigned short halves[kByteThreads];
    const int t = int(threadIdx.x);
    bytes[t % 32 * 4 + t / 32] = static_cast<unsigned char>(t);
    halves[t % 64 * 2 + t / 64] = static_cast<unsigned short>(t);
    __syncthreads();
    out[t] = bytes[t] + 1000 * halves[t];
    // Whole words of what many threads wrote, read by one thread; then written whole, and read by bytes.
    auto* words = reinterpret_cast<unsigned*>(bytes);
    if (t < kByteThreads / 4) out[kByteThreads + t] = int(words[t] >> 8 & 0xff);
    __syncthreads();
    if (t < kByteThreads / 4) words[t] = 0x01010101u * unsigned(t);
    __syncthreads();
    out[2 * kByteThreads + t] = bytes[kByteThreads - 1 - t];
}

__global__ void byte_races_kernel(int* out)
{
    __shared__ unsigned char bytes[8];
    const int t = int(threadIdx.x);
    if (t == 0) bytes[0] = 1;
    if (t == 32) bytes[0] = 2;  // the byte thread 0 wrote, with no barrier between: a race
    if (t == 0) bytes[4] = 3;
    if (t == 32) out[0] = bytes[4];  // what thread 0 wrote, with no barrier between: a race
    if (t == 1) bytes[6] = 4;
    if (t == 33) bytes[7] = 5;  // the next byte of the same word: no race
}

__global__ void zeroed_while_added_to_kernel(int* out)
{
    __shared__ unsigned bins[2];
    const int t = int(threadIdx.x);
    if (t == 0) bins[0] = 0;
    if (t == 32) atomicAdd(&bins[0], 1u);  // the bin thread 0 zeroed, with no barrier between: a race
    if (t == 1) bins[1] = 0;
    __syncthreads();
    atomicAdd(&bins[1], 1u);  // every thread at once, after the barrier: no race
    __syncthreads();
    if (t == 0) out[0] = int(bins[1]);
}

__global__ void deadlock_kernel(int* out)
{
    if (threadIdx.x < 16) {
        out[threadIdx.x] = __shfl_sync(kFull, int(threadIdx.x), 0);
    } else {
        __syncthreads();
    }
}

// 64 threads as 2 tiles of 32 and 8 tiles of 8: ranks, sums through cg::reduce, a shuffle, and a block barrier
// between a shared-memory write and the read of another warp.
__global__ void cooperative_groups_block_kernel(int* out)
{
    __shared__ int slots[64];
    const cg::thread_block block = cg::this_thread_block();
    const cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const cg::thread_block_tile<8> eighth = cg::tiled_partition<8>(block);
    const int t = int(block.thread_rank());
    out[0 * 64 + t] = cg::reduce(warp, t, cg::plus<int>());
    out[1 * 64 + t] = cg::reduce(eighth, t, cg::plus<int>());
    out[2 * 64 + t] = int(warp.meta_group_rank() * 100 + warp.thread_rank());
    out[3 * 64 + t] = int(eighth.meta_group_rank() * 100 + eighth.thread_rank());
    out[4 * 64 + t] = eighth.shfl_down(t, 1);
    out[5 * 64 + t] = int(eighth.ballot(t % 2 == 0));
    slots[t] = t;
    block.sync();
    out[6 * 64 + t] = slots[63 - t];
}

}  // namespace

void shuffles(int* out)
{
    shuffles_kernel<<<1, 32>>>(out);
}

void votes(unsigned* out)
{
    votes_kernel<<<1, 64>>>(out);
}

void shared_reversal(int* out, int blocks, int threads)
{
    shared_reversal_kernel<<<blocks, threads, threads * sizeof(int)>>>(out);
}

void atomics(int* count, float* sum, int* most, int* flag, int* winners, int blocks)
{
    atomics_kernel<<<blocks, 256>>>(count, sum, most, flag, winners);
}

void shared_atomics(int* out, int blocks, int threads)
{
    shared_atomics_kernel<<<blocks, threads>>>(out);
}

void cooperative_group_facts(int* out, int* block_facts)
{
    cooperative_groups_kernel<<<1, kCooperativeThreads>>>(out, block_facts);
}

void tiles_of_one_warp_race(int* out)
{
    tiles_of_one_warp_race_kernel<<<1, 32>>>(out);
}

void read_past_the_end(const int* in, int n, int* out)
{
    read_past_the_end_kernel<<<1, 1>>>(in, n, out);
}

void write_far_past_the_end(int* out, int n)
{
    write_far_past_the_end_kernel<<<1, 32>>>(out, n);
}

void wild_read(const int* in, int* out)
{
    wild_read_kernel<<<1, 32>>>(in, out);
}

void write_to_host_memory(int* host)
{
    write_to_host_memory_kernel<<<1, 32>>>(host);
}

void shared_past_the_end(int* out)
{
    shared_past_the_end_kernel<<<1, kSharedInts>>>(out);
}

void shared_before_the_start(int* out)
{
    shared_before_the_start_kernel<<<1, kSharedInts>>>(out);
}

void unwritten_shared(int* out)
{
    unwritten_shared_kernel<<<1, kSharedInts>>>(out);
}

void bytes_of_one_word(int* out)
{
    bytes_of_one_word_kernel<<<1, kByteThreads>>>(out);
}

void byte_races(int* out)
{
    byte_races_kernel<<<1, 64>>>(out);
}

void zeroed_while_added_to(int* out)
{
    zeroed_while_added_to_kernel<<<1, 64>>>(out);
}

void deadlock(int* out)
{
    deadlock_kernel<<<1, 32>>>(out);
}

void cooperative_groups_in_a_block(int* out)
{
    cooperative_groups_block_kernel<<<1, 64>>>(out);
}

namespace {
__global__ void fetch_points_kernel(cudaTextureObject_t texture, const float* x, const float* y, float* out, int n)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = tex2D<float>(texture, x[k], y[k]);
}
}  // namespace

void fetch_points(unsigned long long texture, const float* x, const float* y, float* out, int n)
{
    fetch_points_kernel<<<1, 64>>>(texture, x, y, out, n);
}

namespace {

__global__ void grid_sync_neighbours_kernel(int* out, int blocks)
{
    cg::grid_group grid = cg::this_grid();
    const int b = int(blockIdx.x);
    if (threadIdx.x == 0) out[b] = b + 1;
    grid.sync();
    if (threadIdx.x == 0) out[blocks + b] = out[b] + out[(b + 1) % blocks];
}

__global__ void grid_sync_missing_block_kernel(int* out)
{
    if (blockIdx.x == 0) return;
    cg::this_grid().sync();
    out[blockIdx.x] = 1;
}

__global__ void grid_sync_plain_kernel(int* out)
{
    cg::this_grid().sync();
    out[blockIdx.x] = 1;
}

}  // namespace

void grid_sync_neighbours(int* out, int blocks)
{
    void* args[] = {&out, &blocks};
    cudaLaunchCooperativeKernel(grid_sync_neighbours_kernel, dim3(blocks), dim3(64), args, 0, nullptr);
}

void grid_sync_without_block_zero(int* out, int blocks)
{
    void* args[] = {&out};
    cudaLaunchCooperativeKernel(grid_sync_missing_block_kernel, dim3(blocks), dim3(32), args, 0, nullptr);
}

void grid_sync_not_cooperative(int* out)
{
    grid_sync_plain_kernel<<<2, 32>>>(out);
}

namespace {

struct ThreeFloats {
    float x, y, z;
};

__global__ void aggregate_copies_kernel(const float* in, float* out)
{
    const int t = threadIdx.x;
    reinterpret_cast<float4*>(out)[t] = reinterpret_cast<const float4*>(in)[t];
    reinterpret_cast<ThreeFloats*>(out + 128)[t] = reinterpret_cast<const ThreeFloats*>(in + 128)[t];
}

__global__ void library_copies_kernel(const float* in, float* out, int bytes)
{
    const int t = threadIdx.x;
    std::memcpy(out + 4 * t, in + 4 * t, bytes);
    std::memset(out + 128 + 4 * t, 0, bytes);
}

__constant__ float kCountedTable[kCountedEntries];

__global__ void constant_reads_kernel(float* out, const float* through)
{
    const int t = threadIdx.x;
    out[t] = kCountedTable[t % kCountedEntries] + through[t % kCountedEntries];
}

__global__ void builtin_atomics_kernel(unsigned* counter)
{
    __atomic_fetch_add(counter, 1u, __ATOMIC_RELAXED);
}

}  // namespace

void aggregate_copies(const float* in, float* out)
{
    aggregate_copies_kernel<<<1, 32>>>(in, out);
}

void library_copies(const float* in, float* out, int bytes)
{
    library_copies_kernel<<<1, 32>>>(in, out, bytes);
}

void set_counted_table(const float* values)
{
    cudaMemcpyToSymbol(kCountedTable, values, sizeof kCountedTable);
}

void constant_reads(float* out)
{
    void* through = nullptr;
    cudaGetSymbolAddress(&through, kCountedTable);
    constant_reads_kernel<<<1, 32>>>(out, static_cast<const float*>(through));
}

void builtin_atomics(unsigned* counter)
{
    builtin_atomics_kernel<<<1, 32>>>(counter);
}
