/**
 * @file nccl_shim_internal.h
 * @brief What the kit's NCCL stand-in for threads (nccl_shim.cu) and for processes
 *        (nccl_process.cu) share: a collective's request, the communicator, the messages' words,
 *        and NCCL's own functions once loaded. Kit code only; nccl_shim.h is the driver's view.
 */
#ifndef SCANLAB_NCCL_SHIM_INTERNAL_H
#define SCANLAB_NCCL_SHIM_INTERNAL_H

#include <stddef.h>

#include <cuda_runtime.h>
#include <nccl.h>

#include "nccl_shim.h"

/** Seconds a rank waits at a collective for a peer that neither arrives nor returns. */
#define MGK_WAIT_S 20

/** The collectives the stand-in runs. */
enum { K_NONE = 0, K_ALLGATHER, K_ALLREDUCE, K_BROADCAST, K_REDUCE, K_REDUCESCATTER };
/** A collective's name, by K_*. */
extern const char *const mgk_kind[];
/** A type's name, by ncclDataType_t. */
extern const char *const mgk_type[];
/** An operator's name, by ncclRedOp_t. */
extern const char *const mgk_opname[];
/** A type's bytes, by ncclDataType_t. */
extern const size_t mgk_type_bytes[];

/** One rank's request at a collective. */
typedef struct {
  int kind;            /**< K_* */
  int type;            /**< an ncclDataType_t */
  int op;              /**< an ncclRedOp_t (reductions) */
  int root;            /**< the root (broadcast, reduce) */
  size_t count;        /**< elements: sent (all-gather), received (reduce-scatter), else both */
  const void *send;    /**< the send buffer */
  void *recv;          /**< the receive buffer */
  cudaStream_t stream; /**< the rank's stream */
} mgk_op;

/** A communicator as the student's code holds it. */
struct ncclComm {
  int size;                  /**< ranks */
  int rank;                  /**< this rank */
  int device;                /**< its device */
  void *real;                /**< NCCL's communicator, or NULL: the stand-in's */
  struct mgk_shared *shared; /**< ranks as processes: the stand-in's shared file, or NULL */
};

#ifndef SCANLAB_EMU
/// @cond NCCL_LOADED
typedef ncclResult_t (*init_all_fn)(ncclComm_t *, int, const int *);
typedef ncclResult_t (*all_gather_fn)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
typedef ncclResult_t (*all_reduce_fn)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                      cudaStream_t);
typedef ncclResult_t (*broadcast_fn)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t);
typedef ncclResult_t (*reduce_fn)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t,
                                  cudaStream_t);
typedef ncclResult_t (*reduce_scatter_fn)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t,
                                          cudaStream_t);
typedef ncclResult_t (*group_fn)(void);
typedef const char *(*error_fn)(ncclResult_t);
typedef struct {
  all_gather_fn all_gather;
  all_reduce_fn all_reduce;
  broadcast_fn broadcast;
  reduce_fn reduce;
  reduce_scatter_fn reduce_scatter;
  group_fn group_start, group_end;
  error_fn error_string;
} mgk_api;
/// @endcond
/** NCCL's functions, loaded (mgk_load_nccl()). */
extern mgk_api mgk_real_api;
#endif

/** Ranks of the NCCL communicators made (0: none), and a collective's route to them. */
extern int mgk_real_size;
/** Fills mgk_real_api from NCCL's library @p lib: 0, or -1 when a function is missing. */
int mgk_load_nccl(void *lib);

/** "1st", "2nd", ... (a static buffer of the calling thread). */
const char *mgk_ordinal(unsigned long k);
/** A request in words: "ncclAllGather of 1 x ncclInt32". */
void mgk_describe(const mgk_op *o, char *out, size_t cap);
/** Whether two ranks asked for the same collective (kind, count, type, operator, root). */
int mgk_same(const mgk_op *a, const mgk_op *b);
/** The bytes a rank's send and receive buffers hold for @p o among @p size ranks. */
void mgk_extents(const mgk_op *o, int size, size_t *send, size_t *recv);
/** A collective among ranks as processes (nccl_process.cu). */
ncclResult_t mgk_process_collective(ncclComm_t comm, mgk_op op);

#endif /* SCANLAB_NCCL_SHIM_INTERNAL_H */
