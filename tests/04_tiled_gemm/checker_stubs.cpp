// The checker's stand-ins for Lab 4's kernel.cu (common/cml/record.hpp): they compute nothing. The checker runs
// the same test cases as the test program, and reads every result they check from that program's record.
#include "gemm.hpp"

void gemm_tiled(const float*, const float*, float*, int, int, int) {}
void gemm_register_blocked(const float*, const float*, float*, int, int, int) {}
const bool gemm_register_blocked_attempted = true;  // every case runs here; the record says which were skipped
