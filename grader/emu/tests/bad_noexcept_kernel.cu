// A kernel declared noexcept: nvcc refuses it ("An exception specification is not allowed for a
// __global__ function"), so the emu refuses it too, at its launch, with a message that says so,
// rather than build a program the GPU's compiler will not.
// emu-test: expect compile-error
// emu-test: stderr an exception specification (noexcept) is not allowed on a __global__ function
__global__ void noexceptKernel(int *out) noexcept { out[threadIdx.x] = 11; }

int main() {
  int *out;
  cudaMalloc(&out, 64 * sizeof(int));
  noexceptKernel<<<1, 64>>>(out);
  return cudaDeviceSynchronize() != cudaSuccess;
}
