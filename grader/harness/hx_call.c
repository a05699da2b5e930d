/**
 * @file hx_call.c
 * @brief The trusted side of a call into the student's code: shared buffers, the driver
 *        process (started through the sandbox), requests and replies, the checks every call
 *        gets (guards, inputs unchanged, host copies), and timing by this process's clock.
 *
 * Nothing here trusts the driver: a reply can only make a test fail (an error, a crash, a
 * copy the rules forbid); passing takes outputs that this process reads from memory it owns
 * and compares with references it computes itself.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "harness_internal.h"
#include "hx_proto.h"

/* ---- configuration (main.c fills it from the command line) ------------------------------ */

#define MAX_OPTS 64
static struct {
  const char *driver, *clean_driver, *sandbox, *backend;
  const char *opts[MAX_OPTS];
  int nopts;
  double deadline; /* monotonic seconds: the test's time is up */
  unsigned long long host_copy_allowance;
  const char *wrap[MAX_OPTS]; /* a program the student's driver runs under (the self-test's sanitizer) */
  int nwrap;
} cfg = {NULL, NULL, NULL, "cpu", {NULL}, 0, 0, 0, {NULL}, 0};

void hx_internal_configure(const char *driver, const char *clean_driver, const char *sandbox,
                           const char *backend, double timeout_s) {
  cfg.driver = driver;
  cfg.clean_driver = clean_driver;
  cfg.sandbox = sandbox;
  if (backend) cfg.backend = backend;
  /* Leave the grader a second to hear the verdict before its own timeout strikes. */
  cfg.deadline = timeout_s > 0 ? hx_now() + (timeout_s > 3 ? timeout_s - 1.0 : timeout_s * 0.8) : 0;
}

void hx_internal_sandbox_option(const char *opt) {
  if (cfg.nopts < MAX_OPTS) cfg.opts[cfg.nopts++] = opt;
}

void hx_internal_wrap_driver(const char *arg) {
  if (cfg.nwrap < MAX_OPTS) cfg.wrap[cfg.nwrap++] = arg;
}

const char *hx_backend(void) { return cfg.backend; }
int hx_timing_available(void) { return strcmp(cfg.backend, "emu") != 0; }

/* ---- the driver processes ------------------------------------------------------------------ */

#define OUT_CAP (16 * 1024) /* bytes of a driver's output kept per test */
#define LINE_CAP 400        /* characters of one output line kept */
#define TAIL_LINES 24

typedef struct {
  const char *what;  /* "the student's code" or "the copy yardstick" */
  pid_t pid;
  int ctl, out;
  int dead, status;
  /* output, as it arrives: current line, totals, the last lines kept for messages */
  char line[LINE_CAP + 1];
  size_t line_len, line_full;
  size_t kept, dropped;
  char tail[TAIL_LINES][LINE_CAP + 1];
  int tail_next, tail_count;
  hxp_reply last;
} proc;

static proc student = {"the student's code", -1, -1, -1, 0, 0, "", 0, 0, 0, 0, {""}, 0, 0, {0}};
static proc clean = {"the copy yardstick", -1, -1, -1, 0, 0, "", 0, 0, 0, 0, {""}, 0, 0, {0}};

/* One line of the driver's output: control characters out, length capped, logged to our
 * standard output (the grader's log file) within the per-test budget. */
static void take_line(proc *p) {
  p->line[p->line_len] = '\0';
  const size_t len = p->line_len + p->line_full;
  if (p->kept + len + 1 <= OUT_CAP) {
    printf("%s%s\n", p->line, p->line_full ? " [line cut]" : "");
    p->kept += len + 1;
  } else {
    p->dropped += len + 1;
  }
  snprintf(p->tail[p->tail_next], sizeof p->tail[0], "%s", p->line);
  p->tail_next = (p->tail_next + 1) % TAIL_LINES;
  if (p->tail_count < TAIL_LINES) p->tail_count++;
  p->line_len = p->line_full = 0;
}

static void drain(proc *p, int block_ms) {
  if (p->out < 0) return;
  struct pollfd pf = {p->out, POLLIN, 0};
  while (poll(&pf, 1, block_ms) > 0) {
    char buf[4096];
    ssize_t got = read(p->out, buf, sizeof buf);
    if (got <= 0) {
      if (got < 0 && errno == EINTR) continue;
      if (p->line_len || p->line_full) take_line(p);
      close(p->out);
      p->out = -1;
      return;
    }
    for (ssize_t i = 0; i < got; i++) {
      unsigned char c = (unsigned char)buf[i];
      if (c == '\n') {
        take_line(p);
      } else if (c == '\t' || (c >= 0x20 && c != 0x7f)) {
        if (p->line_len < LINE_CAP) p->line[p->line_len++] = (char)c;
        else p->line_full++;
      }
    }
    block_ms = 0;
  }
}

static void collect(proc *p, int wait) {
  if (p->pid <= 0 || p->dead) return;
  int st = 0;
  pid_t r;
  do r = waitpid(p->pid, &st, wait ? 0 : WNOHANG);
  while (r < 0 && errno == EINTR);
  if (r == p->pid) {
    p->dead = 1;
    p->status = st;
  }
}

/* Ends a driver: asks it to exit, gives it @p grace_s seconds (a sanitizer prints its report
 * as the driver exits), then kills it. */
static void stop(proc *p, double grace_s) {
  if (p->pid <= 0) return;
  if (!p->dead && p->ctl >= 0 && grace_s > 0) {
    hxp_request q;
    memset(&q, 0, sizeof q);
    q.magic = HXP_MAGIC;
    q.version = HXP_VERSION;
    q.type = HXP_EXIT;
    send(p->ctl, &q, sizeof q, MSG_NOSIGNAL | MSG_DONTWAIT);
    const double until = hx_now() + grace_s;
    while (!p->dead && hx_now() < until) {
      drain(p, 20);
      collect(p, 0);
    }
  }
  if (!p->dead) kill(p->pid, SIGKILL);
  collect(p, 1);
  drain(p, 0);
  if (p->ctl >= 0) close(p->ctl);
  if (p->out >= 0) close(p->out);
  p->ctl = p->out = -1;
  p->pid = -1;
}

void hx_internal_stop_drivers(void) {
  const double grace = cfg.nwrap ? 120.0 : 1.0;
  stop(&student, grace);
  stop(&clean, grace);
  if (student.dropped) {
    printf("(output of the student's code: %zu more bytes not kept; its last lines were:)\n", student.dropped);
    for (int k = 0; k < student.tail_count; k++)
      printf("%s\n", student.tail[(student.tail_next - student.tail_count + k + TAIL_LINES) % TAIL_LINES]);
  }
  fflush(stdout);
}

/* How a driver ended, in words. */
static void describe_end(const proc *p, char *out, size_t cap) {
  if (!p->dead) {
    snprintf(out, cap, "stopped answering");
  } else if (WIFSIGNALED(p->status)) {
    const int sig = WTERMSIG(p->status);
    const char *why = sig == SIGSEGV ? " (segmentation fault: a bad pointer or an out-of-bounds access)"
                      : sig == SIGBUS ? " (bus error: a misaligned or unmapped access)"
                      : sig == SIGFPE ? " (arithmetic error: an integer division by zero?)"
                      : sig == SIGABRT ? " (abort: a failed assert or a corrupted heap)"
                      : sig == SIGILL ? " (illegal instruction)"
                      : sig == SIGKILL ? " (killed: out of memory, or a limit?)"
                      : sig == SIGXCPU ? " (the CPU-time limit)"
                      : sig == SIGXFSZ ? " (the file-size limit)" : "";
    const char *name = sigabbrev_np(sig);
    snprintf(out, cap, "crashed with signal %d%s%s%s", sig, name ? " (SIG" : "", name ? name : "",
             name ? ")" : "");
    if (*why) snprintf(out + strlen(out), cap - strlen(out), "%s", why);
  } else if (WIFEXITED(p->status) && WEXITSTATUS(p->status) == 125) {
    snprintf(out, cap, "could not be started in the sandbox");
  } else {
    snprintf(out, cap, "exited with code %d", WIFEXITED(p->status) ? WEXITSTATUS(p->status) : -1);
  }
}

/* Ends the running test after a failure the driver cannot recover from: the reason, then the
 * driver's last lines worth showing, each a failure line of its own (the emulator's and the
 * sandbox's diagnostics first, then the rest of its output). */
static void fatal(proc *p, const char *ctx, const char *why) {
  drain(p, 50);
  hx_fail_at(__FILE__, __LINE__, "%s: %s", ctx, why);
  int shown = 0;
  for (int pass = 0; pass < 2 && shown < 4; pass++) {
    for (int k = 0; k < p->tail_count && shown < 4; k++) {
      const char *l = p->tail[(p->tail_next - p->tail_count + k + TAIL_LINES) % TAIL_LINES];
      const int diag = strncmp(l, "emu: ", 5) == 0 || strncmp(l, "sandbox: ", 9) == 0 ||
                       strncmp(l, "driver: ", 8) == 0 || strstr(l, "CUDA error") != NULL;
      if (!*l || diag != (pass == 0) || strstr(why, l)) continue;
      hx_fail_at(__FILE__, __LINE__, "%s", l);
      shown++;
    }
  }
  hx_internal_abort_test();
}

static int spawn(proc *p, const char *binary) {
  if (!binary || !cfg.sandbox) {
    hx_fail_at(__FILE__, __LINE__, "harness: no driver to run %s (run the tests through the grader: "
                                   "make test LAB=NN)", p->what);
    hx_internal_abort_test();
  }
  int sv[2], out[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0 || pipe2(out, O_CLOEXEC) != 0) {
    hx_fail_at(__FILE__, __LINE__, "harness: cannot make the driver's channel: %s", strerror(errno));
    hx_internal_abort_test();
  }
  const char *argv[3 * MAX_OPTS + 8];
  int a = 0;
  argv[a++] = cfg.sandbox;
  for (int i = 0; i < cfg.nopts; i++) argv[a++] = cfg.opts[i];
  /* The sandbox starts the driver with an empty environment, plus the emulator's settings
   * (thread schedule, workers, watchdog) and the GPU's selection. */
  extern char **environ;
  for (char **e = environ; *e && a < 2 * MAX_OPTS; e++)
    if (strncmp(*e, "SCANLAB_EMU_", 12) == 0 || strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21) == 0) {
      argv[a++] = "--env";
      argv[a++] = *e;
    }
  argv[a++] = "--keep-fd";
  argv[a++] = "3";
  argv[a++] = "--";
  if (p == &student)
    for (int i = 0; i < cfg.nwrap; i++) argv[a++] = cfg.wrap[i];
  argv[a++] = binary;
  argv[a] = NULL;
  fflush(stdout);
  fflush(stderr);
  pid_t pid = fork();
  if (pid < 0) {
    hx_fail_at(__FILE__, __LINE__, "harness: fork: %s", strerror(errno));
    hx_internal_abort_test();
  }
  if (pid == 0) {
    setpgid(0, 0);
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) dup2(devnull, 0);
    dup2(out[1], 1);
    dup2(out[1], 2);
    if (sv[1] == HXP_CONTROL_FD) fcntl(sv[1], F_SETFD, 0);
    else dup2(sv[1], HXP_CONTROL_FD);
    execv(cfg.sandbox, (char *const *)argv);
    fprintf(stderr, "sandbox: cannot run %s: %s\n", cfg.sandbox, strerror(errno));
    _exit(125);
  }
  close(sv[1]);
  close(out[1]);
  p->pid = pid;
  p->ctl = sv[0];
  p->out = out[0];
  p->dead = 0;
  return 0;
}

/* ---- requests ------------------------------------------------------------------------------ */

static hxp_request request(uint32_t type) {
  hxp_request q;
  memset(&q, 0, sizeof q);
  q.magic = HXP_MAGIC;
  q.version = HXP_VERSION;
  q.type = type;
  return q;
}

static int send_request(proc *p, const hxp_request *q, int fd) {
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } ctl;
  struct iovec iov = {(void *)q, sizeof *q};
  struct msghdr m;
  memset(&m, 0, sizeof m);
  m.msg_iov = &iov;
  m.msg_iovlen = 1;
  if (fd >= 0) {
    memset(&ctl, 0, sizeof ctl);
    m.msg_control = ctl.buf;
    m.msg_controllen = sizeof ctl.buf;
    struct cmsghdr *h = CMSG_FIRSTHDR(&m);
    h->cmsg_level = SOL_SOCKET;
    h->cmsg_type = SCM_RIGHTS;
    h->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(h), &fd, sizeof fd);
  }
  ssize_t w;
  do w = sendmsg(p->ctl, &m, MSG_NOSIGNAL);
  while (w < 0 && errno == EINTR);
  return w == (ssize_t)sizeof *q ? 0 : -1;
}

/* Waits for the reply to @p type: 0 with the reply in p->last, or -1 when the driver died,
 * spoke out of turn, or the test's time ran out (the driver is then stopped). With @p spin,
 * polls without sleeping (for timing). */
static int await(proc *p, uint32_t type, int spin, const char *ctx) {
  for (;;) {
    double left = cfg.deadline > 0 ? cfg.deadline - hx_now() : 1e9;
    if (left <= 0) {
      char why[256];
      snprintf(why, sizeof why, "did not return within the test's %s: an endless loop, a hung kernel or "
               "a barrier that not every thread reaches", "time limit");
      kill(p->pid, SIGKILL);
      collect(p, 1);
      fatal(p, ctx, why);
    }
    struct pollfd pf[2] = {{p->ctl, POLLIN, 0}, {p->out, POLLIN, 0}};
    const int timeout_ms = spin ? 0 : (int)(left * 1000 > 200 ? 200 : left * 1000 + 1);
    int r = poll(pf, p->out >= 0 ? 2 : 1, timeout_ms);
    if (r < 0 && errno != EINTR) return -1;
    if (r > 0 && (pf[1].revents & (POLLIN | POLLHUP))) drain(p, 0);
    if (r > 0 && (pf[0].revents & POLLIN)) {
      hxp_reply rep;
      ssize_t got = recv(p->ctl, &rep, sizeof rep, MSG_DONTWAIT);
      if (got == (ssize_t)sizeof rep && rep.magic == HXP_MAGIC) {
        rep.text[sizeof rep.text - 1] = '\0';
        rep.backend[sizeof rep.backend - 1] = '\0';
        rep.device[sizeof rep.device - 1] = '\0';
        p->last = rep;
        if (rep.status == HXS_FATAL || rep.type == type) return 0;
        continue; /* a reply to something else: ignored */
      }
      if (got == 0 || (got < 0 && errno != EAGAIN && errno != EINTR)) {
        collect(p, 0);
        return -1;
      }
      if (got > 0) continue; /* malformed: ignored */
    }
    if (r > 0 && (pf[0].revents & (POLLHUP | POLLERR)) && !(pf[0].revents & POLLIN)) {
      collect(p, 0);
      return -1;
    }
    collect(p, 0);
    if (p->dead) return -1;
  }
}

/* Sends a request and waits for its reply; on a dead driver or a fatal reply, fails and ends
 * the test naming @p ctx. Returns the reply's status (HXS_OK or HXS_ERROR). */
static uint32_t exchange(proc *p, hxp_request *q, int fd, const char *ctx) {
  char why[HXP_TEXT_MAX + 128];
  if (send_request(p, q, fd) != 0 || await(p, q->type, (int)q->spin, ctx) != 0) {
    /* The channel closed: the driver is ending (the sandbox reports how once it has cleaned
     * up). Wait for that a few seconds, then stop it. */
    const double until = hx_now() + 5.0;
    while (!p->dead && hx_now() < until) {
      drain(p, 10);
      collect(p, 0);
    }
    if (!p->dead) {
      kill(p->pid, SIGKILL);
      collect(p, 1);
    }
    describe_end(p, why, sizeof why);
    fatal(p, ctx, why);
  }
  if (p->last.status == HXS_FATAL) {
    snprintf(why, sizeof why, "%s", p->last.text[0] ? p->last.text : "the driver gave up");
    fatal(p, ctx, why);
  }
  return p->last.status;
}

static proc *start(proc *p, const char *binary) {
  if (p->pid > 0) return p;
  spawn(p, binary);
  hxp_request q = request(HXP_HELLO);
  exchange(p, &q, -1, p == &student ? "starting the student's code" : "starting the copy yardstick");
  return p;
}

/* ---- buffers --------------------------------------------------------------------------------- */

struct hx_buf {
  uint32_t id;
  size_t n, elem, bytes;
  int fd;
  unsigned char *map;
  unsigned registered; /* 1: with the student's driver, 2: with the yardstick's */
  unsigned char *snapshot;
  uint64_t hash;
};

static uint32_t next_id = 0;

static void poison_words(unsigned char *p, size_t bytes) {
  const uint32_t w = HXP_POISON;
  for (size_t i = 0; i + 4 <= bytes; i += 4) memcpy(p + i, &w, 4);
}

hx_buf *hx_buf_new(size_t n, size_t elem) {
  if (elem == 0 || elem % 4 != 0 || elem > 4096) {
    hx_fail_at(__FILE__, __LINE__, "harness: buffers hold elements of 4 to 4096 bytes (a multiple of 4), "
                                   "not %zu", elem);
    return NULL;
  }
  hx_buf *b = (hx_buf *)calloc(1, sizeof *b);
  if (!b) return NULL;
  b->id = next_id++ % 256;
  b->n = n;
  b->elem = elem;
  b->bytes = n * elem + 2 * HXP_GUARD_BYTES;
  b->fd = memfd_create("scanlab-buffer", MFD_CLOEXEC);
  if (b->fd < 0 || ftruncate(b->fd, (off_t)b->bytes) != 0) {
    hx_fail_at(__FILE__, __LINE__, "out of memory for a shared buffer of %zu bytes: %s", b->bytes,
               strerror(errno));
    if (b->fd >= 0) close(b->fd);
    free(b);
    return NULL;
  }
  b->map = (unsigned char *)mmap(NULL, b->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, b->fd, 0);
  if (b->map == MAP_FAILED) {
    hx_fail_at(__FILE__, __LINE__, "out of memory mapping a shared buffer of %zu bytes", b->bytes);
    close(b->fd);
    free(b);
    return NULL;
  }
  poison_words(b->map, b->bytes);
  return b;
}

void *hx_buf_data(hx_buf *b) { return b ? b->map + HXP_GUARD_BYTES : NULL; }
size_t hx_buf_len(const hx_buf *b) { return b ? b->n : 0; }

static void unregister(hx_buf *b, proc *p, unsigned bit) {
  if (!(b->registered & bit) || p->pid <= 0 || p->dead) return;
  hxp_request q = request(HXP_BUF_FREE);
  q.id = b->id;
  exchange(p, &q, -1, "freeing a buffer");
}

void hx_buf_free(hx_buf *b) {
  if (!b) return;
  unregister(b, &student, 1);
  unregister(b, &clean, 2);
  munmap(b->map, b->bytes);
  close(b->fd);
  free(b->snapshot);
  free(b);
}

static void ensure_registered(hx_buf *b, proc *p, unsigned bit) {
  if (b->registered & bit) return;
  hxp_request q = request(HXP_BUF_NEW);
  q.id = b->id;
  q.n = b->n;
  q.elem = b->elem;
  if (exchange(p, &q, b->fd, "sharing a buffer") != HXS_OK) {
    hx_fail_at(__FILE__, __LINE__, "harness: the driver could not take a buffer of %zu bytes: %s",
               b->bytes, p->last.text);
    hx_internal_abort_test();
  }
  b->registered |= bit;
}

static uint64_t fnv(const unsigned char *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    memcpy(&w, p + i, 8);
    h = (h ^ w) * 1099511628211ull;
  }
  for (; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

/* ---- arguments ----------------------------------------------------------------------------- */

hx_arg hx_in(hx_buf *b) {
  hx_arg a;
  memset(&a, 0, sizeof a);
  a.kind = HX_ARG_IN;
  a.buf = b;
  return a;
}
hx_arg hx_out(hx_buf *b) {
  hx_arg a = hx_in(b);
  a.kind = HX_ARG_OUT;
  return a;
}
hx_arg hx_inout(hx_buf *b) {
  hx_arg a = hx_in(b);
  a.kind = HX_ARG_INOUT;
  return a;
}
hx_arg hx_in_generated(hx_buf *b, uint64_t seed, int64_t lo, int64_t hi) {
  hx_arg a = hx_in(b);
  a.kind = HX_ARG_GEN;
  a.seed = seed;
  a.lo = lo;
  a.hi = hi;
  return a;
}
hx_arg hx_i64(long long v) {
  hx_arg a;
  memset(&a, 0, sizeof a);
  a.kind = HX_ARG_I64;
  a.i = v;
  return a;
}
hx_arg hx_f64(double v) {
  hx_arg a;
  memset(&a, 0, sizeof a);
  a.kind = HX_ARG_F64;
  a.d = v;
  return a;
}
hx_arg hx_bytes(const void *p, size_t len) {
  hx_arg a;
  memset(&a, 0, sizeof a);
  a.kind = HX_ARG_BYTES;
  if (len > sizeof a.bytes) len = sizeof a.bytes;
  memcpy(a.bytes, p, len);
  a.nbytes = (unsigned)len;
  return a;
}

static void to_wire(const hx_arg *a, hxp_arg *w) {
  memset(w, 0, sizeof *w);
  switch (a->kind) {
    case HX_ARG_IN:
      w->kind = HXA_BUF;
      w->flags = HXF_UPLOAD | HXF_DOWNLOAD;
      break;
    case HX_ARG_INOUT:
      w->kind = HXA_BUF;
      w->flags = HXF_UPLOAD | HXF_DOWNLOAD;
      break;
    case HX_ARG_OUT:
      w->kind = HXA_BUF;
      w->flags = HXF_POISON | HXF_DOWNLOAD;
      break;
    case HX_ARG_GEN:
      w->kind = HXA_BUF;
      w->flags = HXF_GEN | (a->i ? 0u : HXF_DOWNLOAD); /* i = 1: not copied back (timing) */
      w->gen.seed = a->seed;
      w->gen.lo = a->lo;
      w->gen.hi = a->hi;
      break;
    case HX_ARG_I64:
      w->kind = HXA_I64;
      w->i = a->i;
      break;
    case HX_ARG_F64:
      w->kind = HXA_F64;
      w->d = a->d;
      break;
    case HX_ARG_BYTES:
      w->kind = HXA_BYTES;
      w->nbytes = a->nbytes;
      memcpy(w->bytes, a->bytes, sizeof w->bytes);
      break;
  }
  if (a->buf) w->buf = a->buf->id;
}

/* ---- checks after a call --------------------------------------------------------------------- */

static int check_guards(hx_buf *b, const char *ctx, const char *role) {
  const unsigned char *front = b->map, *back = b->map + HXP_GUARD_BYTES + b->n * b->elem;
  long long last_front = -1, first_back = -1;
  size_t changed_front = 0, changed_back = 0;
  for (size_t w = 0; w < HXP_GUARD_BYTES / 4; w++) {
    uint32_t x, y;
    memcpy(&x, front + 4 * w, 4);
    memcpy(&y, back + 4 * w, 4);
    if (x != HXP_POISON) {
      changed_front++;
      last_front = (long long)w;
    }
    if (y != HXP_POISON) {
      changed_back++;
      if (first_back < 0) first_back = (long long)w;
    }
  }
  const size_t words = b->elem / 4;
  if (changed_back)
    hx_fail_at(__FILE__, __LINE__, "%s: write past the end of the %s at index %zu (n=%zu; %zu guard word%s "
               "changed)", ctx, role, b->n + (size_t)first_back / words, b->n, changed_back,
               changed_back == 1 ? "" : "s");
  if (changed_front) {
    const long long idx = -(long long)((HXP_GUARD_BYTES / 4 - (size_t)last_front + words - 1) / words);
    hx_fail_at(__FILE__, __LINE__, "%s: write before the start of the %s at index %lld (n=%zu; %zu guard "
               "word%s changed)", ctx, role, idx, b->n, changed_front, changed_front == 1 ? "" : "s");
  }
  if (!changed_back && !changed_front) return 0;
  poison_words(b->map, HXP_GUARD_BYTES); /* clean guards for the buffer's next call */
  poison_words(b->map + HXP_GUARD_BYTES + b->n * b->elem, HXP_GUARD_BYTES);
  return 1;
}

#define SNAPSHOT_MAX ((size_t)64 << 20)

static void snapshot(hx_buf *b) {
  const size_t len = b->n * b->elem;
  free(b->snapshot);
  b->snapshot = NULL;
  if (len <= SNAPSHOT_MAX) {
    b->snapshot = (unsigned char *)malloc(len ? len : 1);
    if (b->snapshot) memcpy(b->snapshot, hx_buf_data(b), len);
  }
  if (!b->snapshot) b->hash = fnv(hx_buf_data(b), len);
}

static int check_unchanged(hx_buf *b, const char *ctx) {
  const size_t len = b->n * b->elem;
  const unsigned char *now = (const unsigned char *)hx_buf_data(b);
  if (b->snapshot) {
    if (memcmp(b->snapshot, now, len) == 0) return 0;
    size_t first = 0, count = 0;
    for (size_t i = 0; i < b->n; i++)
      if (memcmp(b->snapshot + i * b->elem, now + i * b->elem, b->elem) != 0 && count++ == 0) first = i;
    hx_fail_at(__FILE__, __LINE__, "%s: the input was modified (it is const): %zu element%s changed, the "
               "first at [%zu]", ctx, count, count == 1 ? "" : "s", first);
    memcpy((unsigned char *)now, b->snapshot, len); /* restored for the test's own use */
    return 1;
  }
  if (fnv(now, len) == b->hash) return 0;
  hx_fail_at(__FILE__, __LINE__, "%s: the input was modified (it is const)", ctx);
  return 1;
}

static int check_generated(hx_buf *b, const hx_arg *a, const char *ctx) {
  const int32_t *v = (const int32_t *)hx_buf_data(b);
  for (size_t i = 0; i < b->n; i++)
    if (v[i] != hxp_gen_value(a->seed, i, a->lo, a->hi)) {
      hx_fail_at(__FILE__, __LINE__, "%s: the input was modified (it is const): first changed element at "
                 "[%zu]", ctx, i);
      return 1;
    }
  return 0;
}

/* ---- calls ------------------------------------------------------------------------------------ */

static void prepare(proc *p, unsigned bit, uint32_t slot, const char *fn, int nargs, const hx_arg *args,
                    int spin, const char *ctx) {
  if (nargs > HXP_MAX_ARGS) {
    hx_fail_at(__FILE__, __LINE__, "harness: more than %d arguments", HXP_MAX_ARGS);
    hx_internal_abort_test();
  }
  hxp_request q = request(HXP_PREP);
  q.slot = slot;
  q.spin = (uint32_t)spin;
  q.nargs = (uint32_t)nargs;
  snprintf(q.fn, sizeof q.fn, "%s", fn);
  for (int k = 0; k < nargs; k++) {
    if (args[k].buf) {
      ensure_registered(args[k].buf, p, bit);
      if (args[k].kind == HX_ARG_IN) snapshot(args[k].buf);
      if (args[k].kind == HX_ARG_IN || args[k].kind == HX_ARG_INOUT) {
        poison_words(args[k].buf->map, HXP_GUARD_BYTES);
        poison_words(args[k].buf->map + HXP_GUARD_BYTES + args[k].buf->n * args[k].buf->elem,
                     HXP_GUARD_BYTES);
      }
    }
    to_wire(&args[k], &q.args[k]);
  }
  if (exchange(p, &q, -1, ctx) != HXS_OK) {
    hx_fail_at(__FILE__, __LINE__, "%s: %s", ctx, p->last.text);
    hx_internal_abort_test();
  }
}

static void finish(proc *p, uint32_t slot, int spin, const char *ctx) {
  hxp_request q = request(HXP_FINISH);
  q.slot = slot;
  q.spin = (uint32_t)spin;
  exchange(p, &q, -1, ctx);
}

static const char *roles[] = {"", "input", "output", "array (in place)", "input"};

static size_t after_call(int nargs, const hx_arg *args, const char *ctx) {
  size_t bad = 0;
  for (int k = 0; k < nargs; k++) {
    hx_buf *b = args[k].buf;
    if (!b) continue;
    bad += (size_t)check_guards(b, ctx, roles[args[k].kind]);
    if (args[k].kind == HX_ARG_IN) bad += (size_t)check_unchanged(b, ctx);
    if (args[k].kind == HX_ARG_GEN) bad += (size_t)check_generated(b, &args[k], ctx);
  }
  return bad;
}

static size_t check_copies(const hxp_reply *r, const char *fn, const char *ctx) {
  const unsigned long long moved = (unsigned long long)(r->d2h + r->h2d);
  if (moved <= cfg.host_copy_allowance) return 0;
  hx_fail_at(__FILE__, __LINE__, "%s: %s copied %llu bytes between the device and the host (%llu to "
             "the host, %llu to the device): the lab's work must be done on the device",
             ctx, fn, moved, (unsigned long long)r->d2h, (unsigned long long)r->h2d);
  return 1;
}

static hx_counters last_counters;
const hx_counters *hx_last_counters(void) { return last_counters.available ? &last_counters : NULL; }

double hx_bytes_moved(const hx_counters *c) {
  const unsigned long long *k = c->c;
  return 32.0 * (double)(k[HX_C_GLD_SECT] - k[HX_C_GLD_VOL_REREAD] + k[HX_C_GST_SECT] + k[HX_C_GATOM]);
}

double hx_model_note(const char *what, double units, const char *unit, double ideal) {
  const hx_counters *c = hx_last_counters();
  if (!c || units <= 0) return -1;
  const unsigned long long *k = c->c;
  const double moved = hx_bytes_moved(c) / units;
  double at_copy = moved > 0 ? ideal / moved : 1.0;
  if (at_copy > 1.0) at_copy = 1.0;
  char sectors[160], shared[160];
  /* A polling request touches a sector per lane, and its requests are not told apart from the
   * others: the loads' figure is left out where there was polling. */
  const double per_st = k[HX_C_GST_REQ] ? (double)k[HX_C_GST_SECT] / (double)k[HX_C_GST_REQ] : 0.0;
  if (k[HX_C_GLD_VOL_SECT])
    snprintf(sectors, sizeof sectors, "sectors per request: stores %.1f (loads with polling: not shown)", per_st);
  else
    snprintf(sectors, sizeof sectors, "sectors per request: loads %.1f, stores %.1f",
             k[HX_C_GLD_REQ] ? (double)k[HX_C_GLD_SECT] / (double)k[HX_C_GLD_REQ] : 0.0, per_st);
  const double sreq = (double)(k[HX_C_SLD_REQ] + k[HX_C_SST_REQ]);
  if (sreq > 0)
    snprintf(shared, sizeof shared, "shared memory: %.0f requests, %.2f bank conflicts per request", sreq,
             (double)(k[HX_C_SLD_CONF] + k[HX_C_SST_CONF]) / sreq);
  else
    snprintf(shared, sizeof shared, "no shared memory");
  hx_note("%s, emu model: %.2f bytes per %s (the timing test counts %.4g), so %.2f of copy if all moved at copy "
          "speed; %s; %s", what, moved, unit, ideal, at_copy, sectors, shared);
  return moved;
}

static size_t call_args(long long *ret, const char *fn, const char *ctx, int nargs, const hx_arg *args) {
  char where[600];
  snprintf(where, sizeof where, "%s", ctx && *ctx ? ctx : fn);
  proc *p = start(&student, cfg.driver);
  prepare(p, 1, 0, fn, nargs, args, 0, where);
  hxp_request q = request(HXP_RUN);
  q.slot = 0;
  q.count = 1;
  size_t bad = 0;
  if (exchange(p, &q, -1, where) != HXS_OK) {
    hx_fail_at(__FILE__, __LINE__, "%s: %s", where, p->last.text);
    bad++;
  }
  const hxp_reply run = p->last;
  if (ret) *ret = run.ret;
  memset(&last_counters, 0, sizeof last_counters);
  last_counters.available = run.counted >= HXP_COUNTERS;
  for (int k = 0; k < HXP_COUNTERS && last_counters.available; k++) last_counters.c[k] = run.counters[k];
  finish(p, 0, 0, where);
  bad += after_call(nargs, args, where);
  bad += check_copies(&run, fn, where);
  return bad;
}

hx_arg hx_end(void) {
  hx_arg a;
  memset(&a, 0, sizeof a);
  return a;
}

size_t hx_callv(long long *ret, const char *fn, const char *ctx, ...) {
  hx_arg args[HXP_MAX_ARGS + 1];
  int n = 0;
  va_list ap;
  va_start(ap, ctx);
  for (;;) {
    hx_arg a = va_arg(ap, hx_arg);
    if (a.kind == HX_ARG_END) break;
    if (n == HXP_MAX_ARGS) {
      va_end(ap);
      hx_fail_at(__FILE__, __LINE__, "harness: %s: more than %d arguments", fn, HXP_MAX_ARGS);
      hx_internal_abort_test();
    }
    args[n++] = a;
  }
  va_end(ap);
  return call_args(ret, fn, ctx, n, args);
}


/* ---- information from a process without student code ---------------------------------------- */

static hx_device_info info;
static int have_info = 0;

const hx_device_info *hx_device(void) {
  if (have_info) return &info;
  if (strcmp(cfg.backend, "cpu") == 0) {
    snprintf(info.backend, sizeof info.backend, "cpu");
    snprintf(info.device, sizeof info.device, "host CPU");
    have_info = 1;
    return &info;
  }
  proc *p = start(&clean, cfg.clean_driver);
  memcpy(info.backend, p->last.backend, sizeof info.backend); /* same sizes, terminated by await() */
  memcpy(info.device, p->last.device, sizeof info.device);
  info.l2_bytes = p->last.l2_bytes;
  info.free_bytes = p->last.free_bytes;
  info.total_bytes = p->last.total_bytes;
  have_info = 1;
  return &info;
}

/* ---- timing ---------------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Times batches of calls prepared in slots 0..k-1: seconds per call of each batch. */
static double run_batch(proc *p, int k, const char *ctx, hxp_reply *rep) {
  hxp_request q = request(HXP_RUN);
  q.slot = 0;
  q.count = (uint32_t)k;
  q.spin = 1;
  const double t0 = hx_now();
  const uint32_t st = exchange(p, &q, -1, ctx);
  const double t = hx_now() - t0;
  *rep = p->last;
  if (st != HXS_OK) {
    hx_fail_at(__FILE__, __LINE__, "%s: %s", ctx, p->last.text);
    return NAN;
  }
  return t / k;
}

double hx_time_calls(const hx_timed *t, int batches, int per_batch) {
  if (per_batch < 1) per_batch = 1;
  if (per_batch > HXP_MAX_SLOTS) per_batch = HXP_MAX_SLOTS;
  if (batches < 1) batches = 1;
  if (t->nextra > HXP_MAX_ARGS - 2) return NAN;
  proc *p = start(&student, cfg.driver);
  hx_buf *in[HXP_MAX_SLOTS] = {NULL}, *out[HXP_MAX_SLOTS] = {NULL};
  double *secs = (double *)calloc((size_t)batches, sizeof(double));
  double result = NAN;
  int ok = secs != NULL;
  for (int k = 0; ok && k < per_batch; k++) {
    in[k] = hx_buf_new(t->n, 4);
    /* outputs of 1- or 2-byte elements (flags, visibility) travel in 32-bit words */
    const size_t oe = t->out_elem ? t->out_elem : 4;
    out[k] = oe % 4 ? hx_buf_new((t->n * oe + 3) / 4 ? (t->n * oe + 3) / 4 : 1, 4) : hx_buf_new(t->n, oe);
    ok = in[k] && out[k];
  }
  for (int b = 0; ok && b < batches; b++) {
    uint64_t seeds[HXP_MAX_SLOTS];
    hx_arg args[HXP_MAX_SLOTS][HXP_MAX_ARGS];
    for (int k = 0; k < per_batch; k++) {
      /* A fresh input for every call: nothing to replay, nothing to cache. */
      seeds[k] = t->seed * 1000003ull + (uint64_t)b * 131ull + (uint64_t)k + 1ull;
      args[k][0] = hx_in_generated(in[k], seeds[k], t->lo, t->hi);
      args[k][0].i = 1; /* not copied back: the output's check recomputes the input anyway */
      args[k][1] = hx_out(out[k]);
      for (int e = 0; e < t->nextra; e++) args[k][2 + e] = t->extra[e];
      prepare(p, 1, (uint32_t)k, t->fn, 2 + t->nextra, args[k], 1, t->ctx);
    }
    hxp_reply rep;
    secs[b] = run_batch(p, per_batch, t->ctx, &rep);
    if (isnan(secs[b]) || check_copies(&rep, t->fn, t->ctx)) ok = 0;
    for (int k = 0; ok && k < per_batch; k++) {
      finish(p, (uint32_t)k, 1, t->ctx);
      /* the output's guards, and the extra inputs (flags, keys) unchanged by every call */
      if (after_call(1 + t->nextra, &args[k][1], t->ctx) || t->check(t, seeds[k], hx_buf_data(out[k]), t->ctx))
        ok = 0;
    }
  }
  if (ok) {
    qsort(secs, (size_t)batches, sizeof *secs, cmp_double);
    result = batches % 2 ? secs[batches / 2] : 0.5 * (secs[batches / 2 - 1] + secs[batches / 2]);
  }
  for (int k = 0; k < per_batch; k++) {
    hx_buf_free(in[k]);
    hx_buf_free(out[k]);
  }
  free(secs);
  return result;
}

double hx_time_copy(size_t bytes, int batches, int per_batch) {
  if (per_batch < 1) per_batch = 1;
  if (per_batch > HXP_MAX_SLOTS) per_batch = HXP_MAX_SLOTS;
  if (batches < 1) batches = 1;
  proc *p = strcmp(cfg.backend, "cpu") == 0 && !cfg.clean_driver ? NULL : start(&clean, cfg.clean_driver);
  if (!p) return NAN;
  hx_buf *src[HXP_MAX_SLOTS] = {NULL}, *dst[HXP_MAX_SLOTS] = {NULL};
  double *secs = (double *)calloc((size_t)batches, sizeof(double));
  double result = NAN;
  int ok = secs != NULL;
  const size_t words = bytes / 4;
  for (int k = 0; ok && k < per_batch; k++) {
    src[k] = hx_buf_new(words, 4);
    dst[k] = hx_buf_new(words, 4);
    ok = src[k] && dst[k];
  }
  for (int b = 0; ok && b < batches; b++) {
    for (int k = 0; k < per_batch; k++) {
      hx_arg args[2] = {hx_in_generated(src[k], (uint64_t)b * 977u + (uint64_t)k, -1000, 1000), hx_out(dst[k])};
      for (int a = 0; a < 2; a++) ensure_registered(args[a].buf, p, 2);
      hxp_request q = request(HXP_PREP);
      q.slot = (uint32_t)k;
      q.spin = 1;
      q.nargs = 2;
      snprintf(q.fn, sizeof q.fn, "copy");
      to_wire(&args[0], &q.args[0]);
      to_wire(&args[1], &q.args[1]);
      q.args[1].flags = HXF_POISON; /* nothing comes back: the yardstick is not checked */
      q.args[0].flags = HXF_GEN;
      if (exchange(p, &q, -1, "the copy yardstick") != HXS_OK) ok = 0;
    }
    hxp_reply rep;
    if (ok) secs[b] = run_batch(p, per_batch, "the copy yardstick", &rep);
    if (ok && isnan(secs[b])) ok = 0;
  }
  if (ok) {
    qsort(secs, (size_t)batches, sizeof *secs, cmp_double);
    result = batches % 2 ? secs[batches / 2] : 0.5 * (secs[batches / 2 - 1] + secs[batches / 2]);
  }
  for (int k = 0; k < per_batch; k++) {
    hx_buf_free(src[k]);
    hx_buf_free(dst[k]);
  }
  free(secs);
  return result;
}

void hx_internal_set_host_copy_allowance(unsigned long long bytes) { cfg.host_copy_allowance = bytes; }
