// Helpers of a header, for loops_unseen_code.cu: code the loops rewrite of a kernel does not
// have in front of it when it reads the kernel's file.
#ifndef LOOPS_UNSEEN_CODE_H
#define LOOPS_UNSEEN_CODE_H
#include <cooperative_groups.h>

#define DEV_INLINE __device__ __forceinline__
DEV_INLINE int laneOf() { return threadIdx.x & 31; }

struct Idx {
  __device__ static int tid() { return threadIdx.x; }
};

__device__ __noinline__ int tidNoinline() { return threadIdx.x; }

__device__ inline unsigned rankInBlock() { return cooperative_groups::this_thread_block().thread_rank(); }

#define AT(i) data[(i)]

__device__ int scaleBy = 3;
#define SCALED(v) ((v) * scaleBy)

__device__ inline void headerSync() { __syncthreads(); }

// a class whose const method changes it
struct Tally {
  mutable int count;
  int base;
  __device__ void add(int d) const { count += d; }
};

// what a default argument gives where the function is called
__device__ inline int lineOfCall(int line = __builtin_LINE()) { return line; }

#define TEXT_LENGTH(e) ((int)sizeof(#e))

template <class T>
__device__ int indexKind(T) {
  return 0;
}
template <>
__device__ int indexKind<uint3>(uint3) {
  return 1;
}

__device__ inline int warpSum(int v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  return v;
}
#endif
