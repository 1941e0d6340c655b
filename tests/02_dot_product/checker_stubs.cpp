// The checker's stand-ins for Lab 2's kernel.cu (common/cml/record.hpp): they compute nothing. The checker runs
// the same test cases as the test program, and reads every result they check from that program's record.
#include "dot_product.hpp"

void dot_product(const float*, const float*, float*, int) {}
void dot_product_grid_stride(const float*, const float*, float*, int) {}
const bool dot_product_grid_stride_attempted = true;  // every case runs here; the record says which were skipped
