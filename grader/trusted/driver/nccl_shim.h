/**
 * @file nccl_shim.h
 * @brief Lab 08's communicators: the kit's stand-in for NCCL's collectives, for the graded ranks
 *        (threads of the driver) and for ranks as processes, and the route to NCCL itself for
 *        processes that each have a GPU.
 *
 * NCCL refuses two ranks on one GPU, and the emu has no NCCL, so the kit provides NCCL's
 * collectives itself. Graded ranks are threads of the driver (nccl_shim.cu): a collective waits
 * on the host until every rank has called it, checks that all called the same one (kind, count,
 * type, operator, root) on buffers of their own, then joins the ranks' streams with events and
 * copies (or reduces, through buffers of the kit's) in stream order, so a rank's later work sees
 * the result and no host waits for the device. A rank that returns without calling a collective
 * its peers wait in, or that calls another one, is named at once, not left to hang.
 *
 * Ranks as processes (nccl_process.cu, the `make ranks` program) use the stand-in through a
 * file every process on the host maps, or, where each has a GPU, NCCL itself: loaded at run time
 * (the symbols ncclAllGather and the like are the kit's in every case), its communicator made
 * from an id rank 0 leaves in a folder every node sees.
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

/** The stand-in's communicator of rank @p rank of @p size on @p device, made once and kept. */
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
 *  collective, another rank's buffer) in @p msg. */
int mgk_failed(int size, char *msg, size_t cap);
/** mgk_failed() that waits at most @p seconds for the stand-in's lock (1 and why, past them). */
int mgk_failed_within(int size, char *msg, size_t cap, int seconds);

/**
 * @brief Ranks as processes: this process is rank @p rank of @p size, on @p device. With
 * @p use_nccl, NCCL's communicator (rank 0 writes NCCL's id to `DIR/nccl-id`, a folder every
 * node of the job sees, and each rank reads it: the form that runs across nodes); otherwise the
 * stand-in's, over a file (in /dev/shm where there is one) that rank 0 makes for this run and
 * removes as it ends, and every rank on the host maps, finding its path in `DIR/stand-in`.
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
