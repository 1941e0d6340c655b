// Every warp-level function (common/emu/device_api.txt: sm_30 intrinsics, sm_70's matches, sm_80's reductions)
// and the named barriers, in kernels whose lanes each compute what the function gives them, compared with a
// host reference of the lanes' values: shuffles of every type and width, votes, __match_any_sync and
// __match_all_sync, __reduce_*_sync, __activemask in converged and diverged code, __fns, and __barrier_sync of
// part of a block. Run on the CPU emulator by grader/tests/emulator/test_emulator_device_api.py; main returns how many
// checks failed.
#include <cstdint>

#include "checks.cuh"

namespace {

constexpr unsigned kFull = 0xffffffffu;
constexpr int kWarp = 32;

// Each lane's value, a function of its lane number that both sides compute.
__host__ __device__ int value_of(int lane) { return (lane * 7 + 3) % 11 - 5; }

// Shuffles of each type the toolkit declares them for, every kind, at widths 32 and 8.
template <class T>
__global__ void shuffles(T* out)
{
    const int lane = int(threadIdx.x);
    const T v = T(value_of(lane) * 3 + lane);
    T* o = out + 8 * lane;
    o[0] = __shfl_sync(kFull, v, (lane + 5) % kWarp);
    o[1] = __shfl_up_sync(kFull, v, 3);
    o[2] = __shfl_down_sync(kFull, v, 4);
    o[3] = __shfl_xor_sync(kFull, v, 6);
    o[4] = __shfl_sync(kFull, v, 2, 8);
    o[5] = __shfl_up_sync(kFull, v, 1, 8);
    o[6] = __shfl_down_sync(kFull, v, 2, 8);
    o[7] = __shfl_xor_sync(kFull, v, 3, 8);
}

template <class T>
void check_shuffles()
{
    checks::Device<T> out(8 * kWarp);
    shuffles<T><<<1, kWarp>>>(out.data);
    const std::vector<T> got = out.host();
    const auto v = [](int lane) { return T(value_of(lane) * 3 + lane); };
    for (int lane = 0; lane < kWarp; ++lane) {
        const int base = lane & ~7;
        const T want[8] = {v((lane + 5) % kWarp), v(lane >= 3 ? lane - 3 : lane), v(lane + 4 < kWarp ? lane + 4 : lane),
                           v(lane ^ 6), v(base + 2), v(lane - 1 >= base ? lane - 1 : lane),
                           v(lane + 2 < base + 8 ? lane + 2 : lane), v(lane ^ 3)};
        for (int k = 0; k < 8; ++k) EXPECT(got[std::size_t(8 * lane + k)] == want[k]);
    }
}

// Votes, matches and reductions, over the whole warp and over the lanes of an odd mask.
__global__ void collectives(unsigned* out)
{
    const int lane = int(threadIdx.x);
    const int v = value_of(lane);
    unsigned* o = out + 24 * lane;
    const unsigned odd = 0xaaaaaaaau;
    o[0] = __ballot_sync(kFull, v > 0);
    o[1] = unsigned(__any_sync(kFull, v == 5));
    o[2] = unsigned(__all_sync(kFull, v > -6));
    o[3] = unsigned(__uni_sync(kFull, v > 100));
    o[4] = unsigned(__uni_sync(kFull, v > 0));
    o[5] = __match_any_sync(kFull, v);
    int predicate = -1;
    o[6] = __match_all_sync(kFull, v, &predicate);
    o[7] = unsigned(predicate);
    o[8] = __match_all_sync(kFull, 42u, &predicate);
    o[9] = unsigned(predicate);
    o[10] = __match_any_sync(kFull, (long long)v * 1000000007LL);
    o[11] = __match_any_sync(kFull, float(v) * 0.5f) ^ __match_any_sync(kFull, double(v)) ^
            __match_any_sync(kFull, (unsigned long long)(v & 3)) ^ __match_any_sync(kFull, long(v & 1)) ^
            __match_any_sync(kFull, (unsigned long)(v & 1)) ^ __match_any_sync(kFull, unsigned(v & 1));
    o[12] = __match_all_sync(kFull, (long long)(lane / 32), &predicate) ^ unsigned(predicate) ^
            __match_all_sync(kFull, 1.5f, &predicate) ^ __match_all_sync(kFull, 2.5, &predicate) ^
            __match_all_sync(kFull, 7ull, &predicate) ^ __match_all_sync(kFull, 7l, &predicate) ^
            __match_all_sync(kFull, 7ul, &predicate) ^ __match_all_sync(kFull, 7, &predicate);
    o[13] = unsigned(__reduce_add_sync(kFull, v));
    o[14] = __reduce_add_sync(kFull, unsigned(lane));
    o[15] = unsigned(__reduce_min_sync(kFull, v));
    o[16] = __reduce_min_sync(kFull, unsigned(v));  // unsigned: the negative values are the largest
    o[17] = unsigned(__reduce_max_sync(kFull, v));
    o[18] = __reduce_max_sync(kFull, unsigned(v));
    o[19] = __reduce_and_sync(kFull, unsigned(v) | 0xf0u);
    o[20] = __reduce_or_sync(kFull, 1u << (lane % 16));
    o[21] = __reduce_xor_sync(kFull, unsigned(lane));
    if (odd >> lane & 1u) {  // the odd lanes only
        o[22] = __ballot_sync(odd, v > 0) | unsigned(__reduce_add_sync(odd, 1)) << 0;
        o[23] = __match_any_sync(odd, v & 1);
    }
    __syncwarp();
    if (odd >> lane & 1u) __syncwarp(odd);
}

void check_collectives()
{
    checks::Device<unsigned> out(24 * kWarp);
    collectives<<<1, kWarp>>>(out.data);
    const std::vector<unsigned> got = out.host();
    int values[kWarp];
    for (int lane = 0; lane < kWarp; ++lane) values[lane] = value_of(lane);
    unsigned positive = 0, odd_positive = 0;
    int sum = 0, lowest = values[0], highest = values[0];
    unsigned and_all = ~0u, lowest_u = ~0u, highest_u = 0, xor_all = 0, any_five = 0;
    for (int lane = 0; lane < kWarp; ++lane) {
        positive |= unsigned(values[lane] > 0) << lane;
        if (lane & 1) odd_positive |= unsigned(values[lane] > 0) << lane;
        sum += values[lane];
        lowest = std::min(lowest, values[lane]);
        highest = std::max(highest, values[lane]);
        lowest_u = std::min(lowest_u, unsigned(values[lane]));
        highest_u = std::max(highest_u, unsigned(values[lane]));
        and_all &= unsigned(values[lane]) | 0xf0u;
        xor_all ^= unsigned(lane);
        any_five |= values[lane] == 5;
    }
    const auto same = [&](auto key, unsigned mask, int lane) {
        unsigned m = 0;
        for (int other = 0; other < kWarp; ++other)
            if ((mask >> other & 1u) && key(other) == key(lane)) m |= 1u << other;
        return m;
    };
    for (int lane = 0; lane < kWarp; ++lane) {
        const unsigned* o = &got[std::size_t(24 * lane)];
        EXPECT(o[0] == positive);
        EXPECT(o[1] == any_five);
        EXPECT(o[2] == 1u);
        EXPECT(o[3] == 1u);
        EXPECT(o[4] == 0u);
        EXPECT(o[5] == same([&](int l) { return values[l]; }, kFull, lane));
        EXPECT(o[6] == 0u && o[7] == 0u);  // the lanes' values differ
        EXPECT(o[8] == kFull && o[9] == 1u);
        EXPECT(o[10] == same([&](int l) { return values[l]; }, kFull, lane));
        const unsigned matches = same([&](int l) { return values[l]; }, kFull, lane) ^
                                 same([&](int l) { return values[l]; }, kFull, lane) ^
                                 same([&](int l) { return values[l] & 3; }, kFull, lane) ^
                                 same([&](int l) { return values[l] & 1; }, kFull, lane) ^
                                 same([&](int l) { return values[l] & 1; }, kFull, lane) ^
                                 same([&](int l) { return values[l] & 1; }, kFull, lane);
        EXPECT(o[11] == matches);
        EXPECT(o[12] == (kFull ^ 1u ^ kFull ^ kFull ^ kFull ^ kFull ^ kFull ^ kFull));
        EXPECT(int(o[13]) == sum);
        EXPECT(o[14] == 31u * 32u / 2u);
        EXPECT(int(o[15]) == lowest);
        EXPECT(o[16] == lowest_u);
        EXPECT(int(o[17]) == highest);
        EXPECT(o[18] == highest_u);
        EXPECT(o[19] == and_all);
        EXPECT(o[20] == 0xffffu);
        EXPECT(o[21] == xor_all);
        if (lane & 1) {
            EXPECT(o[22] == (odd_positive | 16u));
            EXPECT(o[23] == same([&](int l) { return values[l] & 1; }, 0xaaaaaaaau, lane));
        }
    }
}

// __activemask: every lane in converged code; in a branch, the lanes that took it; after lanes returned, the rest.
__global__ void active(unsigned* out, int n)
{
    const int lane = int(threadIdx.x);
    out[lane] = __activemask();
    if (lane % 3 == 0) {
        out[kWarp + lane] = __activemask();
    } else {
        out[kWarp + lane] = ~__activemask();
    }
    if (lane >= n) return;
    out[2 * kWarp + lane] = __activemask();
}

void check_active()
{
    constexpr int n = 20;
    checks::Device<unsigned> out(3 * kWarp);
    active<<<1, kWarp>>>(out.data, n);
    const std::vector<unsigned> got = out.host();
    unsigned thirds = 0;
    for (int lane = 0; lane < kWarp; lane += 3) thirds |= 1u << lane;
    for (int lane = 0; lane < kWarp; ++lane) {
        EXPECT(got[std::size_t(lane)] == kFull);
        EXPECT(got[std::size_t(kWarp + lane)] == thirds);  // the else lanes stored the complement of theirs
        if (lane < n) EXPECT(got[std::size_t(2 * kWarp + lane)] == (1u << n) - 1u);
    }
}

// __fns: the n-th set bit from a base, upwards and downwards.
__global__ void find_set_bits(unsigned* out)
{
    const int i = int(threadIdx.x);
    out[i] = __fns(0xaaaaaaaau, unsigned(i % 32), i / 32 - 2);
}

unsigned fns_ref(unsigned mask, int base, int offset)
{
    if (offset == 0) return mask >> base & 1u ? unsigned(base) : 0xffffffffu;
    int count = std::abs(offset);
    for (int p = base; p >= 0 && p < 32; p += offset > 0 ? 1 : -1)
        if (mask >> p & 1u && --count == 0) return unsigned(p);
    return 0xffffffffu;
}

void check_find_set_bits()
{
    checks::Device<unsigned> out(160);
    find_set_bits<<<1, 160>>>(out.data);
    const std::vector<unsigned> got = out.host();
    for (int i = 0; i < 160; ++i) EXPECT(got[std::size_t(i)] == fns_ref(0xaaaaaaaau, i % 32, i / 32 - 2));
}

// Named barriers: barrier 1 holds the first two warps until both arrive, while the others go on to barrier 2;
// a thread that spins on a flag another sets (atomically), with __nanosleep, lets it run.
__global__ void named_barriers(int* out)
{
    __shared__ int first_half[64];
    __shared__ int flag;
    const int t = int(threadIdx.x);
    if (t == 0) flag = 0;
    __barrier_sync(0);
    if (t < 64) {
        first_half[t] = t * 2;
        __barrier_sync_count(1, 64);
        out[t] = first_half[63 - t];
    } else {
        __barrier_sync(2 - 2);  // barrier 0: the whole block, the first half included, below
    }
    if (t < 64) __barrier_sync(0);
    if (t == 64) atomicExch(&flag, 1);
    if (t == 1)
        while (atomicAdd(&flag, 0) == 0) __nanosleep(10);
    __syncthreads();
    if (t == 1) out[64] = flag;
}

void check_named_barriers()
{
    checks::Device<int> out(65);
    named_barriers<<<1, 128>>>(out.data);
    const std::vector<int> got = out.host();
    for (int t = 0; t < 64; ++t) EXPECT(got[std::size_t(t)] == (63 - t) * 2);
    EXPECT(got[64] == 1);
}

}  // namespace

int main()
{
    check_shuffles<int>();
    check_shuffles<unsigned>();
    check_shuffles<long>();
    check_shuffles<unsigned long>();
    check_shuffles<long long>();
    check_shuffles<unsigned long long>();
    check_shuffles<float>();
    check_shuffles<double>();
    check_collectives();
    check_active();
    check_find_set_bits();
    check_named_barriers();
    return checks::finish("warp.cu");
}
