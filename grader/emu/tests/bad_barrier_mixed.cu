// barrier_mixed.cu's two halves of a block waiting at different __syncthreads calls, under
// SCANLAB_EMU_STRICT=1 as the grader runs it: the launch fails (CUDA leaves it undefined;
// barrier_mixed.cu: a program's own run gets what a GPU does).
// emu-test: expect fail
// emu-test: env SCANLAB_EMU_STRICT=1
// emu-test: stderr threads of block (0,0,0) wait at different barriers: 64 at __syncthreads (barrier_mixed.cu:16; first: thread (0,0,0)), 64 at __syncthreads (barrier_mixed.cu:19; first: thread (64,0,0))
// emu-test: stdout cudaErrorLaunchFailure
#include "barrier_mixed.cu"
