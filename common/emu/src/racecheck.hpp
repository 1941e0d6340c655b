// racecheck and initcheck of shared memory: for each byte of the block's shared memory, who last wrote it and
// who read it since, and in which barrier epoch. Two accesses of one byte by different threads, one a write,
// race unless a __syncthreads() (a new epoch) or, within a warp, a __syncwarp() lies between. An atomic is a
// write that races with another thread's plain read or write, never with its atomic: the bins that one thread
// zeroes while another already adds into them race, the additions themselves do not. Bytes, as
// compute-sanitizer tracks them: two threads that write the two halves of one word (a __half or a char each)
// do not race.
#pragma once

#include <cstdint>

#include "block.hpp"
#include "findings.hpp"
#include "options.hpp"

namespace cml_emu {

class SharedShadow {
public:
    SharedShadow();
    ~SharedShadow();
    SharedShadow(const SharedShadow&) = delete;
    SharedShadow& operator=(const SharedShadow&) = delete;
    void begin_block() { ++generation_; }
    // An access of `size` bytes at `offset` in the block's shared memory (which starts at `block_base`); an
    // atomic is a store too.
    void access(const Block& block, const ThreadState& thread, std::uintptr_t block_base, std::size_t offset,
                unsigned size, bool store, bool atomic, const void* pc, Findings& findings);

private:
    struct Access {
        const void* pc = nullptr;
        std::uint32_t epoch = 0;
        std::uint32_t clock = 0;
        std::int16_t rank = -1;  // -1: none
        bool store = false;
        bool atomic = false;
    };
    // The state of one byte; or of a word, whose 4 bytes are alike until an access covers part of it: then
    // each byte has its own (`split`), until an access writes the whole word again. Most accesses are of
    // whole words, and cost one state each.
    struct State {
        std::uint32_t generation = 0;  // the block it describes; any other means untouched in this block
        bool written = false;
        bool split = false;  // of a word: its bytes' states are in bytes_
        Access write;
        Access reads[2];  // the last two threads that read it since the write
    };
    template <class Report, class Uninitialized>
    void touch(State& state, const Access& now, const Block& block, const ThreadState& thread, const Options& o,
               Report& report, Uninitialized& uninitialized);
    State* words_;                  // one per 4 bytes of SharedMemory::kCapacity, mapped as zeros (generation 0)
    State* bytes_;                  // one per byte, for the split words
    std::uint32_t generation_ = 0;  // begin_block() makes it 1 before the first block
};

// __syncwarp() among `lanes`: each lane then knows everything the others did before it.
void join_clocks(Block& block, int warp, unsigned lanes);

}  // namespace cml_emu
