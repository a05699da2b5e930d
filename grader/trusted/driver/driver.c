/**
 * @file driver.c
 * @brief The driver's main loop: receives requests from the test on the control socket,
 *        maps the test's buffers, prepares and runs calls of the lab's call table, replies.
 *
 * The driver is started by the test, through the sandbox, with the control socket as
 * descriptor HXP_CONTROL_FD and its standard output and error going to the test. It keeps
 * no secret: everything it could tell the test is checked there.
 *
 * Two threads, and the fence between them is up before any of the student's code runs:
 *  - The **answering thread** alone speaks on the control socket: one reply to each request,
 *    carrying the request's sequence number. fence() starts it from a constructor of
 *    priority 1, which runs before any constructor of the student's (the object check refuses
 *    constructors of priority 0 and 1, `.preinit_array`, `.init` and indirect functions in
 *    student objects, which would run earlier), with every signal
 *    blocked, so no handler of the student's ever runs on it. It never touches stdio, whose
 *    locks a student's thread could hold.
 *  - The **main thread** is the call thread. fence() confines it (drv_confine(): a seccomp
 *    filter on that thread, inherited by every thread it starts) before returning, so the
 *    student's static initializers and constructors, and everything after, run confined: no
 *    system call on the control descriptor, no sockets, no new processes, no program loaded,
 *    no tracing, no copying of descriptors.
 * So a student's code cannot answer the test in the driver's place, from its first instruction.
 *
 * A call ends when the student's code can no longer touch its outputs: the answering thread
 * looks at the process's threads (/proc/self/task) after every run, before it waits for the
 * device and replies, and a thread the kit did not start (the driver's two, the backend's,
 * the ones the CUDA runtime started with the context) fails the run. Between runs the main
 * thread blocks every signal, and the emu's threads block the asynchronous ones, so a handler
 * of the student's runs only inside a call. What stays possible from inside the same address
 * space is said on the grader's page.
 */
#define _GNU_SOURCE
#include "driver.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "hx_proto.h"

#define MAX_BUFS 256
#define ERR_CAP 900

typedef struct {
  int used;
  uint32_t mem;             /* hxp_mem */
  uint64_t n, elem, bytes;  /* bytes: the whole region, guards included */
  uint32_t map;             /* device memory: its mapping */
  unsigned char *shared;    /* host memory: the test's memfd, mapped; NULL where adopted */
  void *dev;                /* the region as the student's code sees it */
  int adopted;              /* host memory made device memory (drv_dev_adopt): no copies */
} buffer;

/* Device memory the test exported, mapped here. A mapping outlives its buffer: the test hands
 * it to the next buffer of about its size without a new import, and says when to unmap it. */
typedef struct {
  int used;
  uint64_t bytes;
  void *va;
} mapping;

struct drv_call {
  char fn[HXP_NAME_MAX];
  drv_fn call;
  uint32_t nargs;
  hxp_arg args[HXP_MAX_ARGS];
};

static buffer bufs[MAX_BUFS];
static mapping maps[MAX_BUFS];
static drv_call slots[HXP_MAX_SLOTS];
static const int control = HXP_CONTROL_FD;
static uint32_t current_type, current_seq; /* the request being answered */

/* ---- replies (main thread only) ------------------------------------------------------------ */

static void send_reply(hxp_reply *r) {
  r->magic = HXP_MAGIC;
  r->type = current_type;
  r->seq = current_seq;
  while (send(control, r, sizeof *r, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
}

static void reply_status(uint32_t status, const char *text) {
  hxp_reply r;
  memset(&r, 0, sizeof r);
  r.status = status;
  if (text) snprintf(r.text, sizeof r.text, "%s", text);
  send_reply(&r);
}

/* ---- the call thread ------------------------------------------------------------------------ */

static struct {
  pthread_mutex_t m;
  pthread_cond_t cv;
  atomic_int state;  /* 0 idle, 1 work posted, 2 work done */
  atomic_int spin;   /* wait by polling (timing), not sleeping */
  atomic_int died;   /* drv_die() on the call thread: msg says why */
  atomic_int flushing; /* the main thread is flushing the last call's output */
  uint32_t first, count;
  int64_t ret;
  char msg[ERR_CAP];
} work = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0, 0, 0, ""};

static _Thread_local int on_call_thread = 0;
static int confined = 0;
static char confine_err[200];
static char init_err[ERR_CAP]; /* why the driver cannot start (fence(), main()): the first reply says it */
static sigset_t call_mask;     /* the signal mask the process started with: the calls run with it */

/* The kit's threads, by thread id: main, answering, and those the backend started before any
 * call (the CUDA runtime's). The backend's later ones come from drv_dev_own_threads(). */
#define MAX_THREADS 4096 /* the emu starts a worker a core, up to 1024, and the sandbox allows 64 tasks */
#define MAX_KIT_THREADS MAX_THREADS
static int kit_tids[MAX_KIT_THREADS]; /* written by the main thread only */
static int nkit;
static atomic_int answer_tid;           /* the answering thread's, published before fence() returns */

static void relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  sched_yield();
#endif
}

static void set_state(int s) {
  pthread_mutex_lock(&work.m);
  atomic_store(&work.state, s);
  pthread_cond_broadcast(&work.cv);
  pthread_mutex_unlock(&work.m);
}

/* Waits until work.state is @p s: polling while work.spin is set, else sleeping. */
static void wait_state(int s) {
  unsigned polls = 0;
  while (atomic_load(&work.state) != s) {
    if (!atomic_load(&work.spin)) {
      pthread_mutex_lock(&work.m);
      while (atomic_load(&work.state) != s && !atomic_load(&work.spin)) pthread_cond_wait(&work.cv, &work.m);
      pthread_mutex_unlock(&work.m);
      continue;
    }
    if (++polls % 1024 == 0) sched_yield(); /* a machine with few cores: let the others run */
    else relax();
  }
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void block_all(void) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, NULL);
}

/* The main thread's work once it is ready: the calls the answering thread posts. The student's
 * code runs with the signal mask the process started with; between calls every signal waits. */
static void call_loop(void) {
  for (;;) {
    wait_state(1);
    pthread_sigmask(SIG_SETMASK, &call_mask, NULL);
    for (uint32_t s = work.first; s < work.first + work.count; s++) {
      drv_call *c = &slots[s];
      work.ret = c->call(c);
    }
    block_all();
    atomic_store(&work.flushing, 1);
    set_state(2);
    fflush(stdout); /* after the answer: a lock a student's thread holds cannot hold it back */
    fflush(stderr);
    atomic_store(&work.flushing, 0);
  }
}

/* The thread ids of this process, from /proc/self/task: how many, at most @p cap in @p tids;
 * -1 when they cannot be read. */
static int task_ids(int *tids, int cap) {
  DIR *d = opendir("/proc/self/task");
  if (!d) return -1;
  int n = 0;
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
    if (n < cap) tids[n] = atoi(e->d_name);
    n++;
  }
  closedir(d);
  return n;
}

static int in_list(int tid, const int *list, int n) {
  for (int i = 0; i < n; i++)
    if (list[i] == tid) return 1;
  return 0;
}

/* Whether thread @p tid runs under a seccomp filter (its status's `Seccomp:` is not 0): every
 * thread the student's code starts does (the filter passes to the threads a thread starts), and
 * a thread the answering thread's CUDA calls start does not. Unknown: treated as filtered. */
static int filtered(int tid) {
  char path[64], text[4096];
  snprintf(path, sizeof path, "/proc/self/task/%d/status", tid);
  const int fd = open(path, O_RDONLY | O_CLOEXEC); /* not stdio: its locks are shared */
  if (fd < 0) return 1;
  ssize_t got = 0, r;
  while (got < (ssize_t)sizeof text - 1 && (r = read(fd, text + got, sizeof text - 1 - (size_t)got)) > 0) got += r;
  close(fd);
  text[got > 0 ? got : 0] = '\0';
  const char *at = strstr(text, "\nSeccomp:");
  return !at || atoi(at + 9) != 0;
}

/* A thread of this process that the kit did not start (the driver's, the backend's own), or 0;
 * -1 when there are more than MAX_THREADS. With the main thread confined, a thread without a
 * filter is the CUDA runtime's, started for the answering thread (it waits for the device,
 * maps buffers): the student's code can start none. */
static int foreign_thread(void) {
  static int tids[MAX_THREADS], own[MAX_THREADS]; /* the answering thread's, or main()'s before it runs */
  const int n = task_ids(tids, MAX_THREADS);
  if (n < 0) return 0; /* no /proc: the sandbox always mounts it */
  const int nown = drv_dev_own_threads(own, MAX_THREADS);
  for (int i = 0; i < n && i < MAX_THREADS; i++)
    if (!in_list(tids[i], kit_tids, nkit) && !in_list(tids[i], own, nown) && (!confined || filtered(tids[i])))
      return tids[i];
  return n > MAX_THREADS ? -1 : 0;
}

static void *answer_main(void *arg);

/* Every thread of the process now is the kit's (called where none of the student's code has
 * run since the last look). */
static void note_kit_threads(void) {
  static int all[MAX_KIT_THREADS];
  const int m = task_ids(all, MAX_KIT_THREADS);
  for (int i = 0; i < m && i < MAX_KIT_THREADS; i++)
    if (!in_list(all[i], kit_tids, nkit) && nkit < MAX_KIT_THREADS) kit_tids[nkit++] = all[i];
}

/* Runs before any constructor of the student's: starts the answering thread, then confines
 * this one, the main thread, which runs everything of the student's from here on. Priority 1,
 * of those the C library keeps for itself (0-100): before GCC's own 99 (the probes' __tsan_init,
 * in every emu build of a student's file); the object check refuses a student's 0 and 1
 * (grader/grading/codecheck.py, FENCE_PRIORITY). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wprio-ctor-dtor"
__attribute__((constructor(1))) static void fence(void) {
  pthread_sigmask(SIG_SETMASK, NULL, &call_mask);
  block_all();
  on_call_thread = 1;
  kit_tids[nkit++] = (int)getpid();
  pthread_t th;
  atomic_store(&work.state, -1);
  if (pthread_create(&th, NULL, answer_main, NULL) != 0) {
    dprintf(2, "driver: cannot start the answering thread\n");
    _exit(4);
  }
  while (!atomic_load(&answer_tid)) sched_yield();
  kit_tids[nkit++] = atomic_load(&answer_tid);
  /* The backend starts here, unconfined as a program's first CUDA call is: the CUDA runtime
   * makes its context (and the threads it keeps) with calls the call thread's filter refuses. */
  drv_dev_init(init_err, sizeof init_err);
  note_kit_threads();
  if (getenv("SCANLAB_UNCONFINED")) /* the kit's self-test, proving the control channel's other defences */
    snprintf(confine_err, sizeof confine_err, "SCANLAB_UNCONFINED is set");
  else
    confined = drv_confine(confine_err, sizeof confine_err) == 0;
}
#pragma GCC diagnostic pop

void drv_die(const char *fmt, ...) {
  char msg[ERR_CAP];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (on_call_thread) { /* the answering thread answers, then ends the driver */
    fprintf(stderr, "driver: %s\n", msg);
    fflush(stdout);
    fflush(stderr);
    if (atomic_load(&work.state) == -1) { /* in an initializer, before main(): the first reply says it */
      snprintf(init_err, sizeof init_err, "%s", msg);
      set_state(0);
      for (;;) pause();
    }
    snprintf(work.msg, sizeof work.msg, "%s", msg);
    atomic_store(&work.died, 1);
    set_state(2);
    for (;;) pause();
  }
  dprintf(2, "driver: %s\n", msg); /* the answering thread: no stdio */
  reply_status(HXS_FATAL, msg);
  _exit(4);
}

/* ---- arguments ---------------------------------------------------------------------------- */

static const hxp_arg *arg(drv_call *c, int k, uint32_t kind) {
  if (k < 0 || (uint32_t)k >= c->nargs || c->args[k].kind != kind)
    drv_die("%s: argument %d is not what the call table expects (the test and the table "
            "disagree)", c->fn, k);
  return &c->args[k];
}

void *drv_ptr(drv_call *c, int k) {
  const hxp_arg *a = arg(c, k, HXA_BUF);
  return (unsigned char *)bufs[a->buf].dev + HXP_GUARD_BYTES;
}
size_t drv_buf_bytes(drv_call *c, int k) {
  const hxp_arg *a = arg(c, k, HXA_BUF);
  return (size_t)(bufs[a->buf].n * bufs[a->buf].elem);
}
int64_t drv_i64(drv_call *c, int k) { return arg(c, k, HXA_I64)->i; }
size_t drv_size(drv_call *c, int k) { return (size_t)arg(c, k, HXA_I64)->i; }
double drv_f64(drv_call *c, int k) { return arg(c, k, HXA_F64)->d; }
const void *drv_bytes(drv_call *c, int k, size_t *len) {
  const hxp_arg *a = arg(c, k, HXA_BYTES);
  if (len) *len = a->nbytes;
  return a->bytes;
}

/* ---- buffers -------------------------------------------------------------------------------- */

static void map_free(uint32_t id) {
  if (id >= MAX_BUFS || !maps[id].used) return;
  for (uint32_t k = 0; k < MAX_BUFS; k++)
    if (bufs[k].used && bufs[k].mem == HXM_DEVICE && bufs[k].map == id) memset(&bufs[k], 0, sizeof bufs[k]);
  drv_dev_unmap(maps[id].va, maps[id].bytes);
  memset(&maps[id], 0, sizeof maps[id]);
}

static int bad_request(const hxp_request *q, int fd, char *err, const char *why) {
  snprintf(err, ERR_CAP, "bad buffer request (id %u%s%s)", q->id, why ? ": " : "", why ? why : "");
  if (fd >= 0) close(fd);
  return -1;
}

static int buf_new(const hxp_request *q, int fd, char *err) {
  if (q->id >= MAX_BUFS || bufs[q->id].used || q->elem == 0 || q->elem > 4096 ||
      q->n > ((uint64_t)1 << 40) / q->elem || (q->mem != HXM_HOST && q->mem != HXM_DEVICE))
    return bad_request(q, fd, err, NULL);
  const uint64_t bytes = q->n * q->elem + 2 * HXP_GUARD_BYTES;
  if (q->mem == HXM_DEVICE) {
    if (q->map >= MAX_BUFS || q->mapped < bytes)
      return bad_request(q, fd, err, "a mapping smaller than its region");
    mapping *m = &maps[q->map];
    if (fd >= 0) { /* a new mapping (any old one of that number is stale) */
      map_free(q->map);
      const int rc = drv_dev_import(fd, q->mapped, &m->va, err, ERR_CAP);
      close(fd);
      if (rc != 0) return -1;
      m->used = 1;
      m->bytes = q->mapped;
    } else if (!m->used || m->bytes != q->mapped) {
      return bad_request(q, fd, err, "no such mapping here");
    }
    buffer *b = &bufs[q->id];
    b->n = q->n;
    b->elem = q->elem;
    b->bytes = bytes;
    b->mem = HXM_DEVICE;
    b->map = q->map;
    b->dev = m->va;
    b->used = 1;
    return 0;
  }
  if (fd < 0) return bad_request(q, fd, err, "no memory attached");
  buffer *b = &bufs[q->id];
  b->n = q->n;
  b->elem = q->elem;
  b->bytes = bytes;
  b->mem = HXM_HOST;
  /* on the emu the test's file itself becomes the device memory: each call's copies in and out
   * (guards included, 128 KiB a buffer) and an allocation a buffer are gone */
  if (!drv_dev_is_host() && drv_dev_adopt((int)q->device, fd, b->bytes, &b->dev) == 0) {
    close(fd);
    b->adopted = 1;
    b->used = 1;
    return 0;
  }
  /* the test made and poisoned these pages: MAP_POPULATE maps them all in one call, where
   * each first touch would fault (hx_call.c's buffer says why that matters) */
  b->shared = (unsigned char *)mmap(NULL, b->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
  close(fd);
  if (b->shared == MAP_FAILED) {
    snprintf(err, ERR_CAP, "cannot map a shared buffer of %llu bytes: %s",
             (unsigned long long)b->bytes, strerror(errno));
    memset(b, 0, sizeof *b);
    return -1;
  }
  if (drv_dev_is_host()) {
    b->dev = b->shared;
  } else if (drv_dev_alloc_on((int)q->device, &b->dev, b->bytes, err, ERR_CAP) != 0) {
    munmap(b->shared, b->bytes);
    memset(b, 0, sizeof *b);
    return -1;
  }
  b->used = 1;
  return 0;
}

static void buf_free(uint32_t id) {
  if (id >= MAX_BUFS || !bufs[id].used) return;
  buffer *b = &bufs[id];
  if (b->mem == HXM_HOST) {
    if (b->adopted) {
      drv_dev_release(b->dev);
    } else {
      if (!drv_dev_is_host()) drv_dev_free(b->dev);
      munmap(b->shared, b->bytes);
    }
  } /* device memory: the mapping stays until HXP_UNMAP */
  memset(b, 0, sizeof *b);
}

/* ---- calls ---------------------------------------------------------------------------------- */

static drv_fn lookup(const char *name) {
  for (const drv_entry *e = drv_table; e->name; e++)
    if (strcmp(e->name, name) == 0) return e->fn;
  return NULL;
}

/* Copies a slot's inputs in (host memory); no student code runs. */
static int prep(const hxp_request *q, char *err) {
  if (q->slot >= HXP_MAX_SLOTS || q->nargs > HXP_MAX_ARGS) {
    snprintf(err, ERR_CAP, "bad slot or argument count");
    return -1;
  }
  drv_call *c = &slots[q->slot];
  memset(c, 0, sizeof *c);
  memcpy(c->fn, q->fn, sizeof c->fn);
  c->fn[sizeof c->fn - 1] = '\0';
  c->call = lookup(c->fn);
  if (!c->call) {
    snprintf(err, ERR_CAP, "the lab has no function '%s' in its call table", c->fn);
    return -1;
  }
  c->nargs = q->nargs;
  memcpy(c->args, q->args, sizeof c->args);
  int copied = 0, mapped = 0;
  for (uint32_t k = 0; k < c->nargs; k++) {
    hxp_arg *a = &c->args[k];
    if (a->kind == HXA_BYTES && a->nbytes > sizeof a->bytes) a->nbytes = sizeof a->bytes;
    if (a->kind != HXA_BUF) continue;
    if (a->buf >= MAX_BUFS || !bufs[a->buf].used) {
      snprintf(err, ERR_CAP, "%s: argument %u names no buffer", c->fn, k);
      c->call = NULL;
      return -1;
    }
    buffer *b = &bufs[a->buf];
    mapped |= b->mem == HXM_DEVICE;
    if (b->mem == HXM_HOST && (a->flags & HXF_UPLOAD) && !drv_dev_is_host() && !b->adopted) {
      if (drv_dev_upload(b->dev, b->shared, b->bytes, err, ERR_CAP) != 0) return -1;
      copied = 1;
    }
  }
  if (mapped) return drv_dev_settle(err, ERR_CAP); /* the test just filled them, in its own context */
  return copied ? (drv_dev_sync(err, ERR_CAP) == 0 ? 0 : -1) : 0;
}

/* Copies a slot's buffers in host memory back to the shared mappings. */
static int finish(uint32_t slot, char *err) {
  if (slot >= HXP_MAX_SLOTS) return -1;
  drv_call *c = &slots[slot];
  if (drv_dev_is_host()) return 0;
  for (uint32_t k = 0; k < c->nargs; k++) {
    const hxp_arg *a = &c->args[k];
    if (a->kind != HXA_BUF || !(a->flags & HXF_DOWNLOAD)) continue;
    if (a->buf >= MAX_BUFS || !bufs[a->buf].used || bufs[a->buf].mem != HXM_HOST || bufs[a->buf].adopted) continue;
    buffer *b = &bufs[a->buf];
    if (drv_dev_download(b->shared, b->dev, b->bytes, err, ERR_CAP) != 0) return -1;
  }
  return 0;
}

/* Ends the driver with the test's failure when a thread the kit did not start is running. */
static void stray_thread(void) {
  const int stray = foreign_thread();
  if (!stray) return;
  char why[ERR_CAP];
  if (stray < 0)
    snprintf(why, sizeof why, "the call left more than %d threads running: a thread the kit did not start",
             MAX_THREADS);
  else
    snprintf(why, sizeof why, "the call returned with a thread the kit did not start still running (thread %d): "
             "student code may not start threads, and a call ends when its work is done", stray);
  dprintf(2, "driver: %s\n", why);
  reply_status(HXS_FATAL, why);
  _exit(4);
}

/* Runs slots [first, first + count) on the call thread and waits for them and the device. */
static void run(const hxp_request *q) {
  hxp_reply r;
  memset(&r, 0, sizeof r);
  if (q->slot >= HXP_MAX_SLOTS || q->count > HXP_MAX_SLOTS - q->slot) {
    reply_status(HXS_ERROR, "bad slot range");
    return;
  }
  for (uint32_t s = q->slot; s < q->slot + q->count; s++)
    if (!slots[s].call) drv_die("slot %u was not prepared", s);
  uint64_t d0, h0, d1, h1, c0[HXP_COUNTERS] = {0}, c1[HXP_COUNTERS] = {0};
  /* the calls' outputs (buffers copied back, or the device memory the emu adopted in their
   * place): the emu watches that only the device writes them */
  const void *outs[HXP_MAX_SLOTS * HXP_MAX_ARGS];
  size_t out_bytes[HXP_MAX_SLOTS * HXP_MAX_ARGS];
  int nouts = 0;
  for (uint32_t s = q->slot; s < q->slot + q->count; s++)
    for (uint32_t k = 0; k < slots[s].nargs && k < HXP_MAX_ARGS; k++) {
      const hxp_arg *a = &slots[s].args[k];
      if (a->kind != HXA_BUF || !(a->flags & HXF_DOWNLOAD) || a->buf >= MAX_BUFS || !bufs[a->buf].used) continue;
      outs[nouts] = (unsigned char *)bufs[a->buf].dev + HXP_GUARD_BYTES; /* the elements, as the call sees them */
      out_bytes[nouts++] = (size_t)(bufs[a->buf].n * bufs[a->buf].elem);
    }
  drv_dev_watch(outs, out_bytes, nouts);
  drv_dev_depth((int)q->depth);
  drv_dev_copy_counters(&d0, &h0);
  const int counted = drv_dev_probe_counters(c0, HXP_COUNTERS);
  work.first = q->slot;
  work.count = q->count;
  set_state(1);
  wait_state(2);
  if (atomic_load(&work.died)) {
    reply_status(HXS_FATAL, work.msg);
    _exit(4);
  }
  stray_thread(); /* before the wait: a thread of the student's could keep the device busy */
  r.ret = work.ret;
  int rc = drv_dev_sync(r.text, sizeof r.text);
  stray_thread(); /* and after it: one started meanwhile (a host function the device ran) */
  r.host_wrote = (uint32_t)drv_dev_watch_changed();
  drv_dev_depth(0);
  drv_dev_copy_counters(&d1, &h1);
  r.d2h = d1 - d0;
  r.h2d = h1 - h0;
  if (counted > 0 && drv_dev_probe_counters(c1, HXP_COUNTERS) == counted) {
    r.counted = (uint32_t)counted;
    for (int k = 0; k < counted; k++) r.counters[k] = c1[k] - c0[k];
  }
  r.status = rc == 0 ? HXS_OK : rc == 2 ? HXS_FATAL : HXS_ERROR;
  set_state(0);
  send_reply(&r);
}

/* ---- the loop ------------------------------------------------------------------------------- */

static ssize_t receive(hxp_request *q, int *fd, int spin) {
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } ctl;
  struct iovec iov = {q, sizeof *q};
  struct msghdr m;
  memset(&m, 0, sizeof m);
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  m.msg_control = ctl.buf;
  m.msg_controllen = sizeof ctl.buf;
  *fd = -1;
  ssize_t got;
  for (;;) {
    got = recvmsg(control, &m, MSG_CMSG_CLOEXEC | (spin ? MSG_DONTWAIT : 0));
    if (got >= 0) break;
    if (errno == EINTR || (spin && (errno == EAGAIN || errno == EWOULDBLOCK))) continue;
    return -1;
  }
  for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))
    if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS) memcpy(fd, CMSG_DATA(h), sizeof(int));
  return got;
}

/* The answering thread: every request, one reply each. */
static void *answer_main(void *arg) {
  (void)arg;
  char err[ERR_CAP];
  int spin = 0;
  atomic_store(&answer_tid, (int)syscall(SYS_gettid)); /* fence() waits for it */
  wait_state(0);
  if (init_err[0]) { /* the answer to the first request, whatever it is */
    hxp_request q;
    int fd = -1;
    dprintf(2, "driver: %s\n", init_err);
    if (receive(&q, &fd, 0) == (ssize_t)sizeof q && q.magic == HXP_MAGIC) {
      current_type = q.type;
      current_seq = q.seq;
      reply_status(HXS_FATAL, init_err);
    }
    _exit(4);
  }
  if (!confined) dprintf(2, "driver: the call thread runs unconfined: %s\n", confine_err);
  for (;;) {
    hxp_request q;
    int fd = -1;
    ssize_t got = receive(&q, &fd, spin);
    if (got <= 0) _exit(0); /* the test went away */
    current_type = 0;
    current_seq = 0;
    if ((size_t)got != sizeof q || q.magic != HXP_MAGIC || q.version != HXP_VERSION) {
      if (fd >= 0) close(fd);
      drv_die("malformed request");
    }
    current_type = q.type;
    current_seq = q.seq;
    spin = (int)q.spin; /* a timing test: poll for the next request rather than sleep */
    atomic_store(&work.spin, spin);
    err[0] = '\0';
    switch (q.type) {
      case HXP_HELLO: {
        hxp_reply r;
        memset(&r, 0, sizeof r);
        snprintf(r.backend, sizeof r.backend, "%s", drv_backend());
        drv_dev_info(r.device, sizeof r.device, &r.l2_bytes, &r.free_bytes, &r.total_bytes);
        r.ret = confined;
        r.devices = (uint32_t)drv_dev_count();
        send_reply(&r);
        break;
      }
      case HXP_BUF_NEW:
        if (buf_new(&q, fd, err) != 0) reply_status(HXS_ERROR, err);
        else reply_status(HXS_OK, NULL);
        break;
      case HXP_BUF_FREE:
        buf_free(q.id);
        reply_status(HXS_OK, NULL);
        break;
      case HXP_UNMAP:
        map_free(q.map);
        reply_status(HXS_OK, NULL);
        break;
      case HXP_PREP: {
        int rc = prep(&q, err);
        reply_status(rc == 0 ? HXS_OK : HXS_ERROR, rc == 0 ? NULL : err);
        break;
      }
      case HXP_RUN:
        run(&q);
        break;
      case HXP_FINISH: {
        int rc = finish(q.slot, err);
        reply_status(rc == 0 ? HXS_OK : HXS_FATAL, rc == 0 ? NULL : err);
        break;
      }
      case HXP_EXIT: { /* once the main thread has flushed the last call's output (2 s at most: a
                          * lock the student's code kept would hold it for ever) */
        const double until = now_s() + 2.0;
        while (atomic_load(&work.flushing) && now_s() < until) sched_yield();
        _exit(0);
      }
      default:
        if (fd >= 0) close(fd);
        drv_die("unknown request %u", q.type);
    }
  }
}

/* The main thread, confined since fence(): the emu's workers start, then the calls run here. */
int main(void) {
  block_all(); /* again: a constructor of the student's may have changed it */
  fflush(stdout); /* what the student's constructors printed */
  /* Any thread but the kit's now was started by the student's initializers (the emu's own,
   * started by a launch in one of them, are the kit's). */
  const int stray = foreign_thread();
  if (stray)
    snprintf(init_err, sizeof init_err, "a thread the kit did not start (thread %d) was running as the driver "
             "loaded, started by the student's initializers: student code may not start threads", stray);
  if (!init_err[0]) {
    drv_dev_thread_start(); /* the emu's workers start here, confined like this thread */
    note_kit_threads();     /* and any the CUDA runtime started for the first launch */
  }
  set_state(0);
  if (init_err[0]) for (;;) pause(); /* the answering thread says why and ends the driver */
  call_loop();
}
