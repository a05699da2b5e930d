/**
 * @file builtins.cpp
 * @brief Emulation backend: the definitions of the built-in variables `threadIdx`, `blockIdx`,
 *        `blockDim`, `gridDim` and `warpSize`.
 *
 * Device code sees them as the toolkit declares them (scanlab_emu_device.h): `extern const
 * uint3 threadIdx, blockIdx`, `extern const dim3 blockDim, gridDim`, `extern const int
 * warpSize`, so that no type test (`decltype`, a trait, an overload) tells the emu from nvcc.
 * They are defined here without const, in a file that does not see those declarations, and
 * the scheduler sets them through the functions below: the thread's index whenever a worker
 * switches to another CUDA thread (a fiber), the rest when it starts a block. Each CUDA
 * thread sees the same values from its first instruction to its last, so code the compiler
 * built on their being const stays right.
 */
#include "vector_types.h"

__thread ::uint3 threadIdx;
__thread ::uint3 blockIdx;
__thread ::dim3 blockDim;
__thread ::dim3 gridDim;
extern const int warpSize = 32;

namespace scanlab_emu {
void set_thread_index(const ::uint3 &t) { threadIdx = t; }
void set_block_builtins(const ::uint3 &block, const ::uint3 &block_dim, const ::uint3 &grid_dim) {
  blockIdx = block;
  blockDim = block_dim;
  gridDim = grid_dim;
}
}  // namespace scanlab_emu
