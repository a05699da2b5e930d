/**
 * @file lab08_ranks.cu
 * @brief Lab 08 with ranks as processes: one process a rank, as a job across nodes runs it.
 *
 * Each process is one rank of the lab's functions (`multi_gpu.cu`, yours or the solution),
 * started by `run_ranks.sh` on one host (`make ranks`) or by Slurm's `srun`, one task a GPU
 * (`lab08_ranks.sbatch`). It reads who it is from the launcher's environment:
 *
 *     SCANLAB_RANK, SCANLAB_RANKS, SCANLAB_LOCAL_RANK, SCANLAB_LOCAL_RANKS   (run_ranks.sh)
 *     SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_NTASKS_PER_NODE      (srun)
 *     SCANLAB_RANKS_DIR  a folder every rank sees (rank 0 leaves NCCL's id, or the stand-in's file, there)
 *     SCANLAB_NCCL       1: NCCL (each rank its own GPU); 0: the kit's stand-in (one host);
 *                        unset: NCCL where the host has a GPU for each of its ranks
 *
 * and checks, as lab 08's tests do, scan-then-propagate, reduce-then-scan and the compaction on
 * shards of every size of a list rotated over the ranks (the empty shard included), each rank
 * its own part against the scan of the whole array it computes itself. With `--time N` it also
 * times reduce-then-scan of N elements a rank and a copy of the same bytes on every GPU, and
 * rank 0 reports the fraction of the G GPUs' copy bandwidth. Rank 0's last line:
 * `lab08_ranks: G ranks as processes (...): N passed, N failed`.
 *
 * It runs the student's code unconfined, as any program of the student's would: it is a tool to
 * run the lab as a cluster runs it, not the grader (`make grade LAB=08` is).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>

#include "hx_proto.h"
#include "multi_gpu.h"
#include "nccl_shim.h"

#define SEED 42u
#define LO (-1000)
#define HI 1000
#define PIVOT 500

static int env_int(const char *a, const char *b, int fallback) {
  const char *v = getenv(a);
  if (!v || !*v) v = b ? getenv(b) : NULL;
  return v && *v ? atoi(v) : fallback; /* atoi reads "4(x2)", Slurm's form, as 4 */
}

static void check(cudaError_t e, const char *what, int rank) {
  if (e != cudaSuccess) {
    fprintf(stderr, "lab08_ranks: rank %d: %s: %s\n", rank, what, cudaGetErrorString(e));
    exit(2);
  }
}

/* CUDA_CHECK() in the lab's file (cuda_check.h): here, the message and the end of this rank. */
extern "C" void scanlab_cuda_check(cudaError_t err, const char *expr, const char *file, int line) {
  if (err == cudaSuccess) return;
  fprintf(stderr, "lab08_ranks: %s:%d: CUDA error %s (%s) in '%s'\n", file, line, cudaGetErrorName(err),
          cudaGetErrorString(err), expr);
  exit(2);
}

/** Element i of the whole array. */
static int32_t value(size_t i) { return hxp_gen_value(SEED, i, LO, HI); }

typedef struct {
  ScanRank ctx;
  int32_t *in, *out;
  int64_t *where;
  size_t cap;
} rank_state;

/** Runs @p fn (0 propagate, 1 reduce-then-scan, 2 compaction) on this rank's shard of trial
 *  @p sizes, checks its part, and returns the number of wrong things (0: passed). */
static int run_one(rank_state *s, int fn, const std::vector<size_t> &sizes, int rank, int size) {
  static const char *const NAME[] = {"scanShardsPropagate", "scanShardsReduceThenScan", "compactShards"};
  size_t before = 0, all = 0;
  for (int peer = 0; peer < size; peer++) {
    all += sizes[peer];
    if (peer < rank) before += sizes[peer];
  }
  const size_t n = sizes[rank];
  std::vector<int32_t> host(n ? n : 1);
  for (size_t i = 0; i < n; i++) host[i] = value(before + i);
  check(cudaMemcpy(s->in, host.data(), n * sizeof(int32_t), cudaMemcpyHostToDevice), "filling the shard", rank);
  check(cudaMemset(s->out, 0xBE, (n ? n : 1) * sizeof(int32_t)), "poisoning the output", rank);
  check(cudaMemset(s->where, 0xBE, 2 * sizeof(int64_t)), "poisoning where", rank);
  check(cudaMemset(s->ctx.scratch, 0xBE, s->ctx.scratch_bytes), "poisoning the scratch", rank);
  check(cudaDeviceSynchronize(), "before the call", rank);
  if (mgk_process_barrier(s->ctx.comm) != 0) fprintf(stderr, "lab08_ranks: rank %d: a peer never came\n", rank);
  switch (fn) {
    case 0: scanShardsPropagate(&s->ctx, s->in, s->out, n); break;
    case 1: scanShardsReduceThenScan(&s->ctx, s->in, s->out, n); break;
    default: compactShards(&s->ctx, s->in, s->out, n, PIVOT, s->where); break;
  }
  mgk_process_done(s->ctx.comm);
  const cudaError_t e = cudaStreamSynchronize(s->ctx.stream);
  char why[1024];
  const int failed = mgk_process_failed(s->ctx.comm, why, sizeof why);
  mgk_process_barrier(s->ctx.comm);
  char shards[200] = "";
  for (int r = 0, len = 0; r < size && len < (int)sizeof shards - 24; r++)
    len += snprintf(shards + len, sizeof shards - (size_t)len, "%s%zu", r ? ", " : "", sizes[r]);
  if (failed || e != cudaSuccess) {
    fprintf(stderr, "lab08_ranks: rank %d: %s(%d ranks, shards {%s}): %s\n", rank, NAME[fn], size, shards,
            failed ? why : cudaGetErrorString(e));
    return 1;
  }
  std::vector<int32_t> got(n ? n : 1);
  int64_t where[2] = {0, 0};
  check(cudaMemcpy(got.data(), s->out, n * sizeof(int32_t), cudaMemcpyDeviceToHost), "reading the output", rank);
  check(cudaMemcpy(where, s->where, sizeof where, cudaMemcpyDeviceToHost), "reading where", rank);
  size_t wrong = 0, first = 0;
  int32_t want_first = 0;
  if (fn < 2) {
    uint32_t run = 0;
    for (size_t i = 0; i < before; i++) run += (uint32_t)value(i);
    for (size_t i = 0; i < n; i++) {
      run += (uint32_t)host[i];
      if (got[i] != (int32_t)run && !wrong++) first = i, want_first = (int32_t)run;
    }
  } else {
    int64_t kept_before = 0, kept_all = 0;
    for (size_t i = 0; i < all; i++) {
      const int keep = value(i) > PIVOT;
      kept_all += keep;
      kept_before += keep && i < before;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
      if (host[i] > PIVOT) {
        if (got[k] != host[i] && !wrong++) first = k, want_first = host[i];
        k++;
      }
    if (where[0] != kept_before || where[1] != kept_all) {
      fprintf(stderr, "lab08_ranks: rank %d: %s(%d ranks, shards {%s}): where = {%lld, %lld}, expected {%lld, %lld}\n",
              rank, NAME[fn], size, shards, (long long)where[0], (long long)where[1], (long long)kept_before,
              (long long)kept_all);
      return 1;
    }
  }
  if (wrong) {
    fprintf(stderr, "lab08_ranks: rank %d: %s(%d ranks, shards {%s}): first mismatch at [%zu]: expected %d, got %d "
                    "(%zu mismatches)\n",
            rank, NAME[fn], size, shards, first, want_first, got[first], wrong);
    return 1;
  }
  return 0;
}

/** The largest of @p v over the ranks, through the rank's own communicator. */
static double max_over_ranks(rank_state *s, double v) {
  double *d = (double *)s->ctx.scratch;
  check(cudaMemcpy(d, &v, sizeof v, cudaMemcpyHostToDevice), "a figure to share", s->ctx.rank);
  if (ncclAllReduce(d, d + 1, 1, ncclFloat64, ncclMax, s->ctx.comm, s->ctx.stream) != ncclSuccess) return v;
  check(cudaStreamSynchronize(s->ctx.stream), "sharing a figure", s->ctx.rank);
  double out = v;
  check(cudaMemcpy(&out, d + 1, sizeof out, cudaMemcpyDeviceToHost), "reading a shared figure", s->ctx.rank);
  return out;
}

int main(int argc, char **argv) {
  const int rank = env_int("SCANLAB_RANK", "SLURM_PROCID", 0), size = env_int("SCANLAB_RANKS", "SLURM_NTASKS", 1);
  const int local = env_int("SCANLAB_LOCAL_RANK", "SLURM_LOCALID", rank);
  const int local_size = env_int("SCANLAB_LOCAL_RANKS", "SLURM_NTASKS_PER_NODE", size);
  const char *dir = getenv("SCANLAB_RANKS_DIR");
  std::vector<size_t> list = {0, 1, 33, 8192, 8193, 100003};
  size_t time_n = 0;
  int reps = 10;
  for (int a = 1; a < argc; a++) {
    if (strcmp(argv[a], "--sizes") == 0 && a + 1 < argc) {
      list.clear();
      for (char *p = argv[++a]; *p;) {
        list.push_back((size_t)strtoull(p, &p, 10));
        if (*p == ',') p++;
        else if (*p) break;
      }
    } else if (strcmp(argv[a], "--time") == 0 && a + 1 < argc) {
      time_n = (size_t)strtoull(argv[++a], NULL, 10);
    } else if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc) {
      reps = atoi(argv[++a]);
    } else {
      fprintf(stderr, "usage: lab08_ranks [--sizes a,b,...] [--time N] [--reps R] (one process a rank; see "
                      "run_ranks.sh)\n");
      return 2;
    }
  }
  if (!dir || !*dir || size < 1 || size > MG_RANKS_MAX || rank < 0 || rank >= size || list.empty() || reps < 1) {
    fprintf(stderr, "lab08_ranks: SCANLAB_RANKS_DIR must name a folder every rank sees, and rank %d of %d must lie "
                    "in 0 .. %d\n", rank, size, MG_RANKS_MAX - 1);
    return 2;
  }
  int devices = 1;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < 1) devices = 1;
#ifdef SCANLAB_EMU
  const int use_nccl = 0;
#else
  const int use_nccl = env_int("SCANLAB_NCCL", NULL, local_size <= devices ? 1 : 0);
#endif
  const int device = local % devices;
  check(cudaSetDevice(device), "cudaSetDevice", rank);
  char err[1200];
  rank_state s;
  memset(&s, 0, sizeof s);
  s.ctx.comm = mgk_process_comm(size, rank, device, dir, use_nccl, err, sizeof err);
  if (!s.ctx.comm) {
    fprintf(stderr, "lab08_ranks: rank %d: %s\n", rank, err);
    return 2;
  }
  size_t cap = time_n;
  for (size_t v : list) cap = v > cap ? v : cap;
  s.cap = cap;
  s.ctx.rank = rank;
  s.ctx.size = size;
  s.ctx.device = device;
  s.ctx.scratch_bytes = MG_SCRATCH_BYTES(cap);
  check(cudaStreamCreateWithFlags(&s.ctx.stream, cudaStreamNonBlocking), "a stream", rank);
  check(cudaMalloc(&s.ctx.scratch, s.ctx.scratch_bytes), "scratch", rank);
  check(cudaMalloc((void **)&s.in, (cap ? cap : 1) * sizeof(int32_t)), "the shard", rank);
  check(cudaMalloc((void **)&s.out, (cap ? cap : 1) * sizeof(int32_t)), "the output", rank);
  check(cudaMalloc((void **)&s.where, 2 * sizeof(int64_t)), "where", rank);

  int passed = 0, failed = 0;
  for (size_t t = 0; t < list.size(); t++) {
    std::vector<size_t> sizes(size);
    for (int r = 0; r < size; r++) sizes[r] = list[(r + t) % list.size()];
    for (int fn = 0; fn < 3; fn++) run_one(&s, fn, sizes, rank, size) ? failed++ : passed++;
  }
  const double worst = max_over_ranks(&s, (double)failed); /* every rank's own exit status says its own too */
  if (rank == 0)
    printf("lab08_ranks: %d ranks as processes (%s): %d calls a rank checked, %s\n", size,
           use_nccl ? "NCCL" : "the kit's NCCL stand-in", passed + failed,
           worst > 0 ? "a rank found a wrong answer (its messages above)" : "every rank's part right");

  if (time_n && !worst) {
    /* reduce-then-scan and a copy of the same bytes, each rank its own, timed by its stream */
    std::vector<int32_t> host(time_n);
    for (size_t i = 0; i < time_n; i++) host[i] = value((size_t)rank * time_n + i);
    check(cudaMemcpy(s.in, host.data(), time_n * sizeof(int32_t), cudaMemcpyHostToDevice), "filling", rank);
    cudaEvent_t a, b;
    check(cudaEventCreate(&a), "an event", rank);
    check(cudaEventCreate(&b), "an event", rank);
    float ms_scan = 0, ms_copy = 0;
    scanShardsReduceThenScan(&s.ctx, s.in, s.out, time_n); /* warm */
    check(cudaStreamSynchronize(s.ctx.stream), "warming", rank);
    mgk_process_barrier(s.ctx.comm);
    check(cudaEventRecord(a, s.ctx.stream), "timing", rank);
    for (int k = 0; k < reps; k++) scanShardsReduceThenScan(&s.ctx, s.in, s.out, time_n);
    check(cudaEventRecord(b, s.ctx.stream), "timing", rank);
    check(cudaEventSynchronize(b), "timing", rank);
    check(cudaEventElapsedTime(&ms_scan, a, b), "timing", rank);
    mgk_process_barrier(s.ctx.comm);
    check(cudaEventRecord(a, s.ctx.stream), "timing", rank);
    for (int k = 0; k < reps; k++)
      check(cudaMemcpyAsync(s.out, s.in, time_n * sizeof(int32_t), cudaMemcpyDeviceToDevice, s.ctx.stream), "copy",
            rank);
    check(cudaEventRecord(b, s.ctx.stream), "timing", rank);
    check(cudaEventSynchronize(b), "timing", rank);
    check(cudaEventElapsedTime(&ms_copy, a, b), "timing", rank);
    const double scan_s = max_over_ranks(&s, ms_scan / 1e3 / reps), copy_s = max_over_ranks(&s, ms_copy / 1e3 / reps);
    if (rank == 0)
      printf("lab08_ranks: reduce-then-scan of %zu elements a rank: %.3f ms, copy %.3f ms: %.3f of the %d GPUs' copy "
             "bandwidth (12 bytes an element: at most 0.667)%s\n",
             time_n, scan_s * 1e3, copy_s * 1e3, copy_s / scan_s, size,
             use_nccl ? "" : "; the ranks share GPUs through the stand-in: not a figure of several GPUs");
  }
  if (rank == 0) printf("lab08_ranks: %d ranks as processes: %d passed, %d failed\n", size, worst > 0 ? 0 : 1,
                        worst > 0 ? 1 : 0);
  return failed || worst > 0 ? 1 : 0;
}
