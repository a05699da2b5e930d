// A barrier spelt by a macro of a header (loops_stay_fibers.cu): the loops rewrite of the file
// that includes it does not see it.
#define BLOCK_SYNC() __syncthreads()
