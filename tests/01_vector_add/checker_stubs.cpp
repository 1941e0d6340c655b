// The checker's stand-ins for Lab 1's kernel.cu (common/cml/record.hpp): they compute nothing. The checker runs
// the same test cases as the test program, and reads every result they check from that program's record.
#include "vector_add.hpp"

void vector_add(const float*, const float*, float*, int) {}
void vector_add_float4(const float*, const float*, float*, int) {}
const bool vector_add_float4_attempted = true;  // every case runs here; the record says which ones were skipped
