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
 *                        unset: NCCL if its library loads and the ranks run under Slurm or the
 *                        host has a GPU for each of its ranks, else the stand-in
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
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <vector>

#include <cuda_runtime.h>
#include <nccl.h>
#ifndef SCANLAB_EMU
#include <cub/cub.cuh>
#include <cuda/std/functional>
#endif

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
  if (mgk_process_barrier(s->ctx.comm) != 0) {
    fprintf(stderr, "lab08_ranks: rank %d: a peer did not come to the start of a call within 80 s\n", rank);
    return 1;
  }
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

/** The largest of @p v over the ranks, through the rank's own communicator, on its stream. */
static double max_over_ranks(rank_state *s, double v) {
  double *d = (double *)s->ctx.scratch;
  static double *host; /* pinned: the copies keep the stream's order */
  if (!host) check(cudaMallocHost((void **)&host, 2 * sizeof(double)), "pinned memory", s->ctx.rank);
  host[0] = v;
  check(cudaMemcpyAsync(d, host, sizeof v, cudaMemcpyHostToDevice, s->ctx.stream), "a figure to share", s->ctx.rank);
  if (ncclAllReduce(d, d + 1, 1, ncclFloat64, ncclMax, s->ctx.comm, s->ctx.stream) != ncclSuccess) return v;
  check(cudaMemcpyAsync(host + 1, d + 1, sizeof v, cudaMemcpyDeviceToHost, s->ctx.stream), "a shared figure",
        s->ctx.rank);
  check(cudaStreamSynchronize(s->ctx.stream), "sharing a figure", s->ctx.rank);
  return host[1];
}

/* ---- timing: the lab's two scans, CUB with NCCL, and a copy, each rank on its own stream ---- */

#ifndef SCANLAB_EMU
/** `*init` = the lower ranks' totals and this shard's first element: the CUB form's start. */
static __global__ void cubInitKernel(const int32_t *gathered, int rank, const int32_t *in, size_t n, int32_t *init) {
  int32_t c = n ? in[0] : 0;
  for (int p = 0; p < rank; p++) c += gathered[p];
  *init = c;
}
/** The CUB form's last element (its exclusive scan of in[1..n) ends one short). */
static __global__ void cubLastKernel(const int32_t *in, int32_t *out, size_t n, const int32_t *init) {
  out[n - 1] = n == 1 ? *init : out[n - 2] + in[n - 1];
}

/** Reduce-then-scan as a user would write it with CUB and NCCL: DeviceReduce::Sum, an
 *  all-gather of the totals, a carry on the device, then DeviceScan::ExclusiveScan of in[1..n)
 *  from a FutureValue (the carry plus in[0]): no host round trip, 12 bytes an element. */
struct cub_form {
  void *temp = nullptr;
  size_t temp_bytes = 0;
  int32_t *words = nullptr;
};
static void cubReduceThenScan(const ScanRank *r, const int32_t *in, int32_t *out, size_t n, cub_form *f) {
  int32_t *total = f->words, *init = f->words + 1, *gathered = f->words + MG_RANKS_MAX;
  size_t bytes = f->temp_bytes;
  cub::DeviceReduce::Sum(f->temp, bytes, in, total, (int64_t)n, r->stream);
  ncclAllGather(total, gathered, 1, ncclInt32, r->comm, r->stream);
  cubInitKernel<<<1, 1, 0, r->stream>>>(gathered, r->rank, in, n, init);
  if (n > 1) {
    bytes = f->temp_bytes;
    cub::DeviceScan::ExclusiveScan(f->temp, bytes, in + 1, out, cuda::std::plus<int32_t>(),
                                   cub::FutureValue<int32_t>(init), (int64_t)(n - 1), r->stream);
  }
  if (n) cubLastKernel<<<1, 1, 0, r->stream>>>(in, out, n, init);
}
static void cubReserve(cub_form *f, const int32_t *in, int32_t *out, size_t n, int rank) {
  size_t a = 0, b = 0;
  cub::DeviceReduce::Sum(nullptr, a, in, out, (int64_t)n);
  cub::DeviceScan::ExclusiveScan(nullptr, b, in, out, cuda::std::plus<int32_t>(), cub::FutureValue<int32_t>(out),
                                 (int64_t)n);
  f->temp_bytes = a > b ? a : b;
  check(cudaMalloc(&f->temp, f->temp_bytes ? f->temp_bytes : 1), "CUB's temporary memory", rank);
  check(cudaMalloc((void **)&f->words, 2 * MG_RANKS_MAX * sizeof(int32_t)), "CUB's words", rank);
}
/** Elements where @p a and @p b differ. */
static __global__ void differKernel(const int32_t *a, const int32_t *b, size_t n, unsigned long long *count) {
  unsigned long long c = 0;
  for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    c += a[i] != b[i];
  if (c) atomicAdd(count, c);
}
#endif

/** Seconds a call of @p what (0 propagate, 1 reduce-then-scan, 2 CUB, 3 copy) takes on the
 *  slowest rank, median of @p reps timed runs, every rank started together. */
static double time_form(rank_state *s, int what, size_t n, int reps, void *cub) {
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "an event", s->ctx.rank);
  check(cudaEventCreate(&b), "an event", s->ctx.rank);
  std::vector<double> t;
  for (int k = -1; k < reps; k++) { /* one untimed run first */
    mgk_process_barrier(s->ctx.comm);
    check(cudaEventRecord(a, s->ctx.stream), "timing", s->ctx.rank);
    switch (what) {
      case 0: scanShardsPropagate(&s->ctx, s->in, s->out, n); break;
      case 1: scanShardsReduceThenScan(&s->ctx, s->in, s->out, n); break;
#ifndef SCANLAB_EMU
      case 2: cubReduceThenScan(&s->ctx, s->in, s->out, n, (cub_form *)cub); break;
#endif
      default:
        check(cudaMemcpyAsync(s->out, s->in, n * sizeof(int32_t), cudaMemcpyDeviceToDevice, s->ctx.stream), "a copy",
              s->ctx.rank);
    }
    check(cudaEventRecord(b, s->ctx.stream), "timing", s->ctx.rank);
    check(cudaEventSynchronize(b), "timing", s->ctx.rank);
    float ms = 0;
    check(cudaEventElapsedTime(&ms, a, b), "timing", s->ctx.rank);
    if (k >= 0) t.push_back(max_over_ranks(s, ms / 1e3));
  }
  std::sort(t.begin(), t.end());
  (void)cub;
  return t[t.size() / 2];
}

static void timing(rank_state *s, size_t n, int reps, int use_nccl, int bench) {
  const int rank = s->ctx.rank, size = s->ctx.size;
  std::vector<int32_t> host(n);
  for (size_t i = 0; i < n; i++) host[i] = value((size_t)rank * n + i);
  check(cudaMemcpy(s->in, host.data(), n * sizeof(int32_t), cudaMemcpyHostToDevice), "filling", rank);
  const double copy_s = time_form(s, 3, n, reps, nullptr);
  const double prop_s = time_form(s, 0, n, reps, nullptr), rts_s = time_form(s, 1, n, reps, nullptr);
  double cub_s = 0, differ = 0;
#ifndef SCANLAB_EMU
  cub_form f;
  cubReserve(&f, s->in, s->out, n, rank);
  int32_t *lab = nullptr;
  unsigned long long *count = nullptr, got = 0;
  check(cudaMalloc((void **)&lab, n * sizeof(int32_t)), "a second output", rank);
  check(cudaMalloc((void **)&count, sizeof *count), "a count", rank);
  scanShardsReduceThenScan(&s->ctx, s->in, lab, n);
  cub_s = time_form(s, 2, n, reps, &f); /* its last run's output stays in s->out */
  check(cudaStreamSynchronize(s->ctx.stream), "timing", rank);
  check(cudaMemset(count, 0, sizeof *count), "a count", rank);
  differKernel<<<1024, 256>>>(lab, s->out, n, count);
  check(cudaMemcpy(&got, count, sizeof got, cudaMemcpyDeviceToHost), "a count", rank);
  differ = max_over_ranks(s, (double)got);
#endif
  if (rank) return;
  const char *shared = use_nccl ? "" : "; the ranks share GPUs through the stand-in: not a figure of several GPUs";
  printf("lab08_ranks: %zu elements a rank, %d rank%s, median of %d: copy %.3f ms; scan-then-propagate %.3f ms, "
         "%.3f of the GPUs' copy bandwidth (16 bytes an element: at most 0.50); reduce-then-scan %.3f ms, %.3f (12 "
         "bytes: at most 0.667)%s\n",
         n, size, size == 1 ? "" : "s", reps, copy_s * 1e3, prop_s * 1e3, copy_s / prop_s, rts_s * 1e3, copy_s / rts_s,
         shared);
  if (cub_s > 0)
    printf("lab08_ranks: CUB with NCCL (DeviceReduce::Sum, ncclAllGather, ExclusiveScan from a FutureValue) %.3f ms, "
           "%.3f of copy: the lab's reduce-then-scan is %.2fx it%s\n",
           cub_s * 1e3, copy_s / cub_s, cub_s / rts_s,
           differ > 0 ? "; ITS OUTPUT DIFFERS FROM THE LAB'S (a kit fault)" : ", the same output");
  if (!bench) return;
  int lg = 0;
  while (((size_t)1 << (lg + 1)) <= n) lg++;
  const struct {
    const char *name;
    double sec, bytes;
  } rows[3] = {{"lab 08 scan-then-propagate", prop_s, 16}, {"lab 08 reduce-then-scan", rts_s, 12},
               {"CUB + NCCL reduce-then-scan", cub_s, 12}};
  for (int k = 0; k < 3; k++) {
    if (rows[k].sec <= 0) continue;
    printf("RESULT {\"variant\": \"%s (%d GPU%s%s)\", \"lab\": \"08\", \"log2n\": %d, \"n\": %zu, \"ms\": %.4f, "
           "\"gbps\": %.1f, \"frac_copy\": %.4f, \"x_cub\": %.4f, \"bytes_per_elem\": %.0f, \"check\": \"%s\", "
           "\"ok\": %s, \"bad\": %.0f}\n",
           rows[k].name, size, size == 1 ? "" : "s", use_nccl ? "" : ", shared", lg, n, rows[k].sec * 1e3,
           rows[k].bytes * (double)n * size / rows[k].sec * 1e-9, copy_s / rows[k].sec,
           cub_s > 0 ? cub_s / rows[k].sec : 0.0, rows[k].bytes,
           k == 2 ? "equal to the lab's reduce-then-scan" : "the lab's checks, before the timing",
           k == 2 && differ > 0 ? "false" : "true", k == 2 ? differ : 0.0);
  }
  fflush(stdout);
}

int main(int argc, char **argv) {
  const int rank = env_int("SCANLAB_RANK", "SLURM_PROCID", 0), size = env_int("SCANLAB_RANKS", "SLURM_NTASKS", 1);
  const int local = env_int("SCANLAB_LOCAL_RANK", "SLURM_LOCALID", rank);
  const int local_size = env_int("SCANLAB_LOCAL_RANKS", "SLURM_NTASKS_PER_NODE", size);
  const char *dir = getenv("SCANLAB_RANKS_DIR");
  std::vector<size_t> list = {0, 1, 33, 8192, 8193, 100003};
  size_t time_n = 0;
  int reps = 10, bench = 0;
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
    } else if (strcmp(argv[a], "--bench") == 0) {
      bench = 1;
    } else if (strcmp(argv[a], "--reps") == 0 && a + 1 < argc) {
      reps = atoi(argv[++a]);
    } else {
      fprintf(stderr, "usage: lab08_ranks [--sizes a,b,...] [--time N [--reps R] [--bench]] (one process a rank; see "
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
  /* NCCL under Slurm (one task a GPU: each sees its own) and where the host has a GPU a rank, if
   * its library loads; the stand-in otherwise (one host only) */
  void *nccl_lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_LOCAL);
  const int under_srun = getenv("SLURM_PROCID") && !getenv("SCANLAB_RANK"); /* not run_ranks.sh inside a job */
  const int use_nccl = env_int("SCANLAB_NCCL", NULL, nccl_lib && (under_srun || local_size <= devices));
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

  if (time_n && !worst) timing(&s, time_n, reps, use_nccl, bench);
  if (rank == 0) printf("lab08_ranks: %d ranks as processes: %d passed, %d failed\n", size, worst > 0 ? 0 : 1,
                        worst > 0 ? 1 : 0);
  return failed || worst > 0 ? 1 : 0;
}
