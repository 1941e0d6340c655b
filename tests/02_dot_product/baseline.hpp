// The grader's baseline for Lab 2: the same result as dot_product, with one atomicAdd per element.
#pragma once

void dot_product_atomic_per_element(const float* a, const float* b, float* result, int n);
