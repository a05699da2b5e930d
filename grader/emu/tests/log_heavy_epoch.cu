// One thread makes 2^22 + 128 accesses to shared memory between two barriers (the probes keep
// the first 2^22 and say so), and nothing is stored while the probes go through them at the
// barrier: most of a second of the emulator's own work. That is progress, not a hang, however
// short SCANLAB_EMU_HANG_S is (a known-bad lab 05 scan past the probes' log was named a hang on
// a busy machine instead of what it is; bad_hang_barriers.cu is the hang whose barriers each
// cost little).
// emu-test: expect pass
// emu-test: probe
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_HANG_S=0.2
// emu-test: env SCANLAB_EMU_STRICT=1
// emu-test: timeout 60
// emu-test: stdout read 2097216 ones, s[0] 1
// emu-test: stderr the memory probes kept the first 4194304
#include <cstdio>

__global__ void heavyEpoch(int *out) {
  __shared__ int s[1024];
  s[threadIdx.x] = 1;
  __syncthreads();
  if (threadIdx.x == 0) {
    int acc = 0;
    for (int k = 0; k < (1 << 21) + 64; k++) {
      acc += s[k & 1023];
      s[(k + 1) & 1023] = 1;
    }
    out[0] = acc;
  }
  __syncthreads();
  out[1 + threadIdx.x] = s[threadIdx.x];
}

int main() {
  int *out;
  cudaMalloc(&out, 1025 * sizeof(int));
  heavyEpoch<<<1, 1024>>>(out);
  int got[2];
  cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost);
  printf("read %d ones, s[0] %d\n", got[0], got[1]);
  return cudaDeviceSynchronize() != cudaSuccess;
}
