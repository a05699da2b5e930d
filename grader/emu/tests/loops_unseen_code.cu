// Kernels whose loops version (loops.py) once gave another answer than the fibers, or failed
// its launch where the fibers ran it, through code the rewrite did not have in front of it: a
// helper that reads threadIdx behind a macro of specifiers, a class's static member, a
// __noinline__ function or a group's thread_rank() (the compiler read threadIdx once for a whole
// loop over the threads: every thread got thread 0's index); a header's macro that names a
// parameter the kernel changes, or a global its local hides; a barrier or a warp shuffle in a
// header's function, or a barrier in a class's member, first reached in a later launch; a
// barrier function called through a pointer; threads that leave a loop with a barrier at
// different rounds and exit; a barrier under `if constexpr`; a parameter whose class has a
// mutable member; a default argument that gives the caller's line, a macro that makes a string
// of its argument, threadIdx given whole to a template. Each kernel runs three times, the later
// launches as loops where it has a loops version, each against the host's answer.
// emu-test: loops
// emu-test: schedules forward
// emu-test: env SCANLAB_EMU_LOOPS_WHY=1
// emu-test: stderr emu: kernel viaSpecifierMacro: its later launches run as loops
// emu-test: stderr emu: kernel viaStaticMember: its later launches run as loops
// emu-test: stderr emu: kernel viaNoinline: its later launches run as loops
// emu-test: stderr emu: kernel viaThreadRank: its later launches run as loops
// emu-test: stderr emu: kernel exitInLoop: its later launches run thread by thread, not as loops
// emu-test: stdout all kernels: every launch as the host
#include <cstdio>

#include "loops_unseen_code.h"

#define NT 64

__global__ void viaSpecifierMacro(int *out) {
  __shared__ int s[NT];
  s[threadIdx.x] = laneOf() * 3;
  __syncthreads();
  out[threadIdx.x] = s[(threadIdx.x + 1) % NT] + laneOf();
}

__global__ void viaStaticMember(int *out) {
  __shared__ int s[NT];
  s[Idx::tid()] = Idx::tid() + 1;
  __syncthreads();
  out[threadIdx.x] = s[(Idx::tid() + 5) % NT] * 100 + Idx::tid();
}

__global__ void viaNoinline(int *out) {
  __shared__ int s[NT];
  s[tidNoinline()] = 2 * tidNoinline();
  __syncthreads();
  out[threadIdx.x] = s[NT - 1 - threadIdx.x];
}

__global__ void viaThreadRank(int *out) {
  __shared__ int s[NT];
  s[rankInBlock()] = rankInBlock() + 7;
  __syncthreads();
  out[threadIdx.x] = s[NT - 1 - threadIdx.x];
}

__global__ void macroNamesParameter(int *data, int *out) {
  __shared__ int s[NT];
  data += blockIdx.x * NT;
  s[threadIdx.x] = AT(threadIdx.x);
  __syncthreads();
  out[blockIdx.x * NT + threadIdx.x] = s[NT - 1 - threadIdx.x] + blockIdx.x;
}

__global__ void macroNamesHiddenGlobal(int *out) {
  __shared__ int s[NT];
  int scaleBy = 5;
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  out[threadIdx.x] = SCALED(s[NT - 1 - threadIdx.x]);
}

__global__ void headerBarrierLater(int *out, int flag) {
  __shared__ int s[NT];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  int v = s[NT - 1 - threadIdx.x];
  if (flag) {
    __syncthreads();
    s[threadIdx.x] = 2 * v;
    headerSync();
    v = s[(threadIdx.x + 1) % NT];
  }
  out[threadIdx.x] = v;
}

__global__ void headerShuffleLater(int *out, int flag) {
  __shared__ int s[NT];
  s[threadIdx.x] = threadIdx.x;
  __syncthreads();
  int v = s[NT - 1 - threadIdx.x];
  if (flag) {
    v = warpSum(v);
    if (threadIdx.x % 32) v = 0;
  }
  out[threadIdx.x] = v;
}

struct Broadcast {
  int *s;
  __device__ int first(int v) {
    __syncthreads();
    s[threadIdx.x] = v;
    __syncthreads();
    return s[0];
  }
};

__global__ void memberBarrierLater(int *out, int flag) {
  __shared__ int s[NT];
  s[threadIdx.x] = threadIdx.x + 1;
  __syncthreads();
  int v = s[NT - 1 - threadIdx.x];
  if (flag) {
    Broadcast b{s};
    v += b.first(v);
  }
  out[threadIdx.x] = v;
}

__device__ void blockSync(int *) { __syncthreads(); }

__global__ void throughPointer(int *out) {
  __shared__ int s[NT];
  s[threadIdx.x] = threadIdx.x;
  blockSync(s);
  const int v = s[NT - 1 - threadIdx.x];
  void (*sync)(int *) = blockSync;
  sync(s);
  s[threadIdx.x] = v + 1;
  blockSync(s);
  out[threadIdx.x] = s[(threadIdx.x + 1) % NT];
}

__global__ void exitInLoop(int *out) {
  __shared__ int s[NT];
  const int t = threadIdx.x;
  const int rounds = t < 32 ? 4 : 2;
  int acc = 0;
  for (int i = 0; i < rounds; i++) {
    s[t] = t + i;
    __syncthreads();
    acc += s[(t + 1) % 32];
    __syncthreads();
  }
  out[t] = acc;
}

// a barrier under `if constexpr` (the rewrite read `if` and wrote the rest wrong: the file's
// loops versions did not compile, and every kernel of the file ran on fibers)
template <bool Mirror>
__global__ void underIfConstexpr(int *out) {
  __shared__ int s[NT];
  int v = threadIdx.x;
  if constexpr (Mirror) {
    s[threadIdx.x] = v;
    __syncthreads();
    v = s[NT - 1 - threadIdx.x];
  }
  out[threadIdx.x] = v;
}

// a parameter whose class changes through a const method (the loops version's parameters are
// const, and one for all threads: each thread's change landed on the same copy)
__global__ void mutableMember(Tally t, int *out) {
  t.add(threadIdx.x);
  out[threadIdx.x] = t.count + t.base;
}

// a default argument's line, a macro's string of its argument (the rewrite's names), threadIdx
// to a template with a specialisation for uint3, and its size
__global__ void whatTheTextSays(int *out) {
  const int line = lineOfCall();
  int sum = threadIdx.x;
  out[4 * threadIdx.x] = line;
  out[4 * threadIdx.x + 1] = TEXT_LENGTH(sum + threadIdx.x);
  out[4 * threadIdx.x + 2] = indexKind(threadIdx);
  out[4 * threadIdx.x + 3] = (int)sizeof(threadIdx) + sum - (int)threadIdx.x;
}

static int *d_out, *d_data;
static int got[2 * NT], want[2 * NT];
static int bad = 0;

// Three launches, each against want (n elements): launch(k) for k = 0, 1, 2.
template <class L, class W>
static void three(const char *name, int n, L launch, W expect) {
  for (int k = 0; k < 3; k++) {
    cudaMemset(d_out, 0, sizeof got);
    launch(k);
    const cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(got, d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++) want[i] = expect(k, i);
    int i = 0;
    while (i < n && got[i] == want[i]) i++;
    if (e != cudaSuccess || i < n) {
      bad++;
      printf("%s, launch %d: %s", name, k + 1, cudaGetErrorString(e));
      if (i < n) printf(", element %d is %d, the host says %d", i, got[i], want[i]);
      printf("\n");
    }
  }
}

int main() {
  cudaMalloc(&d_out, sizeof got);
  cudaMalloc(&d_data, sizeof got);
  int h[2 * NT];
  for (int i = 0; i < 2 * NT; i++) h[i] = 3 * i;
  three("viaSpecifierMacro", NT, [](int) { viaSpecifierMacro<<<1, NT>>>(d_out); },
        [](int, int t) { return ((t + 1) % NT & 31) * 3 + (t & 31); });
  three("viaStaticMember", NT, [](int) { viaStaticMember<<<1, NT>>>(d_out); },
        [](int, int t) { return ((t + 5) % NT + 1) * 100 + t; });
  three("viaNoinline", NT, [](int) { viaNoinline<<<1, NT>>>(d_out); }, [](int, int t) { return 2 * (NT - 1 - t); });
  three("viaThreadRank", NT, [](int) { viaThreadRank<<<1, NT>>>(d_out); }, [](int, int t) { return NT - 1 - t + 7; });
  three("macroNamesParameter", 2 * NT,
        [&](int) {
          cudaMemcpy(d_data, h, sizeof h, cudaMemcpyHostToDevice);
          macroNamesParameter<<<2, NT>>>(d_data, d_out);
        },
        [](int, int i) { return 3 * (i / NT * NT + NT - 1 - i % NT) + i / NT; });
  three("macroNamesHiddenGlobal", NT, [](int) { macroNamesHiddenGlobal<<<1, NT>>>(d_out); },
        [](int, int t) { return 5 * (NT - 1 - t); });
  three("headerBarrierLater", NT, [](int k) { headerBarrierLater<<<1, NT>>>(d_out, k == 2); },
        [](int k, int t) { return k == 2 ? 2 * (NT - 1 - (t + 1) % NT) : NT - 1 - t; });
  three("headerShuffleLater", NT, [](int k) { headerShuffleLater<<<1, NT>>>(d_out, k == 2); },
        [](int k, int t) {
          if (k < 2) return NT - 1 - t;
          if (t % 32) return 0;
          int sum = 0;
          for (int j = t; j < t + 32; j++) sum += NT - 1 - j;
          return sum;
        });
  three("memberBarrierLater", NT, [](int k) { memberBarrierLater<<<1, NT>>>(d_out, k == 2); },
        [](int k, int t) { return k == 2 ? (NT - t) + NT : NT - t; });
  three("throughPointer", NT, [](int) { throughPointer<<<1, NT>>>(d_out); },
        [](int, int t) { return NT - 1 - (t + 1) % NT + 1; });
  three("exitInLoop", NT, [](int) { exitInLoop<<<1, NT>>>(d_out); },
        [](int, int t) {
          int acc = 0;
          for (int i = 0; i < (t < 32 ? 4 : 2); i++) acc += (t + 1) % 32 + i;
          return acc;
        });
  three("underIfConstexpr", NT, [](int) { underIfConstexpr<true><<<1, NT>>>(d_out); },
        [](int, int t) { return NT - 1 - t; });
  three("mutableMember", NT, [](int) { mutableMember<<<1, NT>>>(Tally{1000, 7}, d_out); },
        [](int, int t) { return 1000 + t + 7; });
  three("whatTheTextSays", 2 * NT, [](int) { whatTheTextSays<<<1, NT / 2>>>(d_out); },
        [](int, int i) {
          const int k = i % 4;
          return k == 0 ? 172 : k == 1 ? (int)sizeof("sum + threadIdx.x") : k == 2 ? 1 : 12;
        });
  if (!bad) printf("all kernels: every launch as the host\n");
  return bad != 0;
}
