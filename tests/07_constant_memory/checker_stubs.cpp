// The checker's stand-ins for Lab 7's kernel.cu (common/cml/record.hpp): they compute nothing. The checker runs
// the same test cases as the test program, and reads every result they check from that program's record.
#include "constant_memory.hpp"

void set_polynomial(const float*, int) {}
void polynomial(const float*, float*, int) {}
void set_table(const float*) {}
void lookup(const int*, float*, int) {}
