// Not part of the corpus run: a measurement. scanBlocks (scan.cu) at the CUDA samples' size
// (13 x 2^19 elements, arrays of 4 to 1024), written by hand as the emu would run it if it ran a
// block's threads as loops between barriers: each thread's values in an array, a loop over the
// block's threads for each stretch between two barriers. It bounds what that transformation
// could gain over the emu's fibers (grader/emu/corpus/README.md, "Where the emu is slowest").
//   g++ -O2 -pthread -o as_loops as_loops.cpp && ./as_loops 2      (2: host threads)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

struct U4 {
  unsigned x, y, z, w;
};
enum { THREADS = 256 };

// One block of scanBlocks: segmentScan's steps, each barrier the end of a loop.
static void block(U4 *dst, const U4 *src, unsigned length, unsigned b) {
  unsigned s[THREADS], add[THREADS], sum[THREADS];
  U4 v[THREADS];
  const unsigned seg = length / 4;
  for (unsigned t = 0; t < THREADS; t++) {
    v[t] = src[b * THREADS + t];
    sum[t] = v[t].x + v[t].y + v[t].z + v[t].w;
    s[t] = sum[t];
  }
  for (unsigned offset = 1; offset < seg; offset <<= 1) {
    for (unsigned t = 0; t < THREADS; t++) add[t] = (t & (seg - 1)) >= offset ? s[t - offset] : 0;
    for (unsigned t = 0; t < THREADS; t++) s[t] += add[t];
  }
  for (unsigned t = 0; t < THREADS; t++) {
    const unsigned before = s[t] - sum[t];
    U4 o;
    o.x = before;
    o.y = before + v[t].x;
    o.z = o.y + v[t].y;
    o.w = o.z + v[t].z;
    dst[b * THREADS + t] = o;
  }
}

int main(int argc, char **argv) {
  const unsigned elems = 13 * 1048576 / 2, blocks = elems / 4 / THREADS;
  const int workers = argc > 1 ? atoi(argv[1]) : 2;
  std::vector<unsigned> src(elems), dst(elems);
  srand(2009);
  for (unsigned i = 0; i < elems; i++) src[i] = rand() % 1000;
  double total = 0;
  bool ok = true;
  for (unsigned length = 4; length <= 1024; length <<= 1) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> th;
    for (int w = 0; w < workers; w++)
      th.emplace_back([&, w] {
        for (unsigned b = (unsigned)w; b < blocks; b += (unsigned)workers)
          block((U4 *)dst.data(), (const U4 *)src.data(), length, b);
      });
    for (std::thread &t : th) t.join();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    total += ms;
    for (unsigned a = 0; a < elems; a += length) {  // every array's exclusive sums
      unsigned acc = 0;
      for (unsigned i = a; i < a + length; i++) {
        ok = ok && dst[i] == acc;
        acc += src[i];
      }
    }
    printf("arrays of %4u: %7.2f ms\n", length, ms);
  }
  printf("nine lengths: %.1f ms, %s\n", total, ok ? "right" : "WRONG");
  return ok ? 0 : 1;
}
