// The checker's stand-ins for Lab 3's kernel.cu (common/cml/record.hpp): they compute nothing. The checker runs
// the same test cases as the test program, and reads every result they check from that program's record.
#include "smoothing.hpp"

void smooth(const float*, float*, int, int) {}
