// The library's host interface (plain C++).
#pragma once
#include <cstddef>

namespace scanlib {
// Exclusive prefix sum of in[0..n) into out (host arrays).
void exclusiveScan(const int *in, int *out, int n);
// Compaction: the elements != 0 of in, in order, into out; returns how many.
int compactNonZero(const int *in, int *out, int n);
// Milliseconds of the last call's kernels (CUDA events).
float lastMilliseconds();
}  // namespace scanlib
