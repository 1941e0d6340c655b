// Cooperative groups in every form (common/emu/device_api.txt: cooperative_groups.h, reduce.h, scan.h,
// memcpy_async.h): the grid of a cooperative launch and its grid.sync(), the cluster of one block, the block,
// static tiles of 1 to 32 threads and of 64 and 128, tiles chosen at run time, the coalesced threads of a branch
// and their partitions, reduce and the scans with each operator, memcpy_async and its waits, invoke_one. Each
// thread records what its group calls gave it; the host computes the same from the threads' indices. Run on the
// CPU emulator by grader/tests/emulator/test_emulator_device_api.py; main returns how many checks failed.
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include "checks.cuh"

namespace cg = cooperative_groups;

namespace {

constexpr int kBlock = 128;
constexpr int kFields = 48;  // what each thread records

__device__ int value_of(int rank) { return (rank * 5 + 1) % 13 - 6; }
int value_on_host(int rank) { return (rank * 5 + 1) % 13 - 6; }

// ---- the grid, in a cooperative launch: partial sums, a grid-wide barrier, then their sum ----

__global__ void grid_sum(const int* in, int* partials, int* out, int n)
{
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    __shared__ int block_sum;
    if (block.thread_rank() == 0) block_sum = 0;
    block.sync();
    for (unsigned long long i = grid.thread_rank(); i < (unsigned long long)n; i += grid.size())
        atomicAdd_block(&block_sum, in[i]);
    block.sync();
    if (block.thread_rank() == 0) partials[grid.block_rank()] = block_sum;
    grid.sync();
    if (grid.thread_rank() == 0) {
        int sum = 0;
        for (unsigned long long b = 0; b < grid.num_blocks(); ++b) sum += partials[b];
        out[0] = sum;
    }
    auto token = grid.barrier_arrive();
    grid.barrier_wait(std::move(token));
    if (grid.thread_rank() == 1) {
        const dim3 blocks = grid.dim_blocks(), threads = grid.dim_threads(), index = grid.block_index();
        const dim3 thread = grid.thread_index(), clusters = grid.dim_clusters(), cluster = grid.cluster_index();
        out[1] = int(grid.is_valid()) + 2 * int(grid.num_threads() == grid.size()) + 4 * int(blocks.x == gridDim.x) +
                 8 * int(threads.x == blockDim.x) + 16 * int(index.x == 0 && thread.x == 1) +
                 32 * int(grid.group_dim().x == gridDim.x) + 64 * int(grid.num_clusters() == grid.num_blocks()) +
                 128 * int(grid.cluster_rank() == 0 && clusters.x == gridDim.x && cluster.x == 0);
    }
}

__global__ void not_cooperative(int* out)
{
    out[0] = int(cg::this_grid().is_valid());
}

void check_grid()
{
    constexpr int n = 5000, blocks = 6;
    std::vector<int> values(n);
    int sum = 0;
    for (int i = 0; i < n; ++i) sum += values[std::size_t(i)] = value_on_host(i);
    checks::Device<int> in(values), partials(blocks), out(2);
    int count = n;
    void* args[] = {&in.data, &partials.data, &out.data, &count};
    EXPECT(cudaLaunchCooperativeKernel(grid_sum, dim3(blocks), dim3(kBlock), args, 0, nullptr) == cudaSuccess);
    const std::vector<int> got = out.host();
    EXPECT(got[0] == sum);
    EXPECT(got[1] == 255);
    checks::Device<int> valid(1);
    not_cooperative<<<2, 32>>>(valid.data);
    EXPECT(valid.host()[0] == 0);
}

// ---- the block, the cluster, tiles, dynamic tiles and coalesced groups ----

__global__ void groups(int* out, float* copied, const float* source)
{
    __shared__ cg::block_tile_memory<kBlock> scratch;
    __shared__ float staged[2 * kBlock];
    cg::thread_block block = cg::this_thread_block(scratch);
    const int t = int(block.thread_rank());
    int* o = out + kFields * t;
    const int v = value_of(t);

    // The block and its cluster of one.
    o[0] = int(block.size() + 1000 * block.num_threads() + 1000000 * cg::group_size(block));
    o[1] = int(block.group_index().x + 10 * block.thread_index().x + 10000 * block.group_dim().x) +
           int(block.dim_threads().x != blockDim.x);
    auto arrived = block.barrier_arrive();
    block.barrier_wait(std::move(arrived));
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();
    auto cluster_arrived = cluster.barrier_arrive();
    cluster.barrier_wait(std::move(cluster_arrived));
    __shared__ int shared_word;
    o[2] = int(cluster.block_rank() + 10 * cluster.num_blocks() + 100 * cluster.dim_blocks().x +
               1000 * cluster.block_index().x + 10000 * (cluster.thread_rank() == unsigned(t)) +
               100000 * (cluster.size() == cluster.num_threads()) + 1000000 * (cluster.thread_index().x == threadIdx.x) +
               (cluster.dim_threads().x != blockDim.x) + 3 * (cluster.map_shared_rank(&shared_word, 0) != &shared_word) +
               5 * int(cluster.query_shared_rank(&shared_word)));

    // Static tiles of one warp, and of a tile.
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    const cg::thread_block_tile<16, cg::thread_block> half = cg::tiled_partition<16>(block);
    const auto quarter = cg::tiled_partition<4>(half);
    o[3] = warp.shfl(v, 31 - int(warp.thread_rank()));
    o[4] = warp.shfl_down(v, 3) + 100 * warp.shfl_up(v, 2) + 10000 * half.shfl_xor(v, 5);
    o[5] = int(warp.ballot(v > 0));
    o[6] = warp.any(v == 6) + 2 * warp.all(v > -7) + 4 * half.any(v > 100) + 8 * quarter.all(v < 7);
    o[7] = int(warp.match_any(v & 3));
    int predicate = -1;
    o[8] = int(warp.match_all(7, predicate)) + predicate;
    o[9] = int(quarter.thread_rank() + 10 * quarter.meta_group_rank() + 100 * quarter.meta_group_size() +
               1000 * quarter.size() + 10000 * quarter.num_threads());
    o[10] = int(half.meta_group_rank() + 10 * half.meta_group_size());
    warp.sync();
    half.sync();
    cg::sync(quarter);
    o[11] = int(cg::thread_rank(quarter)) + 10 * int(cg::group_size(half));
    const cg::thread_block_tile<8> eight = cg::tiled_partition<8>(block);  // of a block, as a tile of no parent
    const cg::thread_block_tile<2> two = cg::tiled_partition<2>(block);
    const cg::thread_block_tile<1> one = cg::this_thread();
    o[12] = eight.shfl(v, 7) + 100 * two.shfl(v, 1) + 10000 * int(one.thread_rank() + one.size());

    // Reductions and scans of a tile, with each operator.
    o[13] = cg::reduce(warp, v, cg::plus<int>());
    o[14] = cg::reduce(warp, v, cg::less<int>()) + 100 * cg::reduce(half, v, cg::greater<int>());
    o[15] = int(cg::reduce(eight, unsigned(v) | 0xf0u, cg::bit_and<unsigned>()) ^
                cg::reduce(eight, 1u << eight.thread_rank(), cg::bit_or<unsigned>()) ^
                cg::reduce(eight, unsigned(t), cg::bit_xor<unsigned>()));
    o[16] = cg::inclusive_scan(warp, v) + 1000 * cg::exclusive_scan(warp, v);
    o[17] = cg::inclusive_scan(half, v, cg::greater<int>()) + 100 * cg::exclusive_scan(quarter, v, cg::plus<int>());
    __shared__ int stored[kBlock / 32];
    cg::reduce_store_async(warp, &stored[warp.meta_group_rank()], v, cg::plus<int>());
    block.sync();
    o[18] = stored[warp.meta_group_rank()];

    // Tiles of several warps.
    cg::thread_block_tile<64> pair_of_warps = cg::tiled_partition<64>(block);
    const auto four_warps = cg::tiled_partition<128>(block);
    pair_of_warps.sync();
    four_warps.sync();
    o[19] = pair_of_warps.shfl(v, 63) + 100 * four_warps.shfl(v, 0);
    o[20] = pair_of_warps.any(v == 6) + 2 * pair_of_warps.all(v > -7) + 4 * four_warps.all(v > 0);
    o[21] = int(pair_of_warps.thread_rank() + 1000 * pair_of_warps.meta_group_rank() +
                10000 * pair_of_warps.meta_group_size() + 100000 * (pair_of_warps.num_threads() == pair_of_warps.size()));
    o[22] = cg::reduce(pair_of_warps, v, cg::plus<int>()) + 1000 * cg::reduce(four_warps, v, cg::greater<int>());
    o[23] = int(four_warps.meta_group_rank() + 10 * four_warps.meta_group_size());

    // A tile chosen at run time, and one of it.
    cg::thread_group dynamic = cg::tiled_partition(block, 16);
    const cg::thread_group smaller = cg::tiled_partition(dynamic, 4);
    dynamic.sync();
    smaller.sync();
    cg::thread_group whole = block;
    whole.sync();
    o[24] = int(dynamic.thread_rank() + 100 * dynamic.size() + 10000 * smaller.size() +
                100000 * (whole.get_type() != dynamic.get_type()) + 1000000 * (whole.thread_rank() == unsigned(t)));
    cg::thread_group large = cg::tiled_partition(block, 64);
    large.sync();
    o[25] = int(large.thread_rank());

    // The lanes of a branch: a third of each warp.
    if (warp.thread_rank() % 3 == 0) {
        cg::coalesced_group active = cg::coalesced_threads();
        const int r = int(active.thread_rank());
        o[26] = int(active.size() + 100 * active.num_threads()) + 10000 * r;
        o[27] = active.shfl(v, 0) + 100 * active.shfl_down(v, 1) + 10000 * active.shfl_up(v, 2);
        o[28] = int(active.ballot(v > 0));
        o[29] = active.any(v == 6) + 2 * active.all(v > -7);
        o[30] = int(active.match_any(v & 1));
        o[31] = int(active.match_all(5, predicate)) + 100 * predicate;
        active.sync();
        o[32] = cg::reduce(active, v, cg::plus<int>()) + 1000 * cg::inclusive_scan(active, 1);
        o[33] = int(active.meta_group_rank() + 10 * active.meta_group_size());
        const cg::coalesced_group pairs = cg::tiled_partition(active, 2);
        o[34] = int(pairs.thread_rank() + 10 * pairs.size() + 100 * pairs.meta_group_rank() + 1000 * pairs.meta_group_size());
        const cg::coalesced_group positive = cg::binary_partition(active, v > 0);
        o[35] = int(positive.size());
        const cg::coalesced_group same = cg::labeled_partition(active, v & 1);
        o[36] = int(same.size());
        const cg::thread_group as_group = active;
        o[37] = int(as_group.size() + 100 * as_group.thread_rank());
        o[38] = cg::exclusive_scan(active, v, cg::plus<int>());
    }
    const cg::coalesced_group tile_positive = cg::binary_partition(eight, v > 0);
    const cg::coalesced_group tile_same = cg::labeled_partition(eight, v & 3);
    o[39] = int(tile_positive.size() + 100 * tile_same.size());

    // invoke_one: the first thread of the group runs it; invoke_one_broadcast gives every thread its result.
    __shared__ int once;
    if (t == 0) once = 0;
    block.sync();
    cg::invoke_one(warp, [&] { atomicAdd(&once, 1); });
    block.sync();
    o[40] = once + 100 * cg::invoke_one_broadcast(warp, [&] { return v * 2; });

    // memcpy_async: the block copies, and the words are there once it waits (wait_prior<1>: all but the newest).
    cg::memcpy_async(block, staged, source, sizeof(float) * kBlock);
    cg::memcpy_async(block, staged + kBlock, size_t(kBlock), source + kBlock, size_t(kBlock));
    cg::wait_prior<1>(block);
    const float first = staged[kBlock - 1 - t];
    cg::wait(block);
    copied[t] = first + 1000.0f * staged[kBlock + t];
}

void check_groups()
{
    std::vector<float> source(2 * kBlock);
    for (int i = 0; i < 2 * kBlock; ++i) source[std::size_t(i)] = float(i) * 0.5f;
    checks::Device<float> in(source), copied(kBlock);
    checks::Device<int> out(kFields * kBlock);
    groups<<<1, kBlock>>>(out.data, copied.data, in.data);
    const std::vector<int> got = out.host();
    int v[kBlock];
    for (int t = 0; t < kBlock; ++t) v[t] = value_on_host(t);
    // Reductions and scans over ranks [first, first + size) of those `in` the group.
    const auto over = [&](int first, int size, auto op, int start) {
        int r = start;
        for (int i = first; i < first + size; ++i) r = op(r, v[i]);
        return r;
    };
    const auto plus = [](int a, int b) { return a + b; };
    const auto lowest = [](int a, int b) { return std::min(a, b); };
    const auto highest = [](int a, int b) { return std::max(a, b); };
    for (int t = 0; t < kBlock; ++t) {
        const int* o = &got[std::size_t(kFields * t)];
        const int lane = t % 32, w = t / 32 * 32, h = t / 16 * 16, q = t / 4 * 4, e = t / 8 * 8;
        EXPECT(o[0] == kBlock * 1001001);
        EXPECT(o[1] == 10 * t + 10000 * kBlock);
        EXPECT(o[2] == 0 + 10 + 100 + 0 + 10000 + 100000 + 1000000);
        EXPECT(o[3] == v[w + 31 - lane]);
        const int down = lane + 3 < 32 ? v[t + 3] : v[t], up = lane >= 2 ? v[t - 2] : v[t], x = v[h + ((t % 16) ^ 5)];
        EXPECT(o[4] == down + 100 * up + 10000 * x);
        unsigned ballot = 0, match = 0;
        for (int l = 0; l < 32; ++l) ballot |= unsigned(v[w + l] > 0) << l, match |= unsigned((v[w + l] & 3) == (v[t] & 3)) << l;
        EXPECT(unsigned(o[5]) == ballot);
        bool any6 = false, all_gt = true, quarter_lt = true;
        for (int l = 0; l < 32; ++l) any6 |= v[w + l] == 6, all_gt &= v[w + l] > -7;
        for (int l = 0; l < 4; ++l) quarter_lt &= v[q + l] < 7;
        EXPECT(o[6] == int(any6) + 2 * int(all_gt) + 0 + 8 * int(quarter_lt));
        EXPECT(unsigned(o[7]) == match);
        EXPECT(o[8] == int(0xffffffffu) + 1);
        EXPECT(o[9] == t % 4 + 10 * ((t % 16) / 4) + 100 * 4 + 1000 * 4 + 10000 * 4);
        EXPECT(o[10] == t / 16 + 10 * (kBlock / 16));
        EXPECT(o[11] == t % 4 + 160);
        EXPECT(o[12] == v[e + 7] + 100 * v[t / 2 * 2 + 1] + 10000 * 1);
        EXPECT(o[13] == over(w, 32, plus, 0));
        EXPECT(o[14] == over(w, 32, lowest, v[w]) + 100 * over(h, 16, highest, v[h]));
        unsigned anded = ~0u, xored = 0;
        for (int i = e; i < e + 8; ++i) anded &= unsigned(v[i]) | 0xf0u, xored ^= unsigned(i);
        EXPECT(unsigned(o[15]) == (anded ^ 0xffu ^ xored));
        EXPECT(o[16] == over(w, lane + 1, plus, 0) + 1000 * over(w, lane, plus, 0));
        EXPECT(o[17] == over(h, t % 16 + 1, highest, v[h]) + 100 * over(q, t % 4, plus, 0));
        EXPECT(o[18] == over(w, 32, plus, 0));
        EXPECT(o[19] == v[t / 64 * 64 + 63] + 100 * v[0]);
        bool pair_any6 = false, pair_all = true, all_positive = true;
        for (int i = t / 64 * 64; i < t / 64 * 64 + 64; ++i) pair_any6 |= v[i] == 6, pair_all &= v[i] > -7;
        for (int i = 0; i < kBlock; ++i) all_positive &= v[i] > 0;
        EXPECT(o[20] == int(pair_any6) + 2 * int(pair_all) + 4 * int(all_positive));
        EXPECT(o[21] == t % 64 + 1000 * (t / 64) + 10000 * 2 + 100000);
        EXPECT(o[22] == over(t / 64 * 64, 64, plus, 0) + 1000 * over(0, kBlock, highest, v[0]));
        EXPECT(o[23] == 0 + 10);
        EXPECT(o[24] == t % 16 + 1600 + 40000 + 100000 + 1000000);
        EXPECT(o[25] == t % 64);
        if (lane % 3 == 0) {
            int members[11], count = 0;
            for (int l = 0; l < 32; l += 3) members[count++] = w + l;
            const int r = lane / 3;
            EXPECT(o[26] == count * 101 + 10000 * r);
            const int shfl_down = r + 1 < count ? v[members[r + 1]] : v[t], shfl_up = r >= 2 ? v[members[r - 2]] : v[t];
            EXPECT(o[27] == v[members[0]] + 100 * shfl_down + 10000 * shfl_up);
            unsigned compact = 0, same_parity = 0;
            int sum = 0, positive = 0, parity = 0, before = 0;
            bool any = false, all = true;
            for (int k = 0; k < count; ++k) {
                const int m = v[members[k]];
                compact |= unsigned(m > 0) << k;
                same_parity |= unsigned((m & 1) == (v[t] & 1)) << k;
                sum += m, positive += m > 0, parity += (m & 1) == (v[t] & 1), any |= m == 6, all &= m > -7;
                if (k < r) before += m;
            }
            EXPECT(unsigned(o[28]) == compact);
            EXPECT(o[29] == int(any) + 2 * int(all));
            EXPECT(unsigned(o[30]) == same_parity);
            EXPECT(o[31] == int((1u << count) - 1u) + 100);
            EXPECT(o[32] == sum + 1000 * (r + 1));
            EXPECT(o[33] == 0 + 10);
            EXPECT(o[34] == r % 2 + 10 * std::min(2, count - r / 2 * 2) + 100 * (r / 2) + 1000 * ((count + 1) / 2));
            EXPECT(o[35] == (v[t] > 0 ? positive : count - positive));
            EXPECT(o[36] == parity);
            EXPECT(o[37] == count + 100 * r);
            EXPECT(o[38] == before);
        }
        int tile_positive = 0, tile_same = 0;
        for (int i = e; i < e + 8; ++i) tile_positive += (v[i] > 0) == (v[t] > 0), tile_same += (v[i] & 3) == (v[t] & 3);
        EXPECT(o[39] == tile_positive + 100 * tile_same);
        EXPECT(o[40] == kBlock / 32 + 100 * 2 * v[w]);
    }
    const std::vector<float> c = copied.host();
    for (int t = 0; t < kBlock; ++t) EXPECT(c[std::size_t(t)] == source[std::size_t(kBlock - 1 - t)] + 1000.0f * source[std::size_t(kBlock + t)]);
}

}  // namespace

int main()
{
    check_grid();
    check_groups();
    return checks::finish("cooperative_groups.cu");
}
