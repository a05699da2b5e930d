// Host code writes through a device pointer right after cudaMalloc, before any launch.
// emu-test: expect fail
// emu-test: rc -11
// emu-test: stderr emu: host code 
// emu-test: stderr device memory at offset 12 of a device allocation of 4000 bytes: on a GPU host code cannot dereference a device pointer; copy with cudaMemcpy
#include <cstdio>

int main() {
  int *d;
  cudaMalloc(&d, 1000 * sizeof(int));
  d[3] = 7;
  printf("%d\n", d[3]);
  return 0;
}
