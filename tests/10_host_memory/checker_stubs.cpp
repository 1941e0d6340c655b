// The checker's stand-ins for Lab 10's kernel.cu (common/cml/record.hpp): they compute nothing. The checker runs
// the same test cases as the test program, and reads every result they check from that program's record.
#include "host_memory.hpp"

void pipeline_pinned(const float*, float*, int) {}
void pipeline_overlapped(const float*, float*, int) {}
void pipeline_managed(const float*, float*, int) {}
void pipeline_zero_copy(const float*, float*, int, int) {}
const bool pipeline_zero_copy_attempted = true;  // every case runs here; the record says which were skipped
