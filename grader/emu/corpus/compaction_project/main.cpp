// Host test of the compaction assignment (plain C++: the CUDA part is behind compact.h).
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "compact.h"

int main() {
  int failures = 0;
  const int sizes[] = {1, 31, COMPACT_BLOCK, COMPACT_BLOCK + 1, 100000, 300007};
  for (int n : sizes) {
    std::vector<int> in(n), out(n, -1), ref, scan(n), refScan(n);
    unsigned s = 12345u + n;
    for (int i = 0; i < n; i++) {
      s = s * 1103515245u + 12345u;
      in[i] = (int)((s >> 16) % 1000) - 300;
    }
    for (int x : in)
      if (x > 100) ref.push_back(x);
    int count = gpu_compact_greater(in.data(), out.data(), n, 100);
    bool ok = count == (int)ref.size();
    for (int i = 0; ok && i < count; i++) ok = out[i] == ref[i];
    int acc = 0;
    for (int i = 0; i < n; i++) {
      refScan[i] = acc;
      acc += in[i];
    }
    gpu_exclusive_scan(in.data(), scan.data(), n);
    bool scanOk = scan == refScan;
    printf("n=%d: compact %s (%d kept of %d), scan %s\n", n, ok ? "ok" : "WRONG", count, n, scanOk ? "ok" : "WRONG");
    failures += !ok + !scanOk;
  }
  printf("block size %d, last compaction %s\n", COMPACT_BLOCK, gpu_last_ms() >= 0 ? "timed" : "?");
  printf("%s\n", failures ? "FAILED" : "PASSED");
  return failures ? 1 : 0;
}
