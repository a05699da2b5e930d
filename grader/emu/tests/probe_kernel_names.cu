// Each profile line names the kernel that ran, however it was launched: by name, through a
// pointer variable, a table entry, a template instance taken by address, cudaLaunchKernel
// with a cast to void * or with the kernel itself, templates launched with their first argument
// named and the other deduced from the launch's arguments, over a default too (no address
// names those). The program reads its own profile.
// emu-test: expect pass
// emu-test: native no it reads the emu's profile (SCANLAB_EMU_PROFILE)
// emu-test: schedules forward
// emu-test: probe
// emu-test: env SCANLAB_EMU_PROFILE=build/emu-test/probe_kernel_names.jsonl
#include <stdlib.h>
#include <string.h>

#include "emu_test.h"

typedef void (*Kernel)(int *);
__global__ void firstKernel(int *d) { d[threadIdx.x] += 1; }
__global__ void secondKernel(int *d) { d[threadIdx.x] *= 2; }
template <int K>
__global__ void addKernel(int *d) { d[threadIdx.x] += K; }
template <bool TWICE, typename T>
__global__ void scaleKernel(T *d, T by) { d[threadIdx.x] *= TWICE ? by * by : by; }
template <int K, typename T = float>
__global__ void shiftKernel(T *d) { d[threadIdx.x] += (T)K; }

int main() {
  const char *path = getenv("SCANLAB_EMU_PROFILE");
  remove(path);
  int *d;
  CK(cudaMalloc(&d, 32 * sizeof(int)));
  CK(cudaMemset(d, 0, 32 * sizeof(int)));
  Kernel table[] = {secondKernel, addKernel<7>};
  Kernel k = firstKernel;
  firstKernel<<<1, 32>>>(d);
  k<<<1, 32>>>(d);
  table[0]<<<1, 32>>>(d);
  table[1]<<<1, 32>>>(d);
  void *args[] = {&d};
  CK(cudaLaunchKernel((void *)secondKernel, 1, 32, args, 0, 0));
  CK(cudaLaunchKernel(addKernel<3>, 1, 32, args, 0, 0));
  scaleKernel<true><<<1, 32>>>(d, 3);
  shiftKernel<1><<<1, 32>>>(d); /* T deduced as int, not its default float */
  CK(cudaDeviceSynchronize());
  const char *want[] = {"firstKernel",  "firstKernel",  "secondKernel",           "addKernel<7>",
                        "secondKernel", "addKernel<3>", "scaleKernel<true, int>", "shiftKernel<1, int>"};
  const int lines = (int)(sizeof want / sizeof want[0]);
  FILE *f = fopen(path, "r");
  if (!f) {
    printf("no profile at %s\n", path);
    return 1;
  }
  char line[4096];
  int n = 0;
  while (fgets(line, sizeof line, f)) {
    char name[128] = "";
    if (sscanf(line, "{\"kernel\": \"%127[^\"]\"", name) != 1 || n >= lines || strcmp(name, want[n])) {
      printf("profile line %d names \"%s\", expected \"%s\"\n", n + 1, name, n < lines ? want[n] : "no more lines");
      return 1;
    }
    n++;
  }
  fclose(f);
  int h[32];
  CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
  /* each element: (((0 + 1 + 1) * 2 + 7) * 2 + 3) * 3 * 3 + 1 = 226 */
  for (int i = 0; i < 32; i++)
    if (h[i] != 226) return printf("d[%d] = %d, expected 226\n", i, h[i]), 1;
  return n == lines ? 0 : (printf("%d profile lines, expected %d\n", n, lines), 1);
}
