/**
 * @file nccl_process.cu
 * @brief Lab 08's ranks as processes: the kit's NCCL stand-in over a file every rank on the
 *        host maps, and NCCL's own communicator from an id rank 0 leaves in a folder every node
 *        sees (nccl_shim.h, mgk_process_comm()).
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

/* On one host without a GPU a rank, the stand-in's ranks meet in a file every process maps
 * (mgk_process_comm()). A collective stages through it: the rank's stream copies its send data
 * into its slot, then runs a host function (cudaLaunchHostFunc) that waits there for every rank
 * and, for a reduction, reduces the slots; the copies into the receive buffer, queued after it,
 * read the slots. Nothing waits on the rank's own thread. Slots alternate between two halves by
 * the collective's parity: a rank can refill a half only after every rank passed the collective
 * that followed its last use, by which point each has copied out of it (stream order). */

/** Bytes a rank's slot holds: the stand-in across processes moves small collectives only. */
#define MGK_SLOT_BYTES 65536
#define MGK_MAGIC 0x4d474b31u

struct mgk_shared {
  pthread_mutex_t m;
  pthread_cond_t cv;
  unsigned magic;
  int size;
  unsigned long round;
  int arrived;
  unsigned long calls[MGK_RANKS_MAX];
  int done[MGK_RANKS_MAX];
  int passed[MGK_RANKS_MAX]; /* barrier: the last barrier each rank passed */
  unsigned long barrier_round;
  int barrier_in;
  mgk_op op[MGK_RANKS_MAX];  /* only the kinds, counts, types, operators and roots mean anything */
  int failed;
  char why[1024];
  unsigned char slot[2][MGK_RANKS_MAX][MGK_SLOT_BYTES];
  unsigned char res[2][MGK_RANKS_MAX][MGK_SLOT_BYTES];
};

typedef struct {
  struct mgk_shared *sh;
  int rank;
  unsigned long k;
  mgk_op op;
} mgk_arrival;

static void shared_fail(struct mgk_shared *sh, const char *fmt, ...) {
  if (!sh->failed) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sh->why, sizeof sh->why, fmt, ap);
    va_end(ap);
    sh->failed = 1;
  }
  pthread_cond_broadcast(&sh->cv);
}

template <typename T>
static void host_reduce(unsigned char *dst, unsigned char (*src)[MGK_SLOT_BYTES], int size, size_t offset, size_t count,
                        int op) {
  for (size_t i = 0; i < count; i++) {
    T v = ((const T *)src[0])[offset + i];
    for (int r = 1; r < size; r++) {
      const T x = ((const T *)src[r])[offset + i];
      v = op == ncclSum || op == ncclAvg ? (T)(v + x) : op == ncclProd ? (T)(v * x) : op == ncclMax ? (v > x ? v : x)
                                                                                                    : (v < x ? v : x);
    }
    if (op == ncclAvg) v = (T)(v / (T)size);
    ((T *)dst)[i] = v;
  }
}

static void reduce_slots(struct mgk_shared *sh, int half, int r, const mgk_op *o) {
  const size_t off = o->kind == K_REDUCESCATTER ? (size_t)r * o->count : 0;
  unsigned char *dst = sh->res[half][r];
  unsigned char (*src)[MGK_SLOT_BYTES] = sh->slot[half];
  switch (o->type) {
    case ncclInt32: host_reduce<int32_t>(dst, src, sh->size, off, o->count, o->op); break;
    case ncclUint32: host_reduce<uint32_t>(dst, src, sh->size, off, o->count, o->op); break;
    case ncclInt64: host_reduce<int64_t>(dst, src, sh->size, off, o->count, o->op); break;
    case ncclUint64: host_reduce<uint64_t>(dst, src, sh->size, off, o->count, o->op); break;
    case ncclFloat32: host_reduce<float>(dst, src, sh->size, off, o->count, o->op); break;
    case ncclFloat64: host_reduce<double>(dst, src, sh->size, off, o->count, o->op); break;
    case ncclInt8: host_reduce<int8_t>(dst, src, sh->size, off, o->count, o->op); break;
    case ncclUint8: host_reduce<uint8_t>(dst, src, sh->size, off, o->count, o->op); break;
    default: shared_fail(sh, "the kit's NCCL stand-in reduces no %s", mgk_type[o->type]);
  }
}

/* Runs in stream order, after the rank's send data reached its slot: waits for every rank. */
static void arrive(void *arg) {
  mgk_arrival *a = (mgk_arrival *)arg;
  struct mgk_shared *sh = a->sh;
  const int n = sh->size, r = a->rank;
  const unsigned long k = a->k;
  pthread_mutex_lock(&sh->m);
  sh->op[r] = a->op;
  if (!sh->failed && ++sh->arrived == n) {
    for (int s = 0; s < n && !sh->failed; s++)
      if (!mgk_same(&sh->op[s], &sh->op[0])) {
        char x[200], y[200];
        mgk_describe(&sh->op[0], x, sizeof x);
        mgk_describe(&sh->op[s], y, sizeof y);
        shared_fail(sh, "the %s collective differs between ranks: rank 0 called %s, rank %d %s: every rank must call "
                        "the same collectives in the same order, with the same counts",
                    mgk_ordinal(k + 1), x, s, y);
      }
    if (!sh->failed && sh->op[0].kind != K_ALLGATHER && sh->op[0].kind != K_BROADCAST)
      for (int d = 0; d < n; d++)
        if (sh->op[0].kind != K_REDUCE || d == sh->op[0].root) reduce_slots(sh, (int)(k % 2), d, &sh->op[d]);
    sh->arrived = 0;
    sh->round++;
    pthread_cond_broadcast(&sh->cv);
  } else {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += MGK_WAIT_S;
    while (!sh->failed && sh->round == k) {
      for (int s = 0; s < n; s++)
        if (s != r && sh->done[s] && sh->calls[s] <= k) {
          char what[200];
          mgk_describe(&a->op, what, sizeof what);
          shared_fail(sh, "rank %d returned after %lu collective%s while rank %d waits in its %s collective, %s: every "
                          "rank must call the same collectives in the same order (an empty shard's rank too)",
                      s, sh->calls[s], sh->calls[s] == 1 ? "" : "s", r, mgk_ordinal(k + 1), what);
        }
      if (sh->failed) break;
      if (pthread_cond_timedwait(&sh->cv, &sh->m, &until) == ETIMEDOUT && !sh->failed && sh->round == k) {
        char what[200];
        mgk_describe(&a->op, what, sizeof what);
        shared_fail(sh, "rank %d waited %d s in its %s collective, %s, for a rank that neither called it nor returned",
                    r, MGK_WAIT_S, mgk_ordinal(k + 1), what);
      }
    }
  }
  pthread_mutex_unlock(&sh->m);
  free(a);
}

ncclResult_t mgk_process_collective(ncclComm_t comm, mgk_op op) {
  struct mgk_shared *sh = comm->shared;
  const int r = comm->rank, n = comm->size;
  if (op.type < 0 || op.type >= ncclNumTypes) return ncclInvalidArgument;
  size_t sb, rb;
  mgk_extents(&op, n, &sb, &rb);
  const size_t el = mgk_type_bytes[op.type], c = op.count;
  if (sb > MGK_SLOT_BYTES || c * el > MGK_SLOT_BYTES) {
    pthread_mutex_lock(&sh->m);
    shared_fail(sh, "rank %d: %s of %zu bytes: the kit's NCCL stand-in across processes moves at most %d bytes a rank",
                r, mgk_kind[op.kind], sb, MGK_SLOT_BYTES);
    pthread_mutex_unlock(&sh->m);
    return ncclInvalidUsage;
  }
  pthread_mutex_lock(&sh->m);
  const unsigned long k = sh->calls[r]++;
  const int failed = sh->failed;
  pthread_mutex_unlock(&sh->m);
  if (failed) return ncclInvalidUsage;
  const int half = (int)(k % 2);
  mgk_arrival *a = (mgk_arrival *)malloc(sizeof *a);
  if (!a) return ncclSystemError;
  *a = mgk_arrival{sh, r, k, op};
  cudaError_t e = cudaSuccess;
  if (sb) e = cudaMemcpyAsync(sh->slot[half][r], op.send, sb, cudaMemcpyDeviceToHost, op.stream);
  if (e == cudaSuccess) e = cudaLaunchHostFunc(op.stream, arrive, a);
  else free(a);
  if (e == cudaSuccess && c) switch (op.kind) {
      case K_ALLGATHER:
        for (int s = 0; s < n && e == cudaSuccess; s++)
          e = cudaMemcpyAsync((char *)op.recv + (size_t)s * c * el, sh->slot[half][s], c * el, cudaMemcpyHostToDevice,
                              op.stream);
        break;
      case K_BROADCAST:
        e = cudaMemcpyAsync(op.recv, sh->slot[half][op.root], c * el, cudaMemcpyHostToDevice, op.stream);
        break;
      case K_REDUCE:
        if (r == op.root) e = cudaMemcpyAsync(op.recv, sh->res[half][r], c * el, cudaMemcpyHostToDevice, op.stream);
        break;
      default: e = cudaMemcpyAsync(op.recv, sh->res[half][r], c * el, cudaMemcpyHostToDevice, op.stream); break;
    }
  if (e != cudaSuccess) {
    pthread_mutex_lock(&sh->m);
    shared_fail(sh, "rank %d: the kit's NCCL stand-in could not queue %s: %s", r, mgk_kind[op.kind], cudaGetErrorString(e));
    pthread_mutex_unlock(&sh->m);
    return ncclUnhandledCudaError;
  }
  return ncclSuccess;
}

static char made_path[4200], made_name[4096]; /* what rank 0 made: removed when it ends */
static void remove_made(void) {
  if (made_path[0]) unlink(made_path);
  if (made_name[0]) unlink(made_name);
}

/** Rank 0 makes the stand-in's file, in /dev/shm where there is one (a GPU pins it: a copy from
 *  memory it cannot pin is staged when it is queued, before the peers' data is there), named for
 *  this run alone, and writes its path to `DIR/stand-in`; the other ranks read the path there
 *  (the launcher gives each run a folder of its own, or clears it) and map the file. */
static struct mgk_shared *map_shared(const char *dir, int size, int rank, char *err, size_t cap) {
  const size_t bytes = sizeof(struct mgk_shared);
  char name[4096], path[4200];
  snprintf(name, sizeof name, "%s/stand-in", dir);
  if (rank == 0) {
    struct stat st;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    const int shm = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode);
    snprintf(path, sizeof path, "%s/scanlab-ranks-%u-%d-%lld", shm ? "/dev/shm" : dir, (unsigned)getuid(),
             (int)getpid(), (long long)now.tv_sec * 1000000000LL + now.tv_nsec);
    const int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 || ftruncate(fd, (off_t)bytes) != 0) {
      snprintf(err, cap, "%s: %s", path, strerror(errno));
      if (fd >= 0) close(fd);
      return NULL;
    }
    snprintf(made_path, sizeof made_path, "%s", path);
    atexit(remove_made);
    struct mgk_shared *sh = (struct mgk_shared *)mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (sh == MAP_FAILED) {
      snprintf(err, cap, "%s: %s", path, strerror(errno));
      return NULL;
    }
    pthread_mutexattr_t ma;
    pthread_condattr_t ca;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
    pthread_condattr_init(&ca);
    pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
    pthread_mutex_init(&sh->m, &ma);
    pthread_cond_init(&sh->cv, &ca);
    sh->size = size;
    __atomic_store_n(&sh->magic, MGK_MAGIC, __ATOMIC_RELEASE);
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.%d", name, (int)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f || fprintf(f, "%s\n", path) < 0 || fclose(f) != 0 || rename(tmp, name) != 0) {
      snprintf(err, cap, "%s: %s", name, strerror(errno));
      return NULL;
    }
    snprintf(made_name, sizeof made_name, "%s", name);
    return sh;
  }
  for (int tries = 0; tries < 3000; tries++) { /* rank 0 makes it: up to 30 s */
    FILE *f = fopen(name, "r");
    if (f) {
      const int got = fgets(path, sizeof path, f) != NULL;
      fclose(f);
      path[strcspn(path, "\n")] = '\0';
      const int fd = got ? open(path, O_RDWR) : -1;
      struct stat st;
      if (fd >= 0 && fstat(fd, &st) == 0 && (size_t)st.st_size == bytes) {
        struct mgk_shared *sh = (struct mgk_shared *)mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        close(fd);
        if (sh != MAP_FAILED && __atomic_load_n(&sh->magic, __ATOMIC_ACQUIRE) == MGK_MAGIC && sh->size == size)
          return sh;
        if (sh != MAP_FAILED) munmap(sh, bytes);
      } else if (fd >= 0) {
        close(fd);
      }
    }
    usleep(10000);
  }
  snprintf(err, cap, "%s: rank 0 did not make the stand-in's file for %d ranks within 30 s", name, size);
  return NULL;
}

ncclComm_t mgk_process_comm(int size, int rank, int device, const char *dir, int use_nccl, char *err, size_t cap) {
  if (size < 1 || size > MGK_RANKS_MAX || rank < 0 || rank >= size) {
    snprintf(err, cap, "rank %d of %d ranks (1 to %d ranks)", rank, size, MGK_RANKS_MAX);
    return NULL;
  }
  struct ncclComm *c = (struct ncclComm *)calloc(1, sizeof *c);
  if (!c) return NULL;
  *c = (struct ncclComm){size, rank, device, NULL, NULL};
#ifndef SCANLAB_EMU
  if (use_nccl) {
    char path[4096];
    void *lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      snprintf(err, cap, "NCCL asked for, but libnccl.so.2 does not load: %s", dlerror());
      return NULL;
    }
    typedef ncclResult_t (*id_fn)(ncclUniqueId *);
    typedef ncclResult_t (*init_rank_fn)(ncclComm_t *, int, ncclUniqueId, int);
    id_fn get_id = (id_fn)dlsym(lib, "ncclGetUniqueId");
    init_rank_fn init_rank = (init_rank_fn)dlsym(lib, "ncclCommInitRank");
    if (!get_id || !init_rank || mgk_load_nccl(lib) != 0) {
      snprintf(err, cap, "libnccl.so.2 lacks a function the kit calls");
      return NULL;
    }
    /* rank 0 makes the id and writes it where every rank reads it (a folder all nodes share) */
    ncclUniqueId id;
    snprintf(path, sizeof path, "%s/nccl-id", dir);
    if (rank == 0) {
      char tmp[4200];
      snprintf(tmp, sizeof tmp, "%s.%d", path, (int)getpid());
      FILE *f = NULL;
      if (get_id(&id) != ncclSuccess || !(f = fopen(tmp, "wb")) || fwrite(&id, sizeof id, 1, f) != 1 ||
          fclose(f) != 0 || rename(tmp, path) != 0) {
        snprintf(err, cap, "rank 0 could not make NCCL's id in %s", path);
        return NULL;
      }
    } else {
      int got = 0;
      for (int tries = 0; tries < 6000 && !got; tries++) {
        FILE *f = fopen(path, "rb");
        if (f) got = fread(&id, sizeof id, 1, f) == 1, fclose(f);
        if (!got) usleep(10000);
      }
      if (!got) {
        snprintf(err, cap, "rank %d: no NCCL id in %s within 60 s", rank, path);
        return NULL;
      }
    }
    ncclComm_t raw = NULL;
    cudaSetDevice(device);
    const ncclResult_t rc = init_rank(&raw, size, id, rank);
    if (rc != ncclSuccess) {
      snprintf(err, cap, "rank %d: ncclCommInitRank: %s", rank, mgk_real_api.error_string(rc));
      return NULL;
    }
    c->real = raw;
    mgk_real_size = size;
    return c;
  }
#else
  if (use_nccl) {
    snprintf(err, cap, "the emu has no NCCL: its ranks use the kit's stand-in");
    return NULL;
  }
#endif
  c->shared = map_shared(dir, size, rank, err, cap);
  if (!c->shared) return NULL;
#ifndef SCANLAB_EMU
  const cudaError_t e = cudaHostRegister(c->shared, sizeof *c->shared, cudaHostRegisterDefault);
  if (e != cudaSuccess) {
    snprintf(err, cap, "rank %d: the stand-in's shared memory cannot be pinned (cudaHostRegister: %s): its copies "
                       "would not keep stream order", rank, cudaGetErrorString(e));
    return NULL;
  }
#endif
  return c;
}

void mgk_process_done(ncclComm_t comm) {
  if (!comm || !comm->shared) return;
  pthread_mutex_lock(&comm->shared->m);
  comm->shared->done[comm->rank] = 1;
  pthread_cond_broadcast(&comm->shared->cv);
  pthread_mutex_unlock(&comm->shared->m);
}

int mgk_process_failed(ncclComm_t comm, char *msg, size_t cap) {
  if (!comm || !comm->shared) return 0;
  pthread_mutex_lock(&comm->shared->m);
  const int f = comm->shared->failed;
  if (f) snprintf(msg, cap, "%s", comm->shared->why);
  pthread_mutex_unlock(&comm->shared->m);
  return f;
}

int mgk_process_barrier(ncclComm_t comm) {
  if (!comm || !comm->shared) return 0;
  struct mgk_shared *sh = comm->shared;
  pthread_mutex_lock(&sh->m);
  const unsigned long b = sh->barrier_round;
  if (++sh->barrier_in == sh->size) { /* every rank is here, none in a collective: the next call starts clean */
    for (int r = 0; r < sh->size; r++) sh->done[r] = 0, sh->calls[r] = 0;
    sh->round = 0;
    sh->arrived = 0;
    sh->failed = 0;
    sh->why[0] = '\0';
    sh->barrier_in = 0;
    sh->barrier_round++;
    pthread_cond_broadcast(&sh->cv);
  } else {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += 4 * MGK_WAIT_S;
    while (sh->barrier_round == b)
      if (pthread_cond_timedwait(&sh->cv, &sh->m, &until) == ETIMEDOUT && sh->barrier_round == b) {
        sh->barrier_in--; /* not here any more */
        pthread_mutex_unlock(&sh->m);
        return -1;
      }
  }
  pthread_mutex_unlock(&sh->m);
  return 0;
}

