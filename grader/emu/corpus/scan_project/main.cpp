// Tests of the stream compaction project: CPU, naive and work-efficient scans on a power of
// two and a non-power of two, then compaction, each compared with the CPU's answer.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "src/cpu.h"
#include "src/efficient.h"
#include "src/naive.h"

static int failures = 0;

static void genArray(int n, int *a, int maxval) {
  srand(0);
  for (int i = 0; i < n; i++) a[i] = rand() % maxval;
}

static void cmpArrays(const char *name, int n, const int *expected, const int *actual) {
  for (int i = 0; i < n; i++) {
    if (expected[i] != actual[i]) {
      printf("    %s: FAIL at [%d]: expected %d, got %d\n", name, i, expected[i], actual[i]);
      failures++;
      return;
    }
  }
  printf("    %s: passed\n", name);
}

int main() {
  const int SIZE = 1 << 15, NPOT = SIZE - 3;
  int *a = new int[SIZE], *b = new int[SIZE], *c = new int[SIZE];
  genArray(SIZE - 1, a, 50);
  a[SIZE - 1] = 0;

  StreamCompaction::CPU::scan(SIZE, b, a);
  memset(c, 0, SIZE * sizeof(int));
  StreamCompaction::Naive::scan(SIZE, c, a);
  cmpArrays("naive scan, power-of-two", SIZE, b, c);
  StreamCompaction::CPU::scan(NPOT, b, a);
  memset(c, 0, SIZE * sizeof(int));
  StreamCompaction::Naive::scan(NPOT, c, a);
  cmpArrays("naive scan, non-power-of-two", NPOT, b, c);

  StreamCompaction::CPU::scan(SIZE, b, a);
  memset(c, 0, SIZE * sizeof(int));
  StreamCompaction::Efficient::scan(SIZE, c, a);
  cmpArrays("work-efficient scan, power-of-two", SIZE, b, c);
  StreamCompaction::CPU::scan(NPOT, b, a);
  memset(c, 0, SIZE * sizeof(int));
  StreamCompaction::Efficient::scan(NPOT, c, a);
  cmpArrays("work-efficient scan, non-power-of-two", NPOT, b, c);
  printf("    (elapsed %.3f ms on the device's clock)\n",
         StreamCompaction::Efficient::timer().getGpuElapsedTimeForPreviousOperation() >= 0 ? 0.0 : -1.0);

  genArray(SIZE - 1, a, 4);
  a[SIZE - 1] = 0;
  int expectedCount = StreamCompaction::CPU::compactWithoutScan(SIZE, b, a);
  int withScan = StreamCompaction::CPU::compactWithScan(SIZE, c, a);
  if (withScan != expectedCount) {
    printf("    cpu compact with scan: FAIL: count %d, expected %d\n", withScan, expectedCount);
    failures++;
  }
  cmpArrays("cpu compact with scan", expectedCount, b, c);
  memset(c, 0, SIZE * sizeof(int));
  int count = StreamCompaction::Efficient::compact(SIZE, c, a);
  if (count != expectedCount) {
    printf("    work-efficient compact: FAIL: count %d, expected %d\n", count, expectedCount);
    failures++;
  }
  cmpArrays("work-efficient compact, power-of-two", expectedCount, b, c);
  expectedCount = StreamCompaction::CPU::compactWithoutScan(NPOT, b, a);
  memset(c, 0, SIZE * sizeof(int));
  count = StreamCompaction::Efficient::compact(NPOT, c, a);
  if (count != expectedCount) {
    printf("    work-efficient compact (npot): FAIL: count %d, expected %d\n", count, expectedCount);
    failures++;
  }
  cmpArrays("work-efficient compact, non-power-of-two", expectedCount, b, c);

  delete[] a;
  delete[] b;
  delete[] c;
  printf("%s\n", failures ? "FAILED" : "PASSED");
  return failures ? 1 : 0;
}
