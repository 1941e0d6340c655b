// The checker's stand-ins for Lab 5's kernel.cu (common/cml/record.hpp): they compute nothing. The checker runs
// the same test cases as the test program, and reads every result they check from that program's record.
#include "transpose.hpp"

void transpose(const float*, float*, int, int) {}
void transpose_swizzled(const float*, float*, int, int) {}
const bool transpose_swizzled_attempted = true;  // every case runs here; the record says which were skipped
