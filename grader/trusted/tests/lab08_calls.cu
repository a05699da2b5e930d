/**
 * @file lab08_calls.cu
 * @brief Lab 08's call table: the ranks, one host thread each, and the single-GPU scan.
 *
 * A call of the ranks is `(G, flags, then each rank's buffers)`: for the scans `in, out`, for the
 * compaction `in, out, where` after a pivot (`G, flags, pivot, ...`). The table starts G threads,
 * one a rank; each makes its device current, fills its ScanRank (the communicator of G ranks,
 * its stream, its scratch memory, poisoned) and calls the student's function; the table waits
 * for them all, then for every rank's stream. Ranks are on devices `r % devices`: their own GPUs
 * with NCCL where there are G GPUs, else GPUs (or the emu's virtual devices) shared through the
 * kit's NCCL stand-in (grader/trusted/driver/nccl_shim.h).
 *
 * The call's value tells the test which ranks waited for the device inside the student's
 * function: bit r for rank r, and in bits 32-39 what it called (MGC_* below; on the emu the
 * emulator counts the calls, on a GPU with flag 1 each rank's stream is held by a kit kernel
 * until the function returns: a function that waits for the device cannot return).
 * What goes wrong among the ranks (a skipped or mismatched collective, another rank's buffer)
 * ends the driver with the stand-in's message.
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

#ifdef SCANLAB_EMU
extern "C" unsigned long long scanlab_emu_host_syncs(const char **last) __attribute__((weak));
#endif

/** What a rank that waited for the device called (bits 32-39 of the call's value). */
enum { MGC_NONE = 0, MGC_DEVICE_SYNC, MGC_STREAM_SYNC, MGC_EVENT_SYNC, MGC_MEMCPY, MGC_MEMSET, MGC_FREE, MGC_HELD,
       MGC_OTHER };

/** Seconds a held stream waits for the student's function to return (flag 1, on a GPU). */
#define MGC_HOLD_S 3.0

enum { FN_PROPAGATE, FN_RTS, FN_COMPACT, FN_CARRY };

typedef struct {
  int fn;
  ScanRank ctx;
  const int32_t *in;
  int32_t *out;
  size_t n;
  int32_t pivot;
  int64_t *where;
  const int32_t *carry;
  int synced;   /* what it called that waited (MGC_*), 0: nothing */
  int returned; /* the student's function returned */
  int tid;      /* its thread's id */
} rank_job;

static struct {
  cudaStream_t stream;
  int device;
  void *scratch;
  size_t bytes;
} ranks[MG_RANKS_MAX];

static volatile int *hold_flag; /* host memory the GPU reads: 0 holds the streams */
static int *hold_dev;

/** Spins until the host opens the gate: the stream's later work waits behind it. */
static __global__ void holdKernel(const volatile int *flag) {
  while (*flag == 0) {
#if __CUDA_ARCH__ >= 700
    __nanosleep(1000);
#endif
  }
}

static __attribute__((unused)) int sync_code(const char *name) {
  static const char *const names[] = {"", "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
                                      "cudaMemcpy", "cudaMemset", "cudaFree"};
  for (int k = 1; k < 7; k++)
    if (name && strncmp(name, names[k], strlen(names[k])) == 0) return k;
  return MGC_OTHER;
}

static void *rank_main(void *arg) {
  rank_job *j = (rank_job *)arg;
  j->tid = (int)syscall(SYS_gettid);
  cudaSetDevice(j->ctx.device);
#ifdef SCANLAB_EMU
  const char *last = NULL;
  const unsigned long long before = scanlab_emu_host_syncs ? scanlab_emu_host_syncs(NULL) : 0;
#endif
  switch (j->fn) {
    case FN_PROPAGATE: scanShardsPropagate(&j->ctx, j->in, j->out, j->n); break;
    case FN_RTS: scanShardsReduceThenScan(&j->ctx, j->in, j->out, j->n); break;
    case FN_COMPACT: compactShards(&j->ctx, j->in, j->out, j->n, j->pivot, j->where); break;
    case FN_CARRY:
      scanIncCarry(j->in, j->out, j->n, j->carry, (char *)j->ctx.scratch + MG_WORDS_BYTES, j->ctx.stream);
      break;
  }
#ifdef SCANLAB_EMU
  if (scanlab_emu_host_syncs && scanlab_emu_host_syncs(&last) != before) j->synced = sync_code(last);
#endif
  __atomic_store_n(&j->returned, 1, __ATOMIC_RELEASE);
  mgk_done(j->ctx.size, j->ctx.rank);
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

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/** Runs @p g jobs, one thread a rank; returns the call's value (see the file's comment). */
static int64_t run_ranks(rank_job *jobs, int g, int hold) {
  int devices = 1;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) devices = 1;
#ifdef SCANLAB_EMU
  hold = 0; /* the emu runs a launch as it is made: it counts the waits instead */
#endif
  if (hold && !hold_flag) {
    if (cudaHostAlloc((void **)&hold_flag, sizeof(int), cudaHostAllocMapped) != cudaSuccess ||
        cudaHostGetDevicePointer((void **)&hold_dev, (void *)hold_flag, 0) != cudaSuccess)
      drv_die("no mapped host memory for the held streams");
  }
  mgk_begin(g);
  for (int r = 0; r < g; r++) {
    rank_job *j = &jobs[r];
    const int device = mgk_real(g) ? r : r % devices;
    prepare_rank(r, device, MG_SCRATCH_BYTES(j->n));
    j->ctx.rank = r;
    j->ctx.size = g;
    j->ctx.device = device;
    j->ctx.comm = mgk_comm(g, r, device);
    j->ctx.stream = ranks[r].stream;
    j->ctx.scratch = ranks[r].scratch;
    j->ctx.scratch_bytes = ranks[r].bytes;
    j->synced = 0;
    j->returned = 0;
    mgk_own(g, r, j->in, j->n * sizeof(int32_t));
    mgk_own(g, r, j->out, j->n * sizeof(int32_t));
    if (j->where) mgk_own(g, r, j->where, 2 * sizeof(int64_t));
    mgk_own(g, r, ranks[r].scratch, ranks[r].bytes);
  }
  if (hold) {
    *hold_flag = 0;
    __sync_synchronize();
    for (int r = 0; r < g; r++) {
      cudaSetDevice(jobs[r].ctx.device);
      holdKernel<<<1, 1, 0, ranks[r].stream>>>(hold_dev);
    }
  }
  cudaSetDevice(0);
  pthread_t th[MG_RANKS_MAX];
  for (int r = 0; r < g; r++)
    if (pthread_create(&th[r], NULL, rank_main, &jobs[r]) != 0) drv_die("cannot start rank %d's thread", r);
  if (hold) { /* the functions must return while their streams are held */
    const double until = now() + MGC_HOLD_S;
    for (;;) {
      int all = 1;
      for (int r = 0; r < g; r++) all &= __atomic_load_n(&jobs[r].returned, __ATOMIC_ACQUIRE);
      if (all || now() > until) break;
      struct timespec ms = {0, 1000000};
      nanosleep(&ms, NULL);
    }
    for (int r = 0; r < g; r++)
      if (!__atomic_load_n(&jobs[r].returned, __ATOMIC_ACQUIRE) && !mgk_waiting(g, r)) jobs[r].synced = MGC_HELD;
    *hold_flag = 1;
    __sync_synchronize();
  }
  for (int r = 0; r < g; r++) pthread_join(th[r], NULL);
  /* A joined thread can still be listed for a moment as it ends; the driver counts the threads
   * it finds after a call, so the ranks' must be gone first. */
  for (int r = 0; r < g; r++) {
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/self/task/%d", jobs[r].tid);
    for (int k = 0; k < 2000 && stat(path, &st) == 0; k++) {
      struct timespec us = {0, 50000};
      nanosleep(&us, NULL);
    }
  }
  char why[1024];
  if (mgk_failed(g, why, sizeof why)) drv_die("%s", why);
  int64_t value = 0;
  for (int r = 0; r < g; r++) {
    if (jobs[r].ctx.device != 0) { /* the driver waits for device 0; the kit waits for the others */
      cudaSetDevice(jobs[r].ctx.device);
      cudaStreamSynchronize(ranks[r].stream);
    }
    if (jobs[r].synced) {
      value |= (int64_t)1 << r;
      if (!(value >> 32)) value |= (int64_t)jobs[r].synced << 32;
    }
  }
  cudaSetDevice(0);
  return value;
}

/** The ranks' count G and flags, checked. */
static int ranks_of(drv_call *c, int per_rank, int first) {
  const int64_t g = drv_i64(c, 0);
  if (g < 1 || g > MG_RANKS_MAX || g > (HXP_MAX_ARGS - first) / per_rank)
    drv_die("lab 08: %lld ranks (1 to %d, and %d buffers a rank must fit a call)", (long long)g, MG_RANKS_MAX,
            per_rank);
  return (int)g;
}

static int64_t call_ranks(drv_call *c, int fn) {
  const int first = fn == FN_COMPACT ? 3 : 2, per = fn == FN_COMPACT ? 3 : 2;
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
      jobs[r].pivot = (int32_t)drv_i64(c, 2);
      jobs[r].where = (int64_t *)drv_ptr(c, k + 2);
    }
  }
  return run_ranks(jobs, g, (int)(drv_i64(c, 1) & 1));
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
  return run_ranks(&job, 1, 0);
}

/** scanIncCarry(in, out, n, carry) on rank 0's device and stream: `(flags, in, out, carry)`. */
static int64_t call_carry(drv_call *c) {
  rank_job job;
  memset(&job, 0, sizeof job);
  job.fn = FN_CARRY;
  job.in = (const int32_t *)drv_ptr(c, 1);
  job.out = (int32_t *)drv_ptr(c, 2);
  job.n = drv_buf_bytes(c, 1) / sizeof(int32_t);
  job.carry = (const int32_t *)drv_ptr(c, 3);
  if (drv_buf_bytes(c, 2) < job.n * sizeof(int32_t)) drv_die("scanIncCarry: an output shorter than its input");
  return run_ranks(&job, 1, (int)(drv_i64(c, 0) & 1));
}

/* NCCL's communicators, where each rank has a GPU of its own: made before the student's code
 * loads, unconfined (nccl_shim.h). */
extern "C" int drv_lab_init(char *err, size_t cap) {
  int devices = 1;
  if (cudaGetDeviceCount(&devices) != cudaSuccess) devices = 1;
  return mgk_init(devices, err, cap);
}

DRV_TABLE({"scanIncCarry", call_carry}, {"scanShardsPropagate", call_propagate},
          {"scanShardsReduceThenScan", call_rts}, {"scanShardsReduceThenScan_1rank", call_rts_one},
          {"compactShards", call_compact});
