#include "cpu.h"

namespace StreamCompaction {
namespace CPU {
using StreamCompaction::Common::PerformanceTimer;
PerformanceTimer &timer() {
  static PerformanceTimer timer;
  return timer;
}

// Exclusive prefix sum.
void scan(int n, int *odata, const int *idata) {
  int acc = 0;
  for (int i = 0; i < n; i++) {
    odata[i] = acc;
    acc += idata[i];
  }
}

int compactWithoutScan(int n, int *odata, const int *idata) {
  int k = 0;
  for (int i = 0; i < n; i++)
    if (idata[i] != 0) odata[k++] = idata[i];
  return k;
}

int compactWithScan(int n, int *odata, const int *idata) {
  int *flags = new int[n], *idx = new int[n];
  for (int i = 0; i < n; i++) flags[i] = idata[i] != 0;
  scan(n, idx, flags);
  int count = n ? idx[n - 1] + flags[n - 1] : 0;
  for (int i = 0; i < n; i++)
    if (flags[i]) odata[idx[i]] = idata[i];
  delete[] flags;
  delete[] idx;
  return count;
}
}  // namespace CPU
}  // namespace StreamCompaction
