// What kernel.cu asked cudaOccupancyMaxActiveBlocksPerMultiprocessor (TODO 3) and what it answered. The test
// program's link routes that call, in either form, through occupancy_queries.cpp (meson.build: --wrap), on a GPU
// as on the CPU emulator, so that a test sees whether the confirmation TODO 3 asks for was made, and of which
// launch. The grader always builds its own copy.
#pragma once

#include <cstddef>
#include <vector>

struct OccupancyQuery {
    int threads = 0;                 // blockSize
    std::size_t dynamic_shared = 0;  // dynamicSMemSize, bytes
    int blocks = -1;                 // what it answered; -1 where the call failed
};

// The queries made since the last call of this function, in order. The checker, which links no kernel.cu, has
// none: it reads them from the test program's record.
std::vector<OccupancyQuery> take_occupancy_queries();
