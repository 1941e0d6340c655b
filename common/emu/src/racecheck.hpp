// racecheck and initcheck of shared memory: for each 4-byte word of the block's shared memory, who last
// wrote it and who read it since, and in which barrier epoch. Two accesses of one word by different threads,
// one a write, race unless a __syncthreads() (a new epoch) or, within a warp, a __syncwarp() lies between.
#pragma once

#include <cstdint>
#include <vector>

#include "block.hpp"
#include "findings.hpp"

namespace cml_emu {

class SharedShadow {
public:
    SharedShadow();
    void begin_block() { ++generation_; }
    // An access of `size` bytes at `offset` in the block's shared memory (which starts at `block_base`).
    void access(const Block& block, const ThreadState& thread, std::uintptr_t block_base, std::size_t offset,
                unsigned size, bool store, const void* pc, Findings& findings);

private:
    struct Access {
        std::uint32_t epoch = 0;
        std::uint32_t clock = 0;
        std::int32_t rank = -1;  // -1: none
        bool store = false;
        const void* pc = nullptr;
    };
    struct Word {
        std::uint32_t generation = 0;  // the block it describes; any other means untouched in this block
        bool written = false;
        Access write;
        Access reads[2];  // the last two threads that read it since the write
    };
    std::vector<Word> words_;
    std::uint32_t generation_ = 0;
};

// __syncwarp() among `lanes`: each lane then knows everything the others did before it.
void join_clocks(Block& block, int warp, unsigned lanes);

}  // namespace cml_emu
