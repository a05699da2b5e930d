/**
 * @file ref_lab03.h
 * @brief Lab 03: replays the shared-memory accesses of the Blelloch tile scan on the CPU and
 *        counts its bank conflicts, step by step.
 *
 * The replay follows the thread-to-element rule of `blelloch.h`: thread `t` of a block of
 * `block` threads loads and stores elements `t` and `t + block`, and in the sweep step of
 * stride `s` threads `t < block / s` touch elements `s*(2t+1) - 1` and `s*(2t+2) - 1`. Each
 * element `i` lives at the shared-memory word `index(i)`: the identity for the plain scan,
 * `conflictFreeIndex` for the padded one.
 *
 * For every warp and every shared-memory instruction it computes the **n-way degree**: the
 * largest number of distinct 4-byte words the warp touches in any one of the 32 banks
 * (threads reading the same word share one access). A d-way access takes d passes
 * ("wavefronts") instead of one; the d - 1 extra passes are what Nsight Compute counts as
 * bank conflicts (`l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum` and `_st.sum`).
 */
#ifndef SCANLAB_REF_LAB03_H
#define SCANLAB_REF_LAB03_H

#ifdef __cplusplus
extern "C" {
#endif

/** Shared-memory banks, each one 4-byte word wide. */
#define REF_BANKS 32

/** One step of the tile scan: its name, worst degree and extra passes over all warps. */
typedef struct {
  char label[64];     /**< e.g. `up-sweep stride 16 (32 threads)` */
  int degree;         /**< worst n-way degree of any warp in any instruction of the step */
  long long excess;   /**< sum over warps and instructions of (degree - 1) */
} ref_bank_step;

/** Most steps a tile of BLELLOCH_MAX_BLOCK threads has: load, 11 up, 11 down, store. */
#define REF_BANK_MAX_STEPS 24

/**
 * @brief n-way degree of one warp-wide access to the words @p words[0..count-1].
 * @return 0 when @p count is 0, else 1 (conflict-free) to 32
 */
int ref_bank_degree(const int *words, int count);

/**
 * @brief Replays one tile of the Blelloch scan with @p block threads (a power of two up to
 * 1024) and element-to-word map @p index.
 *
 * @param block     threads per block
 * @param index     shared-memory word of element `i` (`i` from 0 to `2*block - 1`)
 * @param steps     receives one entry per step, in program order
 * @param max_steps capacity of @p steps (REF_BANK_MAX_STEPS is always enough)
 * @return the number of steps written
 */
int ref_blelloch_bank_replay(int block, int (*index)(int), ref_bank_step *steps, int max_steps);

#ifdef __cplusplus
}
#endif
#endif /* SCANLAB_REF_LAB03_H */
