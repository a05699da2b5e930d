/**
 * @file nccl_shim.cu
 * @brief The kit's stand-in for NCCL's collectives among ranks that are threads of the driver
 *        (the graded ranks), and NCCL's entry points, which go to NCCL itself for a
 *        communicator of ranks as processes that NCCL made (nccl_process.cu).
 *
 * A stand-in collective, rank r, its k-th of the call:
 *  1. checks its buffers are its own (its arrays or scratch memory) and records what it was asked
 *     (kind, count, type, operator, root, buffers, stream) and an event on its stream, the point
 *     its inputs are ready at;
 *  2. waits on the host until every rank has arrived at its k-th collective (or one returned
 *     without it, or called another, or none came for MGK_WAIT_S seconds: then every waiting
 *     rank gets ncclInvalidUsage and the call's failure says who did what);
 *  3. the last rank to arrive moves the data: each receiver's stream waits for every sender's
 *     event, copies (or reduces into the kit's memory, then copies) on the receiver's stream,
 *     and records an event there; each sender's stream then waits for every receiver's, so no
 *     rank overwrites its send buffer before its peers have read it. No thread waits for the
 *     device (a growing reduction buffer is allocated, never freed).
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime.h>
#include <nccl.h>

#include "nccl_shim_internal.h"

const char *const mgk_kind[] = {"", "ncclAllGather", "ncclAllReduce", "ncclBroadcast", "ncclReduce",
                                "ncclReduceScatter"};
const char *const mgk_type[] = {"ncclInt8", "ncclUint8", "ncclInt32", "ncclUint32", "ncclInt64",
                                "ncclUint64", "ncclFloat16", "ncclFloat32", "ncclFloat64", "ncclBfloat16",
                                "ncclFloat8e4m3", "ncclFloat8e5m2"};
const char *const mgk_opname[] = {"ncclSum", "ncclProd", "ncclMax", "ncclMin", "ncclAvg"};
const size_t mgk_type_bytes[] = {1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1};

/** The stand-in's state of one communicator size (all its ranks). */
typedef struct {
  pthread_mutex_t m;
  pthread_cond_t cv;
  int size;
  struct ncclComm comm[MGK_RANKS_MAX];
  cudaEvent_t ready[MGK_RANKS_MAX], reduced[MGK_RANKS_MAX], moved[MGK_RANKS_MAX];
  void *tmp[MGK_RANKS_MAX]; /* each rank's reduction, before it is copied to its receive buffer */
  size_t tmp_bytes[MGK_RANKS_MAX];
  int made_events;
  /* this call */
  unsigned long round;                 /* the collective every rank is at */
  int arrived;                         /* ranks waiting in it */
  unsigned long calls[MGK_RANKS_MAX];  /* collectives each rank has made */
  int done[MGK_RANKS_MAX];             /* ranks back from the student's function */
  mgk_op op[MGK_RANKS_MAX];
  struct { const char *p; size_t bytes; } own[MGK_RANKS_MAX][8];
  int nown[MGK_RANKS_MAX];
  int failed;
  char why[1024];
} mgk_group;

static mgk_group *groups[MGK_RANKS_MAX + 1];
static pthread_mutex_t groups_m = PTHREAD_MUTEX_INITIALIZER;

static mgk_group *group(int size) {
  if (size < 1 || size > MGK_RANKS_MAX) return NULL;
  pthread_mutex_lock(&groups_m);
  if (!groups[size]) {
    mgk_group *g = (mgk_group *)calloc(1, sizeof *g);
    pthread_mutex_init(&g->m, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->size = size;
    groups[size] = g;
  }
  pthread_mutex_unlock(&groups_m);
  return groups[size];
}

/* ---- NCCL itself, loaded ----------------------------------------------------------------- */

#ifndef SCANLAB_EMU
mgk_api mgk_real_api;

int mgk_load_nccl(void *lib) {
  mgk_real_api.all_gather = (all_gather_fn)dlsym(lib, "ncclAllGather");
  mgk_real_api.all_reduce = (all_reduce_fn)dlsym(lib, "ncclAllReduce");
  mgk_real_api.broadcast = (broadcast_fn)dlsym(lib, "ncclBroadcast");
  mgk_real_api.reduce = (reduce_fn)dlsym(lib, "ncclReduce");
  mgk_real_api.reduce_scatter = (reduce_scatter_fn)dlsym(lib, "ncclReduceScatter");
  mgk_real_api.group_start = (group_fn)dlsym(lib, "ncclGroupStart");
  mgk_real_api.group_end = (group_fn)dlsym(lib, "ncclGroupEnd");
  mgk_real_api.error_string = (error_fn)dlsym(lib, "ncclGetErrorString");
  const mgk_api *a = &mgk_real_api;
  return a->all_gather && a->all_reduce && a->broadcast && a->reduce && a->reduce_scatter && a->group_start &&
                 a->group_end && a->error_string
             ? 0
             : -1;
}
#endif
int mgk_real_size = 0; /* ranks of the NCCL communicators made, 0: none */

ncclComm_t mgk_comm(int size, int rank, int device) {
  mgk_group *g = group(size);
  if (!g || rank < 0 || rank >= size) return NULL;
  g->comm[rank] = (struct ncclComm){size, rank, device, NULL, NULL};
  return &g->comm[rank];
}

static void fail_locked(mgk_group *g, const char *fmt, ...) {
  if (!g->failed) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->why, sizeof g->why, fmt, ap);
    va_end(ap);
    g->failed = 1;
  }
  pthread_cond_broadcast(&g->cv);
}

void mgk_begin(int size) {
  mgk_group *g = group(size);
  if (!g) return;
  pthread_mutex_lock(&g->m);
  g->round = 0;
  g->arrived = 0;
  g->failed = 0;
  g->why[0] = '\0';
  for (int r = 0; r < size; r++) g->calls[r] = 0, g->done[r] = 0, g->nown[r] = 0;
  pthread_mutex_unlock(&g->m);
}

void mgk_own(int size, int rank, const void *p, size_t bytes) {
  mgk_group *g = group(size);
  if (!g || rank < 0 || rank >= size || g->nown[rank] >= 8) return;
  g->own[rank][g->nown[rank]].p = (const char *)p;
  g->own[rank][g->nown[rank]].bytes = bytes;
  g->nown[rank]++;
}

const char *mgk_ordinal(unsigned long k) {
  static __thread char s[24];
  const char *suf = k % 100 >= 11 && k % 100 <= 13 ? "th" : k % 10 == 1 ? "st" : k % 10 == 2 ? "nd" : k % 10 == 3 ? "rd" : "th";
  snprintf(s, sizeof s, "%lu%s", k, suf);
  return s;
}

void mgk_describe(const mgk_op *o, char *out, size_t cap) {
  if (o->kind == K_ALLREDUCE || o->kind == K_REDUCE || o->kind == K_REDUCESCATTER)
    snprintf(out, cap, "%s of %zu x %s, %s%s", mgk_kind[o->kind], o->count, mgk_type[o->type], mgk_opname[o->op],
             o->kind == K_REDUCE ? ", a root" : "");
  else
    snprintf(out, cap, "%s of %zu x %s", mgk_kind[o->kind], o->count, mgk_type[o->type]);
  if (o->kind == K_BROADCAST || o->kind == K_REDUCE) {
    const size_t len = strlen(out);
    snprintf(out + len, cap - len, " (root %d)", o->root);
  }
}

/* Once every rank has either come to the collective the others wait in or returned without it,
 * the failure names the lowest rank that returned and every rank that waits: decided only then,
 * so the message is the same whatever order the threads ran in (g->m held). */
static void settle_locked(mgk_group *g) {
  if (g->failed || g->arrived == 0) return;
  const unsigned long k = g->round;
  int short_rank = -1, first_waiting = -1, waiting = 0;
  char list[200] = "";
  for (int r = 0, len = 0; r < g->size; r++) {
    if (g->calls[r] > k) {
      if (first_waiting < 0) first_waiting = r;
      waiting++;
      if (len < (int)sizeof list - 16) len += snprintf(list + len, sizeof list - (size_t)len, "%s%d", len ? ", " : "", r);
    } else if (!g->done[r]) {
      return; /* still running: it may yet come */
    } else if (short_rank < 0) {
      short_rank = r;
    }
  }
  if (short_rank < 0 || first_waiting < 0) return;
  char what[200];
  mgk_describe(&g->op[first_waiting], what, sizeof what);
  fail_locked(g, "rank %d returned after %lu collective%s while %s %s %s in %s %s collective, %s: every rank must "
                 "call the same collectives in the same order (an empty shard's rank too)",
              short_rank, g->calls[short_rank], g->calls[short_rank] == 1 ? "" : "s", waiting == 1 ? "rank" : "ranks",
              list, waiting == 1 ? "waits" : "wait", waiting == 1 ? "its" : "their", mgk_ordinal(k + 1), what);
}

void mgk_done(int size, int rank) {
  mgk_group *g = group(size);
  if (!g || rank < 0 || rank >= size) return;
  pthread_mutex_lock(&g->m);
  g->done[rank] = 1;
  settle_locked(g);
  pthread_cond_broadcast(&g->cv); /* a rank after it in turn (wait_turn_locked) */
  pthread_mutex_unlock(&g->m);
}

/* After a failure the ranks go on one at a time, in rank order: each returns from its collective
 * once every lower rank has returned from the student's function, so what they print next comes
 * in the same order however the threads ran (g->m held). A lower rank that does not finish within
 * MGK_WAIT_S lets it go anyway: the call's own limit names that rank. */
static void wait_turn_locked(mgk_group *g, int r) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += MGK_WAIT_S;
  for (;;) {
    int lower_running = 0;
    for (int s = 0; s < r; s++) lower_running |= !g->done[s];
    if (!lower_running || pthread_cond_timedwait(&g->cv, &g->m, &until) == ETIMEDOUT) return;
  }
}

int mgk_waiting(int size, int rank) {
  mgk_group *g = group(size);
  if (!g || rank < 0 || rank >= size) return 0;
  pthread_mutex_lock(&g->m);
  const int w = !g->failed && g->calls[rank] > g->round;
  pthread_mutex_unlock(&g->m);
  return w;
}

int mgk_failed_within(int size, char *msg, size_t cap, int seconds) {
  mgk_group *g = group(size);
  if (!g) return 0;
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += seconds;
  if (pthread_mutex_timedlock(&g->m, &until) != 0) {
    snprintf(msg, cap, "the kit's NCCL stand-in is still moving a collective's data");
    return 1;
  }
  const int f = g->failed;
  if (f) snprintf(msg, cap, "%s", g->why);
  pthread_mutex_unlock(&g->m);
  return f;
}

int mgk_failed(int size, char *msg, size_t cap) {
  mgk_group *g = group(size);
  if (!g) return 0;
  pthread_mutex_lock(&g->m);
  const int f = g->failed;
  if (f) snprintf(msg, cap, "%s", g->why);
  pthread_mutex_unlock(&g->m);
  return f;
}

/* ---- moving the data ----------------------------------------------------------------------- */

/** The senders' buffers, by value (a kernel's pointer arguments are its own device's). */
typedef struct {
  const void *p[MGK_RANKS_MAX];
} mgk_sources;

template <typename T>
static __device__ T combine(T a, T b, int op) {
  return op == ncclSum || op == ncclAvg ? (T)(a + b) : op == ncclProd ? (T)(a * b) : op == ncclMax ? (a > b ? a : b)
                                                                                                     : (a < b ? a : b);
}

/** dst[i] = op over the @p size sources' element (offset + i). */
template <typename T>
static __global__ void reduceKernel(mgk_sources src, int size, size_t offset, T *dst, size_t count, int op) {
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x) {
    T v = ((const T *)src.p[0])[offset + i];
    for (int r = 1; r < size; r++) v = combine(v, ((const T *)src.p[r])[offset + i], op);
    if (op == ncclAvg) v = (T)(v / (T)size);
    dst[i] = v;
  }
}

template <typename T>
static cudaError_t launch_reduce(const mgk_sources &s, int size, size_t offset, void *dst, size_t count, int op,
                                 cudaStream_t st) {
  if (!count) return cudaSuccess;
  const cudaError_t before = cudaPeekAtLastError(); /* a student's pending error stays theirs */
  const size_t blocks = (count + 255) / 256;
  reduceKernel<T><<<blocks > 1024 ? 1024 : (unsigned)blocks, 256, 0, st>>>(s, size, offset, (T *)dst, count, op);
  const cudaError_t e = cudaPeekAtLastError();
  return e == before ? cudaSuccess : e;
}

static cudaError_t reduce_into(const mgk_sources &s, int size, size_t offset, void *dst, size_t count, int type,
                               int op, cudaStream_t st) {
  switch (type) {
    case ncclInt32: return launch_reduce<int32_t>(s, size, offset, dst, count, op, st);
    case ncclUint32: return launch_reduce<uint32_t>(s, size, offset, dst, count, op, st);
    case ncclInt64: return launch_reduce<int64_t>(s, size, offset, dst, count, op, st);
    case ncclUint64: return launch_reduce<uint64_t>(s, size, offset, dst, count, op, st);
    case ncclFloat32: return launch_reduce<float>(s, size, offset, dst, count, op, st);
    case ncclFloat64: return launch_reduce<double>(s, size, offset, dst, count, op, st);
    case ncclInt8: return launch_reduce<int8_t>(s, size, offset, dst, count, op, st);
    case ncclUint8: return launch_reduce<uint8_t>(s, size, offset, dst, count, op, st);
    default: return cudaErrorNotSupported;
  }
}

/** Which rank's buffers hold [p, p + bytes): the rank, or -1 when none of this call's does. */
static int owner(const mgk_group *g, const void *p, size_t bytes) {
  for (int r = 0; r < g->size; r++)
    for (int k = 0; k < g->nown[r]; k++) {
      const char *b = g->own[r][k].p;
      if ((const char *)p >= b && (const char *)p + bytes <= b + g->own[r][k].bytes && g->own[r][k].bytes) return r;
    }
  return -1;
}

/** Rank @p d's reduction memory, at least @p bytes on its device (kept between calls). */
static cudaError_t tmp_for(mgk_group *g, int d, size_t bytes) {
  if (g->tmp_bytes[d] >= bytes) return cudaSuccess;
  /* the smaller one is left, not freed: cudaFree waits for the device, here under the lock */
  void *grown = NULL;
  const cudaError_t e = cudaMalloc(&grown, bytes);
  if (e == cudaSuccess) g->tmp[d] = grown;
  if (e == cudaSuccess) g->tmp_bytes[d] = bytes;
  return e;
}

/** The last rank to arrive moves every rank's data (g->m held). A reduction goes through the
 *  kit's memory first, every rank's, and only then to the receive buffers: a receive buffer may be
 *  a peer's send buffer too (in place), which the other reductions still read. */
static void move_locked(mgk_group *g) {
  const int n = g->size;
  const mgk_op *o = g->op;
  const int kind = o[0].kind;
  const size_t el = mgk_type_bytes[o[0].type], c = o[0].count;
  const int reduction = kind == K_ALLREDUCE || kind == K_REDUCE || kind == K_REDUCESCATTER;
  int dev0 = 0;
  cudaGetDevice(&dev0);
  cudaError_t e = cudaSuccess;
  mgk_sources src;
  memset(&src, 0, sizeof src);
  for (int r = 0; r < n; r++) src.p[r] = o[r].send;
  for (int d = 0; d < n && e == cudaSuccess; d++) { /* each receiver, once every sender is ready */
    const mgk_op *to = &o[d];
    cudaSetDevice(g->comm[d].device);
    for (int s = 0; s < n; s++) cudaStreamWaitEvent(to->stream, g->ready[s], 0);
    switch (kind) {
      case K_ALLGATHER:
        for (int s = 0; s < n && e == cudaSuccess; s++)
          if (c) e = cudaMemcpyAsync((char *)to->recv + (size_t)s * c * el, o[s].send, c * el, cudaMemcpyDefault,
                                     to->stream);
        break;
      case K_BROADCAST:
        if (c && o[to->root].send != to->recv)
          e = cudaMemcpyAsync(to->recv, o[to->root].send, c * el, cudaMemcpyDefault, to->stream);
        break;
      default:
        if ((kind == K_REDUCE && d != to->root) || !c) break;
        e = tmp_for(g, d, c * el);
        /* after the last collective's copy out of it, whatever stream that was on */
        if (e == cudaSuccess) e = cudaStreamWaitEvent(to->stream, g->moved[d], 0);
        if (e == cudaSuccess)
          e = reduce_into(src, n, kind == K_REDUCESCATTER ? (size_t)d * c : 0, g->tmp[d], c, to->type, to->op,
                          to->stream);
    }
    if (e == cudaSuccess) e = cudaEventRecord(reduction ? g->reduced[d] : g->moved[d], to->stream);
  }
  for (int d = 0; reduction && d < n && e == cudaSuccess; d++) { /* then every reduction to its receiver */
    const mgk_op *to = &o[d];
    cudaSetDevice(g->comm[d].device);
    for (int s = 0; s < n; s++) cudaStreamWaitEvent(to->stream, g->reduced[s], 0);
    if (c && (kind != K_REDUCE || d == to->root))
      e = cudaMemcpyAsync(to->recv, g->tmp[d], c * el, cudaMemcpyDefault, to->stream);
    if (e == cudaSuccess) e = cudaEventRecord(g->moved[d], to->stream);
  }
  for (int s = 0; s < n && e == cudaSuccess; s++) { /* no sender goes on before every receiver has read it */
    cudaSetDevice(g->comm[s].device);
    for (int d = 0; d < n; d++) cudaStreamWaitEvent(o[s].stream, g->moved[d], 0);
  }
  cudaSetDevice(dev0);
  if (e != cudaSuccess)
    fail_locked(g, "the kit's NCCL stand-in could not move %s's data (%zu x %s a rank): %s", mgk_kind[kind], c,
                mgk_type[o[0].type], cudaGetErrorString(e));
}

int mgk_same(const mgk_op *a, const mgk_op *b) {
  return a->kind == b->kind && a->count == b->count && a->type == b->type &&
         (a->kind == K_ALLGATHER || a->kind == K_BROADCAST || a->op == b->op) &&
         (a->kind != K_BROADCAST && a->kind != K_REDUCE ? 1 : a->root == b->root);
}

/** Bytes a rank's send and receive buffers must hold. */
void mgk_extents(const mgk_op *o, int size, size_t *send, size_t *recv) {
  const size_t b = o->count * mgk_type_bytes[o->type];
  *send = o->kind == K_REDUCESCATTER ? b * (size_t)size : b;
  *recv = o->kind == K_ALLGATHER ? b * (size_t)size : b;
}

static ncclResult_t collective(ncclComm_t comm, mgk_op op) {
  if (!comm || comm->size < 1) return ncclInvalidArgument;
  if (comm->shared) return mgk_process_collective(comm, op);
  mgk_group *g = group(comm->size);
  const int r = comm->rank, n = comm->size;
  if (op.type < 0 || op.type >= ncclNumTypes) return ncclInvalidArgument;
  pthread_mutex_lock(&g->m);
  if (g->failed) {
    wait_turn_locked(g, r);
    pthread_mutex_unlock(&g->m);
    return ncclInvalidUsage;
  }
  /* A collective's buffers are the rank's own: its arrays or its scratch memory, whole. */
  const size_t el = mgk_type_bytes[op.type];
  if (op.count > ((size_t)1 << 40) / el / (size_t)n) {
    fail_locked(g, "rank %d called %s with %zu x %s: more than any rank's buffers hold", r, mgk_kind[op.kind],
                op.count, mgk_type[op.type]);
    pthread_mutex_unlock(&g->m);
    return ncclInvalidUsage;
  }
  size_t sb, rb;
  mgk_extents(&op, n, &sb, &rb);
  if (op.kind == K_REDUCE && r != op.root) rb = 0;    /* NCCL reads neither of these: NULL is fine */
  if (op.kind == K_BROADCAST && r != op.root) sb = 0;
  const int so = sb ? owner(g, op.send, sb) : r, ro = rb ? owner(g, op.recv, rb) : r;
  if (so != r || ro != r) {
    const int send_bad = so != r, other = send_bad ? so : ro;
    char whose[64];
    if (other >= 0) snprintf(whose, sizeof whose, "rank %d's memory", other);
    else snprintf(whose, sizeof whose, "no array of its own and not its scratch memory");
    fail_locked(g, "rank %d's %s of %zu x %s: its %s buffer (%zu bytes) is %s: a rank's collectives take its own "
                   "arrays or ScanRank::scratch",
                r, mgk_kind[op.kind], op.count, mgk_type[op.type], send_bad ? "send" : "receive", send_bad ? sb : rb,
                whose);
    pthread_mutex_unlock(&g->m);
    return ncclInvalidUsage;
  }
  const unsigned long k = g->calls[r]++;
  g->op[r] = op;
  if (!g->made_events) {
    for (int s = 0; s < n; s++) {
      cudaSetDevice(g->comm[s].device);
      cudaEventCreateWithFlags(&g->ready[s], cudaEventDisableTiming);
      cudaEventCreateWithFlags(&g->reduced[s], cudaEventDisableTiming);
      cudaEventCreateWithFlags(&g->moved[s], cudaEventDisableTiming);
    }
    cudaSetDevice(comm->device);
    g->made_events = 1;
  }
  cudaEventRecord(g->ready[r], op.stream);
  if (!g->failed && ++g->arrived < n) settle_locked(g); /* a peer that returned without it: named now */
  if (!g->failed && g->arrived == n) {
    for (int s = 0; s < n && !g->failed; s++)
      if (!mgk_same(&g->op[s], &g->op[0])) {
        char a[200], b[200];
        mgk_describe(&g->op[0], a, sizeof a);
        mgk_describe(&g->op[s], b, sizeof b);
        fail_locked(g, "the %s collective differs between ranks: rank 0 called %s, rank %d %s: every rank must call "
                       "the same collectives in the same order, with the same counts",
                    mgk_ordinal(k + 1), a, s, b);
      }
    if (!g->failed) move_locked(g);
    g->arrived = 0;
    g->round++;
    pthread_cond_broadcast(&g->cv);
  } else {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += MGK_WAIT_S;
    while (!g->failed && g->round == k)
      if (pthread_cond_timedwait(&g->cv, &g->m, &until) != 0 && !g->failed && g->round == k) {
        char what[200], late[160] = "";
        mgk_describe(&op, what, sizeof what);
        for (int s = 0, len = 0; s < n && len < (int)sizeof late - 8; s++)
          if (g->calls[s] <= k) len += snprintf(late + len, sizeof late - (size_t)len, "%s%d", len ? ", " : "", s);
        fail_locked(g, "rank %d waited %d s in its %s collective, %s, for rank%s %s, which neither called it nor "
                       "returned",
                    r, MGK_WAIT_S, mgk_ordinal(k + 1), what, strchr(late, ',') ? "s" : "", late);
      }
  }
  const int failed = g->failed;
  if (failed) wait_turn_locked(g, r);
  pthread_mutex_unlock(&g->m);
  return failed ? ncclInvalidUsage : ncclSuccess;
}

/* ---- NCCL's interface ---------------------------------------------------------------------- */

extern "C" {

#ifndef SCANLAB_EMU
#define REAL(comm) ((comm) && (comm)->real)
#define RAW(comm) ((ncclComm_t)(comm)->real)
#else
#define REAL(comm) 0
#define RAW(comm) (comm)
#endif

ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t stream) {
#ifndef SCANLAB_EMU
  if (REAL(comm)) return mgk_real_api.all_gather(sendbuff, recvbuff, sendcount, datatype, RAW(comm), stream);
#endif
  return collective(comm, mgk_op{K_ALLGATHER, (int)datatype, 0, 0, sendcount, sendbuff, recvbuff, stream});
}
ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
#ifndef SCANLAB_EMU
  if (REAL(comm)) return mgk_real_api.all_reduce(sendbuff, recvbuff, count, datatype, op, RAW(comm), stream);
#endif
  if ((int)op < 0 || (int)op >= ncclNumOps) return ncclInvalidArgument;
  return collective(comm, mgk_op{K_ALLREDUCE, (int)datatype, (int)op, 0, count, sendbuff, recvbuff, stream});
}
ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root,
                           ncclComm_t comm, cudaStream_t stream) {
#ifndef SCANLAB_EMU
  if (REAL(comm)) return mgk_real_api.broadcast(sendbuff, recvbuff, count, datatype, root, RAW(comm), stream);
#endif
  if (!comm || root < 0 || root >= comm->size) return ncclInvalidArgument;
  return collective(comm, mgk_op{K_BROADCAST, (int)datatype, 0, root, count, sendbuff, recvbuff, stream});
}
ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                        int root, ncclComm_t comm, cudaStream_t stream) {
#ifndef SCANLAB_EMU
  if (REAL(comm)) return mgk_real_api.reduce(sendbuff, recvbuff, count, datatype, op, root, RAW(comm), stream);
#endif
  if (!comm || root < 0 || root >= comm->size || (int)op < 0 || (int)op >= ncclNumOps) return ncclInvalidArgument;
  return collective(comm, mgk_op{K_REDUCE, (int)datatype, (int)op, root, count, sendbuff, recvbuff, stream});
}
ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
#ifndef SCANLAB_EMU
  if (REAL(comm)) return mgk_real_api.reduce_scatter(sendbuff, recvbuff, recvcount, datatype, op, RAW(comm), stream);
#endif
  if ((int)op < 0 || (int)op >= ncclNumOps) return ncclInvalidArgument;
  return collective(comm, mgk_op{K_REDUCESCATTER, (int)datatype, (int)op, 0, recvcount, sendbuff, recvbuff, stream});
}
ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  (void)sendbuff, (void)count, (void)datatype, (void)peer, (void)comm, (void)stream;
  fprintf(stderr, "ncclSend: the kit's NCCL stand-in has the collectives only; this lab needs none other\n");
  return ncclInvalidUsage;
}
ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  (void)recvbuff, (void)count, (void)datatype, (void)peer, (void)comm, (void)stream;
  fprintf(stderr, "ncclRecv: the kit's NCCL stand-in has the collectives only; this lab needs none other\n");
  return ncclInvalidUsage;
}
/* A group holds one rank's collectives together; each stand-in collective already waits for its
 * peers, so a group of one thread's collectives needs nothing more. */
ncclResult_t ncclGroupStart(void) {
#ifndef SCANLAB_EMU
  if (mgk_real_size) return mgk_real_api.group_start();
#endif
  return ncclSuccess;
}
ncclResult_t ncclGroupEnd(void) {
#ifndef SCANLAB_EMU
  if (mgk_real_size) return mgk_real_api.group_end();
#endif
  return ncclSuccess;
}

static ncclResult_t kit_makes(const char *fn) {
  fprintf(stderr, "%s: the kit makes the communicators (ScanRank::comm); student code makes none\n", fn);
  return ncclInvalidUsage;
}
ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId) { return (void)uniqueId, kit_makes("ncclGetUniqueId"); }
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank) {
  (void)comm, (void)nranks, (void)commId, (void)rank;
  return kit_makes("ncclCommInitRank");
}
ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist) {
  (void)comm, (void)ndev, (void)devlist;
  return kit_makes("ncclCommInitAll");
}
ncclResult_t ncclCommDestroy(ncclComm_t comm) { return (void)comm, kit_makes("ncclCommDestroy"); }
ncclResult_t ncclCommAbort(ncclComm_t comm) { return (void)comm, kit_makes("ncclCommAbort"); }

ncclResult_t ncclGetVersion(int *version) {
  if (!version) return ncclInvalidArgument;
  *version = NCCL_VERSION_CODE;
  return ncclSuccess;
}
const char *ncclGetErrorString(ncclResult_t result) {
  switch (result) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error";
    case ncclSystemError: return "unhandled system error";
    case ncclInternalError: return "internal error";
    case ncclInvalidArgument: return "invalid argument";
    case ncclInvalidUsage: return "invalid usage";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
  }
}
const char *ncclGetLastError(ncclComm_t comm) {
  (void)comm;
  return "";
}
ncclResult_t ncclCommCount(const ncclComm_t comm, int *count) {
  if (!comm || !count) return ncclInvalidArgument;
  *count = comm->size;
  return ncclSuccess;
}
ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device) {
  if (!comm || !device) return ncclInvalidArgument;
  *device = comm->device;
  return ncclSuccess;
}
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank) {
  if (!comm || !rank) return ncclInvalidArgument;
  *rank = comm->rank;
  return ncclSuccess;
}

} /* extern "C" */
