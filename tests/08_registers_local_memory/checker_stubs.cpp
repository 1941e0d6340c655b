// The checker's stand-in for Lab 8's kernel.cu (common/cml/record.hpp): it computes nothing. The checker runs
// the same test cases as the test program, and reads every result they check from that program's record.
#include "column_filter.hpp"

void column_filter(const float*, const Filter&, float*, int, int) {}
