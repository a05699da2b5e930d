/**
 * @file lab08_calls.cu
 * @brief Lab 08's call table: the ranks, one host thread each, and the single-GPU scan.
 *
 * A call of the ranks is `(G, then each rank's buffers)`: for the scans `in, out`, for the
 * compaction `in, out, where` after a pivot (`G, pivot, ...`). The table starts G threads,
 * one a rank; each makes its device current, gets its own ScanRank (the communicator of G ranks,
 * its stream, its scratch memory, poisoned) and calls the student's function; the table waits
 * for them all, then for every rank's stream. On the emu rank r is virtual device r; on a GPU
 * every rank is on GPU 0 (the test keeps its buffers there), so a verdict is the same on a
 * machine of one GPU or eight. The collectives go through the kit's NCCL stand-in
 * (grader/trusted/driver/nccl_shim.h): NCCL itself refuses two ranks on one GPU.
 *
 * The call's value tells the test which ranks waited for the device inside the student's
 * function: bit r for rank r (ranks 0-31), and in bits 32-39 what it called first (MGC_* below).
 * The waits are counted the same way on every backend: the lab's driver is linked with
 * `--wrap` for each call that waits (build.mk, LAB08_WRAP), so the student's calls of them come
 * here first. What goes wrong among the ranks (a skipped or mismatched collective, another
 * rank's buffer) ends the driver with the stand-in's message.
 */
#include <pthread.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "driver.h"
#include "hx_proto.h"
#include "multi_gpu.h"
#include "nccl_shim.h"


/** What a rank that waited for the device called (bits 32-39 of the call's value). */
enum { MGC_NONE = 0, MGC_DEVICE_SYNC, MGC_STREAM_SYNC, MGC_EVENT_SYNC, MGC_MEMSET, MGC_HOST_COPY };

/** Seconds the table waits for each rank's thread, counted from the start of the call's wait. */
#define MGC_JOIN_S 25

enum { FN_PROPAGATE, FN_RTS, FN_COMPACT, FN_CARRY };

typedef struct {
  int fn;
  ScanRank ctx;      /* the kit's; the student's function gets a copy of its own */
  ScanRank *student; /* that copy */
  const int32_t *in;
  int32_t *out;
  size_t n;
  int32_t pivot;
  int64_t *where;
  const int32_t *carry;
  int tid;           /* its thread's id */
} rank_job;

/* What each rank's thread did, kept apart from anything the student's function is handed. */
static struct {
  int synced; /* what it called first that waited (MGC_*), 0: nothing */
} seen[MG_RANKS_MAX];
static __thread int in_student = -1; /* the rank whose student function this thread is in, or -1 */

static void waited(int code) {
  if (in_student >= 0 && !__atomic_load_n(&seen[in_student].synced, __ATOMIC_RELAXED))
    __atomic_store_n(&seen[in_student].synced, code, __ATOMIC_RELAXED);
}

/* The calls that wait for the device, as the student's code reaches them (the link's --wrap). */
extern "C" {
cudaError_t __real_cudaDeviceSynchronize(void);
cudaError_t __real_cudaStreamSynchronize(cudaStream_t stream);
cudaError_t __real_cudaEventSynchronize(cudaEvent_t event);
cudaError_t __real_cudaMemset(void *p, int value, size_t count);
cudaError_t __real_cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t __wrap_cudaDeviceSynchronize(void) { return waited(MGC_DEVICE_SYNC), __real_cudaDeviceSynchronize(); }
cudaError_t __wrap_cudaStreamSynchronize(cudaStream_t stream) {
  return waited(MGC_STREAM_SYNC), __real_cudaStreamSynchronize(stream);
}
cudaError_t __wrap_cudaEventSynchronize(cudaEvent_t event) {
  return waited(MGC_EVENT_SYNC), __real_cudaEventSynchronize(event);
}
cudaError_t __wrap_cudaMemset(void *p, int value, size_t count) {
  return waited(MGC_MEMSET), __real_cudaMemset(p, value, count);
}
/* A copy with host memory on one side: the rank's memory is all on its device, so such a copy is a
 * round trip through the host, and from memory CUDA did not pin it waits until it is done. */
static int on_host(const void *p) {
  cudaPointerAttributes a;
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    cudaGetLastError(); /* the query's own error, not the student's */
    return 1;
  }
  return a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged;
}
cudaError_t __wrap_cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                                   cudaStream_t stream) {
  if (in_student >= 0 && (kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToHost ||
                          kind == cudaMemcpyHostToHost || (kind == cudaMemcpyDefault && (on_host(dst) || on_host(src)))))
    waited(MGC_HOST_COPY);
  return __real_cudaMemcpyAsync(dst, src, count, kind, stream);
}
}

static ScanRank students[MG_RANKS_MAX]; /* what the student's functions hold, apart from the jobs */

static struct {
  cudaStream_t stream;
  int device;
  void *scratch;
  size_t bytes;
} ranks[MG_RANKS_MAX];

static void *rank_main(void *arg) {
  rank_job *j = (rank_job *)arg;
  const int r = j->ctx.rank;
  j->tid = (int)syscall(SYS_gettid);
  cudaSetDevice(j->ctx.device);
  ScanRank *mine = j->student;
  in_student = r;
  switch (j->fn) {
    case FN_PROPAGATE: scanShardsPropagate(mine, j->in, j->out, j->n); break;
    case FN_RTS: scanShardsReduceThenScan(mine, j->in, j->out, j->n); break;
    case FN_COMPACT: compactShards(mine, j->in, j->out, j->n, j->pivot, j->where); break;
    case FN_CARRY:
      scanIncCarry(j->in, j->out, j->n, j->carry, (char *)j->ctx.scratch + MG_WORDS_BYTES, j->ctx.stream);
      break;
  }
  in_student = -1;
  mgk_done(j->ctx.size, r);
  return NULL;
}

/** Rank r's stream and scratch (at least @p bytes), made once and kept. */
static void prepare_rank(int r, int device, size_t bytes) {
  if (ranks[r].stream && ranks[r].device != device) drv_die("rank %d changed device", r);
  cudaSetDevice(device);
  if (!ranks[r].stream) {
    ranks[r].device = device;
    if (cudaStreamCreateWithFlags(&ranks[r].stream, cudaStreamNonBlocking) != cudaSuccess)
      drv_die("rank %d: no stream on device %d", r, device);
  }
  if (ranks[r].bytes < bytes) {
    if (ranks[r].scratch) cudaFree(ranks[r].scratch);
    ranks[r].scratch = NULL;
    ranks[r].bytes = 0;
    if (cudaMalloc(&ranks[r].scratch, bytes) != cudaSuccess) drv_die("rank %d: no scratch memory on device %d", r, device);
    ranks[r].bytes = bytes;
  }
  /* undefined at the start of every call: a function that counts on zeros finds none */
  if (cudaMemsetAsync(ranks[r].scratch, 0xBE, bytes, ranks[r].stream) != cudaSuccess)
    drv_die("rank %d: the scratch memory could not be filled", r);
}

/** Runs @p g jobs, one thread a rank; returns the call's value (see the file's comment). */
static int64_t run_ranks(rank_job *jobs, int g) {
  int devices = 1;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) devices = 1;
  mgk_begin(g);
  for (int r = 0; r < g; r++) {
    rank_job *j = &jobs[r];
#ifdef SCANLAB_EMU
    const int device = r % devices; /* a virtual device a rank */
#else
    const int device = 0; /* the test's buffers are on GPU 0 */
#endif
    prepare_rank(r, device, MG_SCRATCH_BYTES(j->n));
    j->ctx.rank = r;
    j->ctx.size = g;
    j->ctx.device = device;
    j->ctx.comm = mgk_comm(g, r, device);
    j->ctx.stream = ranks[r].stream;
    j->ctx.scratch = ranks[r].scratch;
    j->ctx.scratch_bytes = ranks[r].bytes;
    students[r] = j->ctx;
    j->student = &students[r];
    seen[r].synced = 0;
    mgk_own(g, r, j->in, j->n * sizeof(int32_t));
    mgk_own(g, r, j->out, j->n * sizeof(int32_t));
    if (j->where) mgk_own(g, r, j->where, 2 * sizeof(int64_t));
    mgk_own(g, r, ranks[r].scratch, ranks[r].bytes);
  }
  cudaSetDevice(0);
  pthread_t th[MG_RANKS_MAX];
  for (int r = 0; r < g; r++)
    if (pthread_create(&th[r], NULL, rank_main, &jobs[r]) != 0) drv_die("cannot start rank %d's thread", r);
  char why[1024];
  for (int r = 0; r < g; r++) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += MGC_JOIN_S;
    if (pthread_timedjoin_np(th[r], NULL, &until) != 0) {
      if (!mgk_failed_within(g, why, sizeof why, 2)) snprintf(why, sizeof why, "its peers returned");
      drv_die("rank %d did not return within %d s (%s): a rank that waits for something its peers never do, or "
              "loops on the host", r, MGC_JOIN_S, why);
    }
  }
  /* A joined thread can still be listed for a moment as it ends; the driver counts the threads
   * it finds after a call, so the ranks' must be gone first. */
  for (int r = 0; r < g; r++) {
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/self/task/%d", jobs[r].tid);
    for (int k = 0; k < 100000 && stat(path, &st) == 0; k++) {
      struct timespec us = {0, 50000};
      nanosleep(&us, NULL);
    }
  }
  if (mgk_failed(g, why, sizeof why)) drv_die("%s", why);
  int64_t value = 0;
  for (int r = 0; r < g; r++) {
    if (jobs[r].ctx.device != 0) { /* the driver waits for device 0; the kit waits for the others */
      cudaSetDevice(jobs[r].ctx.device);
      cudaStreamSynchronize(ranks[r].stream);
    }
    if (seen[r].synced && r < 32) {
      value |= (int64_t)1 << r;
      if (!(value >> 32)) value |= (int64_t)seen[r].synced << 32;
    }
  }
  cudaSetDevice(0);
  return value;
}

/** The ranks' count G, checked. */
static int ranks_of(drv_call *c, int per_rank, int first) {
  const int64_t g = drv_i64(c, 0);
  if (g < 1 || g > MG_RANKS_MAX || g > (HXP_MAX_ARGS - first) / per_rank)
    drv_die("lab 08: %lld ranks (1 to %d, and %d buffers a rank must fit a call)", (long long)g, MG_RANKS_MAX,
            per_rank);
  return (int)g;
}

static int64_t call_ranks(drv_call *c, int fn) {
  const int first = fn == FN_COMPACT ? 2 : 1, per = fn == FN_COMPACT ? 3 : 2;
  const int g = ranks_of(c, per, first);
  rank_job jobs[MG_RANKS_MAX];
  memset(jobs, 0, sizeof jobs);
  for (int r = 0; r < g; r++) {
    const int k = first + per * r;
    jobs[r].fn = fn;
    jobs[r].in = (const int32_t *)drv_ptr(c, k);
    jobs[r].out = (int32_t *)drv_ptr(c, k + 1);
    jobs[r].n = drv_buf_bytes(c, k) / sizeof(int32_t);
    if (drv_buf_bytes(c, k + 1) < jobs[r].n * sizeof(int32_t)) drv_die("rank %d: an output shorter than its input", r);
    if (fn == FN_COMPACT) {
      jobs[r].pivot = (int32_t)drv_i64(c, 1);
      jobs[r].where = (int64_t *)drv_ptr(c, k + 2);
    }
  }
  return run_ranks(jobs, g);
}

static int64_t call_propagate(drv_call *c) { return call_ranks(c, FN_PROPAGATE); }
static int64_t call_rts(drv_call *c) { return call_ranks(c, FN_RTS); }
static int64_t call_compact(drv_call *c) { return call_ranks(c, FN_COMPACT); }

/** One rank's reduce-then-scan `(in, out)`, as the timed calls give it. */
static int64_t call_rts_one(drv_call *c) {
  rank_job job;
  memset(&job, 0, sizeof job);
  job.fn = FN_RTS;
  job.in = (const int32_t *)drv_ptr(c, 0);
  job.out = (int32_t *)drv_ptr(c, 1);
  job.n = drv_buf_bytes(c, 0) / sizeof(int32_t);
  if (drv_buf_bytes(c, 1) < job.n * sizeof(int32_t)) drv_die("scanShardsReduceThenScan: an output shorter than its input");
  return run_ranks(&job, 1);
}

/** scanIncCarry(in, out, n, carry) on rank 0's device and stream: `(in, out, carry)`. */
static int64_t call_carry(drv_call *c) {
  rank_job job;
  memset(&job, 0, sizeof job);
  job.fn = FN_CARRY;
  job.in = (const int32_t *)drv_ptr(c, 0);
  job.out = (int32_t *)drv_ptr(c, 1);
  job.n = drv_buf_bytes(c, 0) / sizeof(int32_t);
  job.carry = (const int32_t *)drv_ptr(c, 2);
  if (drv_buf_bytes(c, 1) < job.n * sizeof(int32_t)) drv_die("scanIncCarry: an output shorter than its input");
  return run_ranks(&job, 1);
}

DRV_TABLE({"scanIncCarry", call_carry}, {"scanShardsPropagate", call_propagate},
          {"scanShardsReduceThenScan", call_rts}, {"scanShardsReduceThenScan_1rank", call_rts_one},
          {"compactShards", call_compact});
