// With nvcc 13.0, cuda_runtime.h declares neither printf nor assert: a program that calls them
// without <stdio.h> and <assert.h> does not build ("identifier printf is undefined"). The emu
// included both for every program, and such a program built here; it no longer does. (What
// nvcc 13.0 makes visible without an #include, and the emu too: malloc, exit, memcpy, strlen,
// sqrt, time, INT_MAX, isdigit, std::min.)
// emu-test: expect compile-error
// emu-test: stderr 'printf' was not declared in this scope
// emu-test: stderr 'assert' was not declared in this scope
// emu-test: stderr 'stderr' was not declared in this scope
__global__ void k(int *out) {
  printf("thread %d\n", (int)threadIdx.x);
  out[threadIdx.x] = 1;
}

int main() {
  int *out;
  void *host = malloc(strlen("abc") + (size_t)sqrt(4.0)); /* these need no #include */
  free(host);
  cudaMalloc(&out, 32 * sizeof(int));
  k<<<1, 32>>>(out);
  assert(cudaDeviceSynchronize() == cudaSuccess);
  fprintf(stderr, "done\n");
  return 0;
}
