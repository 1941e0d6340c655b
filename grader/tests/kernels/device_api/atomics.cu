// Every atomic function in every scope (device, _block, _system) on every type the toolkit defines it for
// (common/emu/device_api.txt: device_atomic_functions.h, sm_20, sm_32, sm_60 and sm_70 atomics, sm_90's float2,
// float4 and 16-byte ones, half and bfloat16): 256 threads of two blocks update counters in global memory, and a
// block's own in shared memory, and the counters' final values (and the old values the calls returned, summed)
// are compared with the host's sum of the same updates. Run on the CPU emulator by
// grader/tests/emulator/test_emulator_device_api.py; main returns how many checks failed.
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <climits>

#include "checks.cuh"

namespace {

using ull = unsigned long long;
constexpr int kThreads = 256;

// 16 bytes, aligned to 16: what sm_90's atomicCAS and atomicExch take whole.
struct alignas(16) Wide {
    int count, sum, unused[2];
};

struct Counters {
    int ints[8];
    unsigned uints[11];
    ull ulls[9];
    long long lls[5];
    float floats[2];
    double doubles[1];
    float2 pair;
    float4 quad;
    Wide wide;     // counted by 16-byte CAS loops
    Wide swapped;  // 16-byte exchanges
    ull exchanged;  // the sum of what every exchange returned
};

struct Halves {
    __half half;
    __half2 half2;
    __nv_bfloat16 bfloat16;
    __nv_bfloat162 bfloat162;
    unsigned short shorts[1];
};

Counters initial()
{
    Counters c{};
    c.ints[2] = INT_MAX, c.ints[3] = INT_MIN, c.ints[4] = -1;
    c.uints[2] = UINT_MAX, c.uints[4] = UINT_MAX;
    c.ulls[2] = ~0ull, c.ulls[4] = ~0ull;
    c.lls[0] = LLONG_MAX, c.lls[1] = LLONG_MIN, c.lls[2] = -1;
    return c;
}

// Each thread's updates, in the scope `scope`; the threads' ids t run over 0 .. kThreads - 1.
#define UPDATES(scope)                                                                                         \
    __device__ void updates##scope(Counters* c, int t)                                                         \
    {                                                                                                          \
        const unsigned bit = 1u << (t % 31);                                                                   \
        atomicAdd##scope(&c->ints[0], 1);                                                                      \
        atomicSub##scope(&c->ints[1], 2);                                                                      \
        atomicMin##scope(&c->ints[2], t - 100);                                                                \
        atomicMax##scope(&c->ints[3], t - 100);                                                                \
        atomicAnd##scope(&c->ints[4], int(~bit));                                                              \
        atomicOr##scope(&c->ints[5], int(bit));                                                                \
        atomicXor##scope(&c->ints[6], int(bit));                                                               \
        for (int seen = 0, old; (old = atomicCAS##scope(&c->ints[7], seen, seen + t)) != seen;) seen = old; \
        atomicAdd##scope(&c->uints[0], 3u);                                                                    \
        atomicSub##scope(&c->uints[1], 1u);                                                                    \
        atomicMin##scope(&c->uints[2], unsigned(t + 7));                                                       \
        atomicMax##scope(&c->uints[3], unsigned(t + 7));                                                       \
        atomicAnd##scope(&c->uints[4], ~bit);                                                                  \
        atomicOr##scope(&c->uints[5], bit);                                                                    \
        atomicXor##scope(&c->uints[6], bit);                                                                   \
        for (unsigned seen = 0, old; (old = atomicCAS##scope(&c->uints[7], seen, seen + 2u)) != seen;) seen = old; \
        atomicInc##scope(&c->uints[8], 9u);                                                                    \
        atomicDec##scope(&c->uints[9], 9u);                                                                    \
        atomicAdd##scope(&c->exchanged, ull(atomicExch##scope(&c->uints[10], unsigned(t))));                   \
        atomicAdd##scope(&c->ulls[0], ull(t) << 33);                                                           \
        atomicAdd##scope(&c->exchanged, atomicExch##scope(&c->ulls[1], ull(t)));                               \
        atomicMin##scope(&c->ulls[2], ull(t) + (1ull << 40));                                                  \
        atomicMax##scope(&c->ulls[3], ull(t) + (1ull << 40));                                                  \
        atomicAnd##scope(&c->ulls[4], ~(ull(bit) << 32));                                                      \
        atomicOr##scope(&c->ulls[5], ull(bit) << 32);                                                          \
        atomicXor##scope(&c->ulls[6], ull(bit) << 32);                                                         \
        for (ull seen = 0, old; (old = atomicCAS##scope(&c->ulls[7], seen, seen + ull(t))) != seen;) seen = old; \
        atomicMin##scope(&c->lls[0], -(long long)t << 35);                                                     \
        atomicMax##scope(&c->lls[1], -(long long)t << 35);                                                     \
        atomicAnd##scope(&c->lls[2], ~((long long)bit << 31));                                                 \
        atomicOr##scope(&c->lls[3], (long long)bit << 31);                                                     \
        atomicXor##scope(&c->lls[4], (long long)bit << 31);                                                    \
        atomicAdd##scope(&c->floats[0], 0.5f);                                                                 \
        atomicAdd##scope(&c->exchanged, ull(atomicExch##scope(&c->floats[1], float(t))));                      \
        atomicAdd##scope(&c->doubles[0], 0.25);                                                                \
        atomicAdd##scope(&c->pair, make_float2(1.0f, 2.0f));                                                   \
        atomicAdd##scope(&c->quad, make_float4(1.0f, 2.0f, 3.0f, 4.0f));                                       \
        for (Wide seen{};;) {  /* a first guess: the loop reads the counter only atomically */                                                                          \
            Wide next = seen;                                                                                  \
            next.count += 1, next.sum += t;                                                                    \
            const Wide old = atomicCAS##scope(&c->wide, seen, next);                                           \
            if (old.count == seen.count && old.sum == seen.sum) break;                                         \
            seen = old;                                                                                        \
        }                                                                                                      \
    }
UPDATES()
UPDATES(_block)
UPDATES(_system)

// The same counters, in each scope, and in the block's shared memory.
__global__ void atomics(const Counters* start, Counters* device_scope, Counters* block_scope, Counters* system_scope,
                        Counters* shared_out, Halves* halves)
{
    __shared__ Counters shared;
    const int t = int(blockIdx.x * blockDim.x + threadIdx.x);
    // The initial values, a word per thread (a copy whole would be a memcpy, whose stores the checks do not see).
    for (unsigned i = threadIdx.x; i < sizeof(Counters) / 4; i += blockDim.x)
        reinterpret_cast<int*>(&shared)[i] = reinterpret_cast<const int*>(start)[i];
    __syncthreads();
    updates(device_scope, t);
    updates_block(block_scope, t);
    updates_system(system_scope, t);
    updates_block(&shared, t);
    __syncthreads();
    if (threadIdx.x == 0) shared_out[blockIdx.x] = shared;
    atomicAdd(&halves->half, __float2half(1.0f));
    atomicAdd(&halves->half2, __floats2half2_rn(1.0f, 0.5f));
    atomicAdd(&halves->bfloat16, __float2bfloat16(1.0f));
    atomicAdd(&halves->bfloat162, __floats2bfloat162_rn(2.0f, 0.5f));
    for (unsigned short seen = 0, old; (old = atomicCAS(&halves->shorts[0], seen, (unsigned short)(seen + 1))) != seen;)
        seen = old;
    // atomicExch of 16 bytes: each thread puts its own, and the one left is some thread's, whole.
    const Wide mine{t, -t, {0, 0}};
    atomicExch(&device_scope->swapped, mine);
    atomicExch_block(&block_scope->swapped, mine);
    atomicExch_system(&system_scope->swapped, mine);
}

// What `threads` threads, numbered from `first`, leave in the counters, by the updates' own arithmetic.
Counters expected(int first, int threads)
{
    Counters c = initial();
    ull exchanged = 0;
    for (int t = first; t < first + threads; ++t) {
        const unsigned bit = 1u << (t % 31);
        c.ints[0] += 1, c.ints[1] -= 2, c.ints[2] = std::min(c.ints[2], t - 100), c.ints[3] = std::max(c.ints[3], t - 100);
        c.ints[4] &= int(~bit), c.ints[5] |= int(bit), c.ints[6] ^= int(bit), c.ints[7] += t;
        c.uints[0] += 3, c.uints[1] -= 1, c.uints[2] = std::min(c.uints[2], unsigned(t + 7));
        c.uints[3] = std::max(c.uints[3], unsigned(t + 7)), c.uints[4] &= ~bit, c.uints[5] |= bit, c.uints[6] ^= bit;
        c.uints[7] += 2, c.uints[8] = c.uints[8] >= 9 ? 0 : c.uints[8] + 1;
        c.uints[9] = c.uints[9] == 0 || c.uints[9] > 9 ? 9 : c.uints[9] - 1;
        c.ulls[0] += ull(t) << 33, c.ulls[2] = std::min(c.ulls[2], ull(t) + (1ull << 40));
        c.ulls[3] = std::max(c.ulls[3], ull(t) + (1ull << 40)), c.ulls[4] &= ~(ull(bit) << 32);
        c.ulls[5] |= ull(bit) << 32, c.ulls[6] ^= ull(bit) << 32, c.ulls[7] += ull(t);
        c.lls[0] = std::min(c.lls[0], -(long long)t << 35), c.lls[1] = std::max(c.lls[1], -(long long)t << 35);
        c.lls[2] &= ~((long long)bit << 31), c.lls[3] |= (long long)bit << 31, c.lls[4] ^= (long long)bit << 31;
        c.floats[0] += 0.5f, c.doubles[0] += 0.25;
        c.pair.x += 1, c.pair.y += 2, c.quad.x += 1, c.quad.y += 2, c.quad.z += 3, c.quad.w += 4;
        c.wide.count += 1, c.wide.sum += t;
        exchanged += ull(t);
    }
    c.exchanged = exchanged;  // every exchange's old value, and the last value left, are the threads' ids
    return c;
}

void check(const Counters& got, const Counters& want, bool exchanges)
{
    for (int i = 0; i < 8; ++i) EXPECT(got.ints[i] == want.ints[i]);
    for (int i = 0; i < 10; ++i) EXPECT(got.uints[i] == want.uints[i]);
    for (int i : {0, 2, 3, 4, 5, 6, 7}) EXPECT(got.ulls[i] == want.ulls[i]);
    for (int i = 0; i < 5; ++i) EXPECT(got.lls[i] == want.lls[i]);
    EXPECT(got.floats[0] == want.floats[0] && got.doubles[0] == want.doubles[0]);
    EXPECT(got.pair.x == want.pair.x && got.pair.y == want.pair.y);
    EXPECT(got.quad.x == want.quad.x && got.quad.y == want.quad.y && got.quad.z == want.quad.z && got.quad.w == want.quad.w);
    if (!exchanges) return;
    // Each of the three exchanges (unsigned, ull, float) returned every id but the one left, and 0 first: the
    // olds and the one left sum to the ids' sum, three times.
    const ull left = ull(got.uints[10]) + got.ulls[1] + ull(got.floats[1]);
    EXPECT(got.exchanged + left == 3 * want.exchanged);
    EXPECT(got.wide.count == want.wide.count && got.wide.sum == want.wide.sum);
    EXPECT(got.swapped.sum == -got.swapped.count && got.swapped.count >= 0 && got.swapped.count < kThreads);
}

}  // namespace

int main()
{
    const Counters start = initial();
    checks::Device<Counters> initial_values(1, &start), device_scope(1, &start), block_scope(1, &start),
        system_scope(1, &start), shared(2);
    const Halves no_halves{};
    checks::Device<Halves> halves(1, &no_halves);
    atomics<<<2, kThreads / 2>>>(initial_values.data, device_scope.data, block_scope.data, system_scope.data,
                                 shared.data, halves.data);
    const Counters want = expected(0, kThreads);
    for (const auto* counters : {&device_scope, &block_scope, &system_scope}) check(counters->host()[0], want, true);
    const std::vector<Counters> per_block = shared.host();
    check(per_block[0], expected(0, kThreads / 2), false);
    check(per_block[1], expected(kThreads / 2, kThreads / 2), false);
    EXPECT(per_block[0].wide.count == kThreads / 2 && per_block[0].wide.sum == (kThreads / 2 - 1) * kThreads / 4);
    const Halves h = halves.host()[0];
    EXPECT(__half2float(h.half) == float(kThreads));
    EXPECT(__low2float(h.half2) == float(kThreads) && __high2float(h.half2) == float(kThreads) / 2);
    EXPECT(__bfloat162float(h.bfloat16) == float(kThreads));
    EXPECT(__low2float(h.bfloat162) == 2.0f * kThreads && __high2float(h.bfloat162) == float(kThreads) / 2);
    EXPECT(h.shorts[0] == kThreads);
    return checks::finish("atomics.cu");
}
