// The checker's stand-ins for Lab 11's kernel.cu (common/cml/record.hpp): they compute nothing. The checker runs
// the same test cases as the test program, and reads every result they check from that program's record.
#include "histogram.hpp"

void histogram(const unsigned char*, unsigned*, int) {}
void histogram_per_warp(const unsigned char*, unsigned*, int) {}
const bool histogram_per_warp_attempted = true;  // every case runs here; the record says which were skipped
