// Tests the scan library on sizes around the tile (512) and the recursion (512 * 512).
#include <cstdio>
#include <vector>

#include "scan.h"

int main() {
  int failures = 0;
  for (int n : {1, 511, 512, 513, 4099, 262144, 262145 + 700}) {
    std::vector<int> in(n), out(n), ref(n), cmp(n), refc;
    for (int i = 0; i < n; i++) in[i] = (i * 37 + 11) % 5 == 0 ? 0 : (i * 13) % 9 - 4;
    int acc = 0;
    for (int i = 0; i < n; i++) {
      ref[i] = acc;
      acc += in[i];
      if (in[i]) refc.push_back(in[i]);
    }
    scanlib::exclusiveScan(in.data(), out.data(), n);
    int count = scanlib::compactNonZero(in.data(), cmp.data(), n);
    bool scanOk = out == ref;
    bool compactOk = count == (int)refc.size() && std::equal(refc.begin(), refc.end(), cmp.begin());
    std::printf("n=%d: scan %s, compact %s (%d kept)\n", n, scanOk ? "ok" : "WRONG", compactOk ? "ok" : "WRONG", count);
    failures += !scanOk + !compactOk;
  }
  std::printf("%s\n", failures ? "FAILED" : "PASSED");
  return failures ? 1 : 0;
}
