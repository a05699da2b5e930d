// curand_init is a __device__ function: nvcc refuses a call from host code ("calling a
// __device__ function from a __host__ function is not allowed"). The emu ran it on the host and
// the program went on (curand_generators.cu did so, and did not build with nvcc 13.0); now the
// call fails the program, naming the function and its line. In a kernel it runs as before.
// emu-test: expect fail
// emu-test: rc 1
// emu-test: stderr emu: curand_init at bad_curand_host.cu:22 is a __device__ function called from host code
#include <curand_kernel.h>

__global__ void draw(unsigned *out) {
  curandState s;
  curand_init(7, threadIdx.x, 0, &s);
  out[threadIdx.x] = curand(&s);
}

int main() {
  unsigned *out;
  cudaMallocManaged(&out, 32 * sizeof(unsigned));
  draw<<<1, 32>>>(out); /* in a kernel: as before */
  if (cudaDeviceSynchronize() != cudaSuccess) return 2;
  curandStatePhilox4_32_10_t host;
  curand_init(7, 0, 0, &host);
  return 0;
}
