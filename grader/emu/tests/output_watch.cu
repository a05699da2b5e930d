// The kit's driver has the emulator watch a call's buffers (scanlab_emu_watch): their bytes may
// change only by a launch or the runtime's copies and sets. A kernel's stores, a cudaMemset and a
// cudaMemcpy into part of the range (which open only that part of it to the host), and a 2D copy
// of 1024 rows, leave the watch calm. The host's own write through pages it reopened with
// mprotect is counted, with the pages closed again, and with a launch or a set after it; a
// watched buffer freed counts as changed.
// emu-test: expect pass
// emu-test: native no the watch is the emulator's own (a GPU's memory is not the host's to write)
#include <sys/mman.h>

#include <stdint.h>

#include "emu_test.h"

__global__ void nothing() {}

__global__ void fill(int *out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 3 * i + 1;
}

int main() {
  const int n = 1 << 18;  // 1 MiB: several pages, so a part copy opens only some of them
  int *out = nullptr, *other = nullptr;
  CK(cudaMalloc(&out, n * sizeof(int)));
  CK(cudaMalloc(&other, n * sizeof(int)));
  const void *ptrs[1] = {out};
  const size_t bytes[1] = {n * sizeof(int)};

  scanlab_emu_watch(ptrs, bytes, 1);
  fill<<<n / 256, 256>>>(out, n);
  CK(cudaGetLastError());
  CK(cudaMemset(out + 100, 0, 64));
  fill<<<n / 256, 256>>>(other, n);
  CK(cudaMemcpy(out + 5000, other + 7, 4096, cudaMemcpyDeviceToDevice));
  int changed = scanlab_emu_watch_changed();
  if (changed != 0) {
    printf("FAIL: the device's own writes counted as %d changed range(s)\n", changed);
    return 1;
  }

  scanlab_emu_watch(ptrs, bytes, 1);
  fill<<<n / 256, 256>>>(out, n);
  CK(cudaDeviceSynchronize());
  const uintptr_t lo = (uintptr_t)out & ~(uintptr_t)4095;
  if (mprotect((void *)lo, 4096, PROT_READ | PROT_WRITE) != 0) {
    printf("FAIL: mprotect\n");
    return 1;
  }
  out[0] = 42;  // the host's write, past the runtime
  mprotect((void *)lo, 4096, PROT_NONE);
  changed = scanlab_emu_watch_changed();
  if (changed != 1) {
    printf("FAIL: the host's write through reopened pages counted as %d changed range(s), not 1\n", changed);
    return 1;
  }

  // the host's write, then the device's work: an empty launch, then a set of one byte at the
  // far end; neither may take the write for the device's (each compares before it writes)
  for (int after = 0; after < 2; after++) {
    scanlab_emu_watch(ptrs, bytes, 1);
    fill<<<n / 256, 256>>>(out, n);
    CK(cudaDeviceSynchronize());
    if (mprotect((void *)lo, 4096, PROT_READ | PROT_WRITE) != 0) {
      printf("FAIL: mprotect\n");
      return 1;
    }
    out[1] = 7;
    mprotect((void *)lo, 4096, PROT_NONE);
    if (after == 0) {
      nothing<<<1, 1>>>();
      CK(cudaDeviceSynchronize());
    } else {
      CK(cudaMemset((char *)out + n * sizeof(int) - 1, 0, 1));
    }
    changed = scanlab_emu_watch_changed();
    if (changed != 1) {
      printf("FAIL: the host's write, then %s, counted as %d changed range(s), not 1\n",
             after == 0 ? "an empty launch" : "a set of the last byte", changed);
      return 1;
    }
  }

  // 1024 rows copied one at a time into a watched buffer of 4 MiB: each hashes its own chunks
  int *wide = nullptr;
  const size_t rows = 1024, pitch = 4096;
  CK(cudaMalloc(&wide, rows * pitch));
  const void *wptr[1] = {wide};
  const size_t wbytes[1] = {rows * pitch};
  scanlab_emu_watch(wptr, wbytes, 1);
  CK(cudaMemcpy2D(wide, pitch, other, 64, 64, rows, cudaMemcpyDeviceToDevice));
  changed = scanlab_emu_watch_changed();
  if (changed != 0) {
    printf("FAIL: a 2D copy counted as %d changed range(s)\n", changed);
    return 1;
  }

  // a watched buffer freed before the watch ends: counted as changed, never read
  scanlab_emu_watch(wptr, wbytes, 1);
  CK(cudaFree(wide));
  nothing<<<1, 1>>>();
  CK(cudaDeviceSynchronize());
  changed = scanlab_emu_watch_changed();
  if (changed != 1) {
    printf("FAIL: a freed watched buffer counted as %d changed range(s), not 1\n", changed);
    return 1;
  }
  CK(cudaFree(out));
  CK(cudaFree(other));
  printf("ok: the device's writes left the watch calm; the host's writes were counted\n");
  return 0;
}
