/**
 * @file nccl_shim.h
 * @brief Lab 08's communicators, as the driver makes them: NCCL's own where the ranks have GPUs
 *        of their own, and the kit's stand-in where they share one GPU or run on the emu.
 *
 * NCCL refuses two ranks on one GPU, and the emu has no NCCL, so the kit provides NCCL's
 * collectives itself (nccl_shim.cu): ranks are threads of the driver, a collective waits on the
 * host until every rank has called it, checks that all called the same one (kind, count, type,
 * operator, root), then joins the ranks' streams with events and copies (or reduces) in stream
 * order, so a rank's later work sees the result and no host waits for the device. A rank that
 * returns without calling a collective its peers wait in, or that calls another one, is named
 * at once, not left to hang.
 *
 * Where every rank has a GPU of its own and NCCL's library loads, mgk_init() makes real NCCL
 * communicators before the driver is confined (NCCL's set-up needs sockets and shared memory),
 * runs one all-gather on them (its connections are made on first use), and the collectives of
 * those ranks go to NCCL. The symbols ncclAllGather and the like are this file's in both cases:
 * the driver does not link NCCL; it loads it.
 */
#ifndef SCANLAB_NCCL_SHIM_H
#define SCANLAB_NCCL_SHIM_H

#include <stddef.h>

#include <cuda_runtime.h>
#include <nccl.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most ranks of a communicator (the lab's MG_RANKS_MAX). */
#define MGK_RANKS_MAX 64

/**
 * @brief Unconfined set-up, from the driver's lab hook: when @p real_ranks GPUs (two or more)
 * are visible and NCCL's library loads, makes NCCL communicators over GPUs 0 .. real_ranks-1 and
 * warms them with one all-gather. Returns 0 (also when it made none: the stand-in serves), or -1
 * with the reason in @p err when NCCL loaded but failed.
 */
int mgk_init(int real_ranks, char *err, size_t cap);
/** 1 when mgk_init() made NCCL communicators of @p size ranks. */
int mgk_real(int size);
/**
 * @brief The communicator of rank @p rank of @p size on @p device: NCCL's (mgk_real(size)) or the
 * stand-in's, made once and kept.
 */
ncclComm_t mgk_comm(int size, int rank, int device);
/** Before a call of all @p size ranks: the stand-in's rounds start again, no rank is done. */
void mgk_begin(int size);
/** Rank @p rank's buffers for this call: the stand-in refuses another rank's in a collective. */
void mgk_own(int size, int rank, const void *p, size_t bytes);
/** Rank @p rank returned from the student's function: a peer still waiting in a collective is
 *  told at once. */
void mgk_done(int size, int rank);
/** 1 while rank @p rank waits in a stand-in collective for its peers. */
int mgk_waiting(int size, int rank);
/** After the call: 0, or 1 and what went wrong among the ranks (a skipped or mismatched
 *  collective, another rank's buffer, an error of NCCL's) in @p msg. */
int mgk_failed(int size, char *msg, size_t cap);

/**
 * @brief Ranks as processes: this process is rank @p rank of @p size, on @p device. With
 * @p use_nccl, NCCL's communicator (rank 0 writes NCCL's id to `DIR/nccl-id`, a folder every
 * node of the job sees, and each rank reads it: the form that runs across nodes); otherwise the
 * stand-in's, over a file in /dev/shm named after @p dir (`DIR/stand-in` without /dev/shm) that
 * rank 0 makes and removes as it ends, and every rank on the host maps.
 * NULL with the reason in @p err.
 */
ncclComm_t mgk_process_comm(int size, int rank, int device, const char *dir, int use_nccl, char *err, size_t cap);
/** The rank's function returned: a peer waiting in a collective it did not call is told. */
void mgk_process_done(ncclComm_t comm);
/** 0, or 1 and what went wrong among the ranks (stand-in only) in @p msg. */
int mgk_process_failed(ncclComm_t comm, char *msg, size_t cap);
/** The stand-in's ranks wait for each other between calls, and its failure and done marks clear
 *  (NCCL's: nothing); -1 after 80 s. */
int mgk_process_barrier(ncclComm_t comm);

#ifdef __cplusplus
}
#endif
#endif /* SCANLAB_NCCL_SHIM_H */
