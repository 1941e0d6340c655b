// The checker's stand-ins for Lab 6's kernel.cu (common/cml/record.hpp): they compute nothing. The checker runs
// the same test cases as the test program, and reads every result they check from that program's record.
#include "warp_reduction.hpp"

void block_sums_unrolled(const float*, float*, int, int) {}
void block_sums_shuffle(const float*, float*, int, int) {}
