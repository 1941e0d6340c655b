// The emulator's own test kernels (kernels.cu), one launcher each; every pointer is a device pointer.
#pragma once

#include <cuda_runtime.h>

// out[k * 32 + lane], for one warp of 32 lanes whose values are lane * 10: k = 0 __shfl_sync from lane 31 - lane,
// 1 __shfl_up_sync by 3, 2 __shfl_down_sync by 5, 3 __shfl_xor_sync with 1, 4 __shfl_down_sync by 1 in
// segments of 8 lanes (width 8).
void shuffles(int* out);

// out[0] __ballot_sync of lane % 3 == 0, out[1] __any_sync of lane == 7, out[2] __all_sync of lane < 32,
// out[3] __all_sync of lane < 31, out[4] __syncthreads_count of t % 2 over 64 threads, out[5] __syncthreads_or
// of t == 63, out[6] __syncthreads_and of t < 63.
void votes(unsigned* out);

// One block of 64 threads, as cooperative groups see it (common/emu/include/cooperative_groups.h): out[k * 64 + t],
// k = 0 cg::reduce (plus) of the ranks over its tile of 32, 1 over its tile of 8, 2 meta_group_rank * 100 +
// thread_rank in the tile of 32, 3 the same in the tile of 8, 4 shfl_down by 1 in the tile of 8, 5 the tile of 8's
// ballot of even ranks, 6 slot 63 - t of a shared array written by every thread before block.sync().
void cooperative_groups_in_a_block(int* out);

// Per block of `threads`: a static __shared__ array and `extern __shared__` of `threads` ints, each filled by
// its thread, then read reversed after a barrier: out[block * threads + t] = 3 * (threads - 1 - t) + block.
void shared_reversal(int* out, int blocks, int threads);

// Every thread of `blocks` x 256 adds 1 to *count (atomicAdd on int), 0.5f to *sum (float), raises *most to
// its global rank (atomicMax) and sets *flag from 0 to 1 once (atomicCAS; *winners counts the winners).
void atomics(int* count, float* sum, int* most, int* flag, int* winners, int blocks);

// Per block of `threads`: every thread adds 1 to a __shared__ counter with atomicAdd; out[block] = threads.
void shared_atomics(int* out, int blocks, int threads);

// Cooperative groups in one block of kCooperativeThreads (2 warps). For tiles of S = 32, 16, 8, 4 (k = 0..3),
// thread r of the block writes out[(k * kCooperativeThreads + r) * kTileFacts + f]: f = 0 tile.thread_rank(),
// 1 tile.size(), 2 meta_group_rank(), 3 meta_group_size(), 4 shfl(r, 0), 5 shfl_down(r, 1), 6 shfl_xor(r,
// S / 2), 7 cg::reduce of r with cg::plus, 8 ballot(r even), 9 any(r is the tile's rank 1) + 2 * all(r is
// not the tile's last), 10 the slot of the next rank in the tile (2 * its r), read after tile.sync().
// block_facts[r * 4 + f]: f = 0 block.size(), 1 and 2 thread_rank() and size() of tiled_partition(block,
// 16), 3 the slot of thread kCooperativeThreads - 1 - r (3 * its rank), read after cg::sync(block).
constexpr int kCooperativeThreads = 64;
constexpr int kTileFacts = 11;
void cooperative_group_facts(int* out, int* block_facts);

// One block of kByteThreads: thread t writes t to the byte bytes[t % 32 * 4 + t / 32] and to the 2 bytes
// halves[t % 64 * 2 + t / 64] of two __shared__ arrays, so that threads of different warps share each 4-byte
// word, then after a barrier out[i] = bytes[i] + 1000 * halves[i], and thread w < 32 reads word w of bytes
// whole: out[128 + w] = its second byte. Then thread w writes word w whole, 4 bytes of w, and after a
// barrier out[256 + t] = bytes[127 - t]. No race: each byte has one writer between barriers.
constexpr int kByteThreads = 128;
void bytes_of_one_word(int* out);

// Planted races on bytes, in one block of 64 threads: threads 0 and 32 write one byte; thread 32 reads a byte
// thread 0 wrote; and threads 1 and 33 write two bytes of one word, which is no race. racecheck must report
// exactly two hazards, both errors (different warps).
void byte_races(int* out);

// Planted race: thread 0 zeroes a shared bin and thread 32 adds to it atomically, with no barrier between; then
// every thread adds atomically to another bin, zeroed before a barrier. racecheck must report exactly one hazard,
// an error (different warps): an atomic races with a plain store, never with another atomic.
void zeroed_while_added_to(int* out);

// Planted race: the two tiles of 16 of one warp each sync on their own (tile.sync()), then every lane reads
// the slot a lane of the other tile wrote. racecheck must report it (a warning: both in one warp).
void tiles_of_one_warp_race(int* out);

// Planted bugs for the checks (CML_EMU_CHECK), each in one block: out[0] = in[n], one past the end of `in`
// (memcheck); 32 threads read the 32 ints after a __shared__ array of 32 (memcheck); 32 threads read the
// upper half of a __shared__ array of 64 whose lower half alone was written (initcheck).
void read_past_the_end(const int* in, int n, int* out);
// Accesses outside every allocation, which the emulator must not make (memcheck reports each; without it
// the launch fails, cudaErrorIllegalAddress): 32 threads write out[n + kIntsIn64Kb + t], 64 KB past the end
// of `out`; read in[kIntsIn4Gb + t], 4 GB past `in`, where nothing is; write -1 to host[t], the host's memory.
constexpr int kIntsIn64Kb = 64 * 1024 / 4;
constexpr unsigned kIntsIn4Gb = 1u << 30;
void write_far_past_the_end(int* out, int n);
void wild_read(const int* in, int* out);
void write_to_host_memory(int* host);
void shared_past_the_end(int* out);
void shared_before_the_start(int* out);  // an atomic at a negative shared index
void unwritten_shared(int* out);

// Lanes 0-15 of warp 0 wait in a full-mask shuffle for lanes 16-31, which wait at __syncthreads(): no thread
// can go on. The launch must fail (cudaErrorLaunchFailure), reported as a barrier error, not hang.
void deadlock(int* out);

// out[k] = tex2D<float>(texture, x[k], y[k]) for 0 <= k < n: one thread per point (texture: a texture object).
void fetch_points(unsigned long long texture, const float* x, const float* y, float* out, int n);

// A cooperative launch of `blocks` blocks of 64: block b writes out[b] = b + 1, all wait at grid.sync(), then
// block b adds the next block's value: out[blocks + b] = b + 1 + (b + 1) % blocks + 1. More blocks than the
// emulator has workers: every block stays on them across the grid-wide barrier.
void grid_sync_neighbours(int* out, int blocks);

// A cooperative launch whose block 0 returns while the others wait at grid.sync(): a GPU waits forever.
void grid_sync_without_block_zero(int* out, int blocks);

// grid.sync() in a launch that is not cooperative, which a GPU leaves undefined.
void grid_sync_not_cooperative(int* out);

// What the counters see of accesses clang makes otherwise than a GPU, one warp of 32 lanes each
// (grader/tests/test_emulator_counts.py reads their counters):
// lane t copies in[t] to out[t] as a float4, and three floats at in[128 + 3 t] to out[128 + 3 t] as a struct of 3;
void aggregate_copies(const float* in, float* out);
// lane t copies `bytes` bytes from in + 4 t to out + 4 t with memcpy (a size no compiler can know), and fills
// the `bytes` bytes at out + 128 + 4 t with zeros by memset;
void library_copies(const float* in, float* out, int bytes);
// out[t] = kCountedTable[t % 4] read by its name, plus through[t % 4], a pointer to the same __constant__ table
// (cudaGetSymbolAddress); set_counted_table fills it;
constexpr int kCountedEntries = 4;
void set_counted_table(const float* values);
void constant_reads(float* out);
// every lane adds 1 to *counter by a GCC atomic builtin (a plain atomic instruction, not CUDA's atomicAdd).
void builtin_atomics(unsigned* counter);
