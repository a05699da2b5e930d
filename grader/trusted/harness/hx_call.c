/**
 * @file hx_call.c
 * @brief The trusted side of a call into the student's code: the buffers this process owns,
 *        the driver process (started through the sandbox), requests and replies, the checks
 *        every call gets (guards, inputs unchanged, host copies), the output checks of
 *        hx_verify.h on the host or the device, and timing by this process's clock.
 *
 * Nothing here trusts the driver: a reply can only make a test fail (an error, a crash, a
 * copy the rules forbid, a message it was not asked for); passing takes outputs that this
 * process reads from memory it owns and compares with references it computes itself.
 *
 * On the `cuda` backend the buffers are device memory this process allocates in its own CUDA
 * context (hx_dev.h, loaded from libscanlab-trusted.so beside the clean driver) and exports to
 * the driver, which maps them: inputs are filled, outputs poisoned and everything checked on
 * the device by this process, and a host copy of a buffer exists only when a test reads it
 * (hx_buf_data()). Elsewhere the buffers are memfds both processes map.
 *
 * Why one file (past 800 lines): one call's protocol end to end, whose steps share the
 * connection to the driver and the buffers' table; hx_verify.c holds the checks that stand
 * alone.
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
#include <dirent.h>
#include <dlfcn.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "harness_internal.h"
#include "hx_dev.h"
#include "hx_proto.h"
#include "hx_verify.h"

/* ---- configuration (main.c fills it from the command line) ------------------------------ */

/* The sandbox's options for a driver: on cuda they name every library and device file of its
 * root view (about a hundred and fifty on an H100 machine), so the list is long; one that does
 * not fit is refused (main.c stops with a message) rather than cut, which would leave an option
 * without its value. */
#define MAX_OPTS 1024
#define MAX_WRAP 64
#define MAX_ENV 64
static struct {
  const char *driver, *clean_driver, *sandbox, *backend;
  const char *opts[MAX_OPTS];
  int nopts;
  double deadline; /* monotonic seconds: the test's time is up */
  unsigned long long host_copy_allowance;
  const char *wrap[MAX_WRAP]; /* a program the student's driver runs under (the self-test's sanitizer) */
  int nwrap;
} cfg = {NULL, NULL, NULL, "cpu", {NULL}, 0, 0, 0, {NULL}, 0};

void hx_internal_configure(const char *driver, const char *clean_driver, const char *sandbox,
                           const char *backend, double timeout_s) {
  cfg.driver = driver;
  cfg.clean_driver = clean_driver;
  cfg.sandbox = sandbox;
  if (backend) cfg.backend = backend;
  hx_emu_fill_notes = strcmp(cfg.backend, "emu") == 0;
  /* Leave the grader a second to hear the verdict before its own timeout strikes. */
  cfg.deadline = timeout_s > 0 ? hx_now() + (timeout_s > 3 ? timeout_s - 1.0 : timeout_s * 0.8) : 0;
}

int hx_internal_sandbox_option(const char *opt) {
  if (cfg.nopts == MAX_OPTS) return -1;
  cfg.opts[cfg.nopts++] = opt;
  return 0;
}

int hx_internal_wrap_driver(const char *arg) {
  if (cfg.nwrap == MAX_WRAP) return -1;
  cfg.wrap[cfg.nwrap++] = arg;
  return 0;
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
  int owed;          /* a request was given up on at the test's deadline: its reply may come late */
  unsigned gen;      /* how many times this driver was started: a mapping held by an earlier one is gone */
} proc;

static proc student = {"the student's code", -1, -1, -1, 0, 0, "", 0, 0, 0, 0, {""}, 0, 0, {0}, 0, 0};
static proc clean = {"the copy yardstick", -1, -1, -1, 0, 0, "", 0, 0, 0, 0, {""}, 0, 0, {0}, 0, 0};

/* One line of the driver's output: control characters out, length capped, logged to our
 * standard output (the grader's log file) within the per-test budget. */
static void take_line(proc *p) {
  p->line[p->line_len] = '\0';
  const size_t len = p->line_len + p->line_full;
  if (p->kept + len + 1 <= OUT_CAP) {
    /* the test's own lines in the log start with "test: "; a driver's line that does too is marked */
    printf("%s%s%s\n", strncmp(p->line, "test: ", 6) == 0 ? "(driver) " : "", p->line,
           p->line_full ? " [line cut]" : "");
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
  if (p->ctl >= 0 && !p->owed) { /* every reply was asked for and taken: anything left is one too many */
    unsigned char buf[sizeof(hxp_reply) + 64];
    const ssize_t got = recv(p->ctl, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC);
    if (got > 0)
      hx_fail_at(__FILE__, __LINE__, "%s: the driver's process sent a message nobody asked for (%zd bytes) after "
                 "its last reply: tampering with the control channel", p->what, got);
  }
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

static void pool_drain(void);

void hx_internal_stop_drivers(void) {
  const double grace = cfg.nwrap ? 120.0 : 1.0;
  stop(&student, grace);
  stop(&clean, grace);
  pool_drain(); /* the next test starts with the device's memory as this one found it */
  if (student.dropped) {
    printf("(output of the student's code: %zu more bytes not kept; its last lines were:)\n", student.dropped);
    for (int k = 0; k < student.tail_count; k++)
      printf("%s\n", student.tail[(student.tail_next - student.tail_count + k + TAIL_LINES) % TAIL_LINES]);
  }
  fflush(stdout);
}

void hx_internal_abort_test(void) {
  hx_internal_stop_drivers();
  hx_internal_send("end", "fail", NULL, NAN);
  if (!hx_internal_channel_open()) printf("(test ended early)\n");
  fflush(stdout);
  exit(3);
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
  } else if (WIFEXITED(p->status) && WEXITSTATUS(p->status) == 124) { /* the emu's hang detector or watchdog */
    snprintf(out, cap, "hangs: the emulator stopped it (what runs and what waits follows)");
  } else {
    snprintf(out, cap, "exited with code %d", WIFEXITED(p->status) ? WEXITSTATUS(p->status) : -1);
  }
}

/* Ends the running test after a failure the driver cannot recover from: the reason, then the
 * driver's last lines worth showing, each a failure line of its own: the emulator's and the
 * sandbox's diagnostics first, then the rest of its output, in the order printed. Of more than
 * four diagnostics, the first two and the last two: what ends a run (the emulator's report of
 * a fault, printed as the process dies) comes last, and lines like the emulator's that student
 * code printed earlier (the fourth trial printed four) cannot push it out. */
static void fatal(proc *p, const char *ctx, const char *why) {
  drain(p, 50);
  hx_fail_at(__FILE__, __LINE__, "%s: %s", ctx, why);
  enum { SHOW = 4 };
  int diag[TAIL_LINES], rest[TAIL_LINES], nd = 0, nr = 0; /* tail positions, oldest first */
  for (int k = 0; k < p->tail_count; k++) {
    const char *l = p->tail[(p->tail_next - p->tail_count + k + TAIL_LINES) % TAIL_LINES];
    if (!*l || strstr(why, l)) continue;
    if (strncmp(l, "emu: ", 5) == 0 || strncmp(l, "sandbox: ", 9) == 0 || strncmp(l, "driver: ", 8) == 0 ||
        strstr(l, "CUDA error") != NULL)
      diag[nd++] = k;
    else
      rest[nr++] = k;
  }
  int pick[SHOW], picked = 0;
  for (int i = 0; i < nd && picked < SHOW; i++, picked++)
    pick[picked] = nd <= SHOW || i < SHOW / 2 ? diag[i] : diag[nd - SHOW + picked];
  for (int i = 0; i < nr && picked < SHOW; i++) pick[picked++] = rest[i];
  for (int i = 0; i < picked; i++)
    hx_fail_at(__FILE__, __LINE__, "%s", p->tail[(p->tail_next - p->tail_count + pick[i] + TAIL_LINES) % TAIL_LINES]);
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
  const char *argv[MAX_OPTS + 2 * MAX_ENV + MAX_WRAP + 8];
  int a = 0;
  argv[a++] = cfg.sandbox;
  for (int i = 0; i < cfg.nopts; i++) argv[a++] = cfg.opts[i];
  /* The sandbox starts the driver with an empty environment, plus the emulator's settings
   * (thread schedule, workers, watchdog), the GPU's selection, and SCANLAB_UNCONFINED (the
   * kit's self-test: the call thread left unconfined, to prove the control channel's other
   * defences; only the grader's own environment can set it). */
  extern char **environ;
  int nenv = 0;
  for (char **e = environ; *e; e++)
    if (strncmp(*e, "SCANLAB_EMU_", 12) == 0 || strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21) == 0 ||
        strncmp(*e, "SCANLAB_UNCONFINED=", 19) == 0) {
      if (nenv++ == MAX_ENV) {
        hx_fail_at(__FILE__, __LINE__, "harness: more than %d SCANLAB_EMU_ settings in the environment",
                   MAX_ENV);
        hx_internal_abort_test();
      }
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
  p->owed = 0;
  p->gen++;
  return 0;
}

/* ---- requests ------------------------------------------------------------------------------ */

static uint32_t next_seq = 1;

static hxp_request request(uint32_t type) {
  hxp_request q;
  memset(&q, 0, sizeof q);
  q.magic = HXP_MAGIC;
  q.version = HXP_VERSION;
  q.type = type;
  q.seq = next_seq++;
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

static const char *type_name(uint32_t t) {
  static const char *names[] = {"?", "hello", "new buffer", "free buffer", "prepare", "run", "finish", "exit", "unmap"};
  return t < sizeof names / sizeof names[0] ? names[t] : "unknown";
}

/* A message the test did not ask for: the control channel was tampered with. Fails the test,
 * stops the driver and ends the test. */
static void tampering(proc *p, const char *ctx, const char *what) {
  char why[400];
  snprintf(why, sizeof why, "the driver's process sent %s: only the driver answers, once per request, so "
           "this is tampering with the control channel (the test does not count it)", what);
  kill(p->pid, SIGKILL);
  collect(p, 1);
  fatal(p, ctx, why);
}

/* Takes one message off the control socket. 1: a well-formed reply in @p rep; 0: none
 * waiting; -1: the socket closed; the test ends on a malformed message. */
static int take_reply(proc *p, hxp_reply *rep, const char *ctx) {
  unsigned char buf[sizeof *rep + 64];
  ssize_t got = recv(p->ctl, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC);
  if (got < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
  if (got == 0) return -1;
  uint32_t magic = 0;
  if (got >= 4) memcpy(&magic, buf, 4);
  if (got != (ssize_t)sizeof *rep || magic != HXP_MAGIC) {
    char what[120];
    snprintf(what, sizeof what, "a malformed message (%zd bytes)", got);
    tampering(p, ctx, what);
  }
  memcpy(rep, buf, sizeof *rep);
  rep->text[sizeof rep->text - 1] = '\0';
  rep->backend[sizeof rep->backend - 1] = '\0';
  rep->device[sizeof rep->device - 1] = '\0';
  return 1;
}

/* Waits for the reply to @p q: 0 with the reply in p->last, or -1 when the driver died or the
 * channel closed. Anything but the reply to @p q (a reply to an earlier request, a second
 * reply, one of another kind) is tampering. With q->spin, polls without sleeping (timing). On
 * the test's deadline the driver is stopped and the test ends. */
static int await(proc *p, const hxp_request *q, const char *ctx) {
  for (;;) {
    double left = cfg.deadline > 0 ? cfg.deadline - hx_now() : 1e9;
    if (left <= 0) {
      char why[320];
      if (strcmp(cfg.backend, "cpu") == 0) /* a lab of host code: no kernel, no barrier */
        snprintf(why, sizeof why, "did not return within the test's time limit: too slow, work that grows faster "
                 "than the input (a loop over the elements inside another: n = 2^20 takes 2^40 steps), or an "
                 "endless loop");
      else
        snprintf(why, sizeof why, "did not return within the test's time limit: too slow, work that grows faster "
                 "than the input (a loop over the elements inside another), an endless loop, a hung kernel or a "
                 "barrier that not every thread reaches");
      p->owed = 1; /* the reply to q, if it comes now, is late, not one too many */
      kill(p->pid, SIGKILL);
      collect(p, 1);
      fatal(p, ctx, why);
    }
    struct pollfd pf[2] = {{p->ctl, POLLIN, 0}, {p->out, POLLIN, 0}};
    const int timeout_ms = q->spin ? 0 : (int)(left * 1000 > 200 ? 200 : left * 1000 + 1);
    int r = poll(pf, p->out >= 0 ? 2 : 1, timeout_ms);
    if (r < 0 && errno != EINTR) return -1;
    if (r > 0 && (pf[1].revents & (POLLIN | POLLHUP))) drain(p, 0);
    if (r > 0 && (pf[0].revents & POLLIN)) {
      hxp_reply rep;
      const int got = take_reply(p, &rep, ctx);
      if (got < 0) {
        collect(p, 0);
        return -1;
      }
      if (got > 0) {
        if (rep.seq != q->seq || rep.type != q->type) {
          char what[200];
          snprintf(what, sizeof what, "a reply to request %u (%s) while the test waited for request %u (%s)",
                   rep.seq, type_name(rep.type), q->seq, type_name(q->type));
          tampering(p, ctx, what);
        }
        p->last = rep;
        return 0;
      }
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
static void guard_run(proc *p);

static uint32_t exchange(proc *p, hxp_request *q, int fd, const char *ctx) {
  char why[HXP_TEXT_MAX + 128];
  if (q->type == HXP_RUN) guard_run(p); /* before any code of the driver's process runs */
  if (send_request(p, q, fd) != 0 || await(p, q, ctx) != 0) {
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

/* After a run: one more request and its reply, so that a second answer to the run, sent by
 * anything but the driver's loop, shows up as tampering before the run's outputs count. */
static void ping(proc *p, int spin, const char *ctx) {
  hxp_request q = request(HXP_HELLO);
  q.spin = (uint32_t)spin;
  exchange(p, &q, -1, ctx);
}

static proc *start(proc *p, const char *binary) {
  if (p->pid > 0) return p;
  spawn(p, binary);
  hxp_request q = request(HXP_HELLO);
  exchange(p, &q, -1, p == &student ? "starting the student's code" : "starting the copy yardstick");
  return p;
}

/* ---- the device side (cuda) ---------------------------------------------------------------------- */

/* hx_dev.h's functions, from libscanlab-trusted.so. */
static struct {
  int state; /* 0 not tried, 1 loaded, -1 failed */
  const char *(*error)(void);
  int (*init)(char *, size_t);
  int (*alloc_shared)(size_t, void **, size_t *, int *);
  void (*free_shared)(void *, size_t);
  int (*alloc)(void **, size_t);
  void (*free)(void *);
  int (*upload)(void *, const void *, size_t);
  int (*download)(void *, const void *, size_t);
  int (*copy)(void *, const void *, size_t);
  int (*fill)(void *, size_t, uint32_t);
  int (*generate)(int32_t *, size_t, uint64_t, int64_t, int64_t);
  int (*sync)(void);
  int (*words_not)(const void *, size_t, uint32_t, size_t *, size_t *, size_t *);
  int (*compare)(const void *, const void *, size_t, size_t, size_t *, size_t *);
  int (*check_generated)(const int32_t *, size_t, uint64_t, int64_t, int64_t, size_t *, size_t *);
  int (*scan)(const hxv_input *, const int32_t *, size_t, int, const hxv_segments *, hxv_result *);
  int (*select)(const hxv_input *, const int32_t *, size_t, int32_t, int, hxv_result *);
  int (*sight)(const hxv_input *, const uint8_t *, size_t, hxv_result *);
  int (*sort)(const hxv_input *, const uint32_t *, size_t, hxv_result *);
  int (*spmv)(const int32_t *, const int32_t *, const float *, const hxv_input *, const float *, int32_t, double,
              double, hxv_result *);
} D;

static int on_device(void) { return strcmp(cfg.backend, "cuda") == 0; }

/* Ends the test after a failure of the test's own device work (a kit problem, or a device the
 * student's code left broken). */
static void device_failed(const char *what) {
  hx_fail_at(__FILE__, __LINE__, "harness: %s: %s", what, D.state == 1 ? D.error() : "no device side");
  hx_internal_abort_test();
}

static void device_load(void) {
  if (D.state) {
    if (D.state < 0) device_failed("the test's device side is not available");
    return;
  }
  D.state = -1;
  char path[4096];
  const char *slash = cfg.clean_driver ? strrchr(cfg.clean_driver, '/') : NULL;
  if (!slash) {
    hx_fail_at(__FILE__, __LINE__, "harness: no clean driver, so no libscanlab-trusted.so beside it (run the tests "
                                   "through the grader: make test LAB=NN)");
    hx_internal_abort_test();
  }
  snprintf(path, sizeof path, "%.*s/libscanlab-trusted.so", (int)(slash - cfg.clean_driver), cfg.clean_driver);
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    hx_fail_at(__FILE__, __LINE__, "harness: cannot load the test's device side %s: %s", path, dlerror());
    hx_internal_abort_test();
  }
#define LOAD(f)                                                                                 \
  do {                                                                                          \
    *(void **)&D.f = dlsym(h, "hxd_" #f);                                                       \
    if (!D.f) {                                                                                 \
      hx_fail_at(__FILE__, __LINE__, "harness: %s has no hxd_%s (rebuild the kit)", path, #f); \
      hx_internal_abort_test();                                                                 \
    }                                                                                           \
  } while (0)
  LOAD(error);
  LOAD(init);
  LOAD(alloc_shared);
  LOAD(free_shared);
  LOAD(alloc);
  LOAD(free);
  LOAD(upload);
  LOAD(download);
  LOAD(copy);
  LOAD(fill);
  LOAD(generate);
  LOAD(sync);
  LOAD(words_not);
  LOAD(compare);
  LOAD(check_generated);
  LOAD(scan);
  LOAD(select);
  LOAD(sight);
  LOAD(sort);
  LOAD(spmv);
#undef LOAD
  char name[128];
  D.state = 1;
  if (D.init(name, sizeof name) != 0) {
    D.state = -1;
    hx_fail_at(__FILE__, __LINE__, "harness: the test's device side could not start: %s", D.error());
    hx_internal_abort_test();
  }
}

/* ---- buffers --------------------------------------------------------------------------------- */

struct hx_buf {
  uint32_t id;
  size_t n, elem, bytes;
  int fd;              /* the memfd, or the exported device memory's descriptor */
  int dev;             /* 1: device memory (cuda) */
  int device;          /* the device it belongs to (hx_buf_new_on()) */
  unsigned char *map;  /* host memory: the region, mapped */
  unsigned char *dptr; /* device memory: the region, in this process's context */
  size_t mapped;       /* device memory: the mapping's size */
  unsigned char *mirror; /* device memory: a host copy of the elements, made when a test reads them */
  int mirror_fresh;    /* the mirror holds what the device holds */
  int mirror_lent;     /* hx_buf_data() handed it out since the last upload: the test may have written */
  void *dsnap;         /* device memory: a copy of an input's elements, for the unchanged check */
  int slot;            /* device memory: its entry in pool[] */
  unsigned registered; /* 1: with the student's driver, 2: with the yardstick's */
  unsigned reg_gen[2]; /* the generation of each driver it was registered with: a driver started
                          again (the student's, ended for the yardstick) knows none of the old's */
  unsigned char *snapshot;
  uint64_t hash;
};

static uint32_t next_id = 0;

static void poison_words(unsigned char *p, size_t bytes) {
  const uint32_t w = HXP_POISON;
  for (size_t i = 0; i + 4 <= bytes; i += 4) memcpy(p + i, &w, 4);
}

static unsigned char *data_dev(hx_buf *b) { return b->dptr + HXP_GUARD_BYTES; }

/* Poisons device words [from, from + bytes) of the region. */
static void dev_poison(hx_buf *b, size_t from, size_t bytes) {
  if (bytes && D.fill(b->dptr + from, bytes / 4, HXP_POISON) != 0) device_failed("poisoning a buffer");
}

/* Device memory, kept for the next buffer of about its size. Making a buffer costs an
 * allocation, a mapping and an export here and an import and a mapping in each driver; a test
 * that makes 1000 small buffers spent most of its time there. An entry's memory stays mapped in
 * the drivers that had it, so that a buffer taken from the pool needs no new import.
 *
 * What keeps this safe does not rest on the student's driver doing as it is told: code in its
 * process could keep a mapping whatever an unmap request says. So memory that process ever
 * mapped stays marked (`tainted`) until the process ends, and before any run in it
 * (guard_run()), a live buffer on such memory that it was not given moves to fresh memory. It
 * can then write only into buffers it was given and into free entries, which the next buffer
 * poisons before use. The yardstick's driver runs only the kit's code. */
#define POOL_SLOTS 256                       /* one per buffer id: the drivers' tables' size */
#define POOL_KEEP_ONE ((size_t)64 << 20)     /* larger buffers go back at once */
#define POOL_KEEP_ALL ((size_t)1 << 30)      /* free memory kept (and its snapshots), at most */
#define POOL_KEEP_COUNT 32                   /* free entries kept, at most */

typedef struct {
  unsigned char *dptr; /* NULL: the entry is empty */
  size_t mapped;
  int fd;              /* the exported handle, for drivers that do not hold the mapping */
  void *dsnap;         /* a copy of an input's elements (check_unchanged()), of `mapped` bytes */
  hx_buf *owner;       /* the live buffer on it; NULL: free */
  unsigned held[2];    /* the generation of the student's [0] and the yardstick's [1] driver that
                          has it mapped (as far as the protocol goes); 0: neither */
  unsigned tainted;    /* the generation of the student's driver that ever mapped it; 0: none */
  unsigned long stamp; /* when it was last freed */
} pool_entry;

static pool_entry pool[POOL_SLOTS];
static unsigned long pool_clock;

static proc *proc_of(int k) { return k ? &clean : &student; }
static int alive_gen(const proc *p, unsigned gen) { return gen && gen == p->gen && p->pid > 0 && !p->dead; }
/* Whether @p b is registered with driver @p k (0 the student's, 1 the yardstick's) as it runs now. */
static int reg_with(const hx_buf *b, int k) {
  return (b->registered & (k ? 2u : 1u)) && alive_gen(proc_of(k), b->reg_gen[k]);
}
static int holds(const pool_entry *e, int k) { return alive_gen(proc_of(k), e->held[k]); }

/* Tells driver @p k to unmap entry @p slot (for the student's, a request: the taint stays). */
static void unmap_in(int slot, int k) {
  pool_entry *e = &pool[slot];
  const int held = holds(e, k);
  e->held[k] = 0;
  if (!held) return;
  hxp_request q = request(HXP_UNMAP);
  q.map = (uint32_t)slot;
  exchange(proc_of(k), &q, -1, "unmapping a buffer");
}

/* Gives an entry's memory back: unmapped in the drivers, then here (what a driver kept mapped
 * stays its own until it ends, never another buffer's). */
static void pool_release(int slot) {
  pool_entry *e = &pool[slot];
  if (!e->dptr) return;
  for (int k = 0; k < 2; k++) unmap_in(slot, k);
  pool_entry gone = *e;
  memset(e, 0, sizeof *e);
  e->fd = -1;
  D.free_shared(gone.dptr, gone.mapped);
  if (gone.dsnap) D.free(gone.dsnap);
  if (gone.fd >= 0) close(gone.fd);
}

/* Every free entry given back (a test's end; out of device memory). */
static void pool_drain(void) {
  if (D.state != 1) return;
  for (int i = 0; i < POOL_SLOTS; i++)
    if (pool[i].dptr && !pool[i].owner) pool_release(i);
}

/* New memory in an empty entry (one freed for it if need be) for @p owner. -1: out of memory
 * or of entries (the test has failed). */
static int pool_fresh(size_t bytes, hx_buf *owner) {
  int empty = -1;
  for (int i = 0; i < POOL_SLOTS && empty < 0; i++)
    if (!pool[i].dptr) empty = i;
  if (empty < 0) { /* every entry holds memory: give back the free one freed longest ago */
    for (int i = 0; i < POOL_SLOTS; i++)
      if (!pool[i].owner && (empty < 0 || pool[i].stamp < pool[empty].stamp)) empty = i;
    if (empty < 0) {
      hx_fail_at(__FILE__, __LINE__, "harness: more than %d device buffers at once", POOL_SLOTS);
      return -1;
    }
    pool_release(empty);
  }
  void *d = NULL;
  size_t mapped = 0;
  int fd = -1;
  if (D.alloc_shared(bytes, &d, &mapped, &fd) != 0) {
    pool_drain(); /* what the pool kept may be what is missing */
    if (D.alloc_shared(bytes, &d, &mapped, &fd) != 0) {
      hx_fail_at(__FILE__, __LINE__, "out of device memory for a buffer of %zu bytes: %s", bytes, D.error());
      return -1;
    }
  }
  pool_entry *e = &pool[empty];
  memset(e, 0, sizeof *e);
  e->dptr = (unsigned char *)d;
  e->mapped = mapped;
  e->fd = fd;
  e->owner = owner;
  return empty;
}

/* An entry for a buffer of @p bytes: a free one of about that size, or new memory. */
static int pool_take(size_t bytes, hx_buf *owner) {
  int best = -1;
  const size_t slack = bytes > ((size_t)2 << 20) ? bytes : (size_t)2 << 20;
  for (int i = 0; i < POOL_SLOTS; i++) {
    const pool_entry *e = &pool[i];
    if (e->dptr && !e->owner && e->mapped >= bytes && e->mapped - bytes <= slack &&
        (best < 0 || e->mapped < pool[best].mapped))
      best = i;
  }
  if (best < 0) return pool_fresh(bytes, owner);
  pool[best].owner = owner;
  return best;
}

/* A buffer's entry back to the pool, or its memory given back when the pool is full. */
static void pool_put(int slot) {
  pool_entry *e = &pool[slot];
  e->owner = NULL;
  e->stamp = ++pool_clock;
  if (e->mapped > POOL_KEEP_ONE) {
    pool_release(slot);
    return;
  }
  for (;;) { /* the oldest free entries go first */
    size_t kept = 0;
    int count = 0, old = -1;
    for (int i = 0; i < POOL_SLOTS; i++)
      if (pool[i].dptr && !pool[i].owner) {
        kept += pool[i].mapped * (pool[i].dsnap ? 2 : 1);
        count++;
        if (old < 0 || pool[i].stamp < pool[old].stamp) old = i;
      }
    if (kept <= POOL_KEEP_ALL && count <= POOL_KEEP_COUNT) return;
    pool_release(old);
  }
}

static void unregister(hx_buf *b, proc *p, unsigned bit);

/* Before a run in the student's driver: every live buffer on memory that process ever mapped,
 * and that it was not given, moves to fresh memory (its elements copied), so that nothing the
 * process kept reaches it. Called before the clock starts; rare (a buffer of the yardstick's,
 * or one the test keeps for a later call, on memory the student's code once had). */
static void guard_run(proc *p) {
  if (p != &student || D.state != 1) return;
  int moved = 0;
  for (int i = 0; i < POOL_SLOTS; i++) {
    pool_entry *e = &pool[i];
    hx_buf *b = e->owner;
    if (!e->dptr || !b || reg_with(b, 0) || !alive_gen(&student, e->tainted)) continue;
    unregister(b, &clean, 2); /* the yardstick's driver takes the new memory when next asked */
    b->registered &= ~2u;
    const int to = pool_fresh(b->bytes, b);
    if (to < 0) hx_internal_abort_test();
    if (D.copy(pool[to].dptr, e->dptr, b->bytes) != 0) device_failed("moving a buffer to fresh memory");
    b->slot = to;
    b->dptr = pool[to].dptr;
    b->mapped = pool[to].mapped;
    b->fd = pool[to].fd;
    b->dsnap = NULL; /* snapshots are taken again by the next call that reads it */
    pool_put(i);
    moved = 1;
  }
  if (!moved) return;
  if (D.sync() != 0) device_failed("moving a buffer to fresh memory"); /* the copies done first */
  ping(p, 1, "moving a buffer to fresh memory"); /* the driver polls again (timing) */
}

hx_buf *hx_buf_new(size_t n, size_t elem) { return hx_buf_new_on(0, n, elem); }

hx_buf *hx_buf_new_on(int device, size_t n, size_t elem) {
  if (device < 0 || device >= HXP_DEVICES_MAX) {
    hx_fail_at(__FILE__, __LINE__, "harness: no device %d (0 to %d)", device, HXP_DEVICES_MAX - 1);
    return NULL;
  }
  if (device != 0 && on_device()) {
    /* The test's own device memory lives on GPU 0 (device_load()); buffers of other GPUs need
     * their own allocation there and checks run on that GPU, which this harness has not yet. */
    hx_fail_at(__FILE__, __LINE__, "harness: a buffer on GPU %d: on a GPU the harness keeps every buffer on "
                                   "GPU 0, so ranks share it (the kit's NCCL stand-in)", device);
    return NULL;
  }
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
  b->fd = -1;
  b->slot = -1;
  b->device = device;
  if (on_device()) {
    device_load();
    b->slot = pool_take(b->bytes, b);
    if (b->slot < 0) {
      free(b);
      return NULL;
    }
    const pool_entry *e = &pool[b->slot];
    b->dev = 1;
    b->dptr = e->dptr;
    b->mapped = e->mapped;
    b->fd = e->fd;
    dev_poison(b, 0, b->bytes); /* a pooled entry holds the last buffer's elements */
    return b;
  }
  b->fd = memfd_create("scanlab-buffer", MFD_CLOEXEC);
  if (b->fd < 0 || ftruncate(b->fd, (off_t)b->bytes) != 0) {
    hx_fail_at(__FILE__, __LINE__, "out of memory for a shared buffer of %zu bytes: %s", b->bytes,
               strerror(errno));
    if (b->fd >= 0) close(b->fd);
    free(b);
    return NULL;
  }
  /* MAP_POPULATE: every page is written next (the poison) and read by the driver, so the
   * pages are made in one call rather than one fault each: a fault on a fresh page cost 12 us
   * on a virtual machine where the lab 06 grade took 675,000 of them (README, "make check") */
  b->map = (unsigned char *)mmap(NULL, b->bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, b->fd, 0);
  if (b->map == MAP_FAILED) {
    hx_fail_at(__FILE__, __LINE__, "out of memory mapping a shared buffer of %zu bytes", b->bytes);
    close(b->fd);
    free(b);
    return NULL;
  }
  poison_words(b->map, b->bytes);
  return b;
}

void *hx_buf_data(hx_buf *b) {
  if (!b) return NULL;
  if (!b->dev) return b->map + HXP_GUARD_BYTES;
  const size_t len = b->n * b->elem;
  if (!b->mirror) {
    b->mirror = (unsigned char *)malloc(len ? len : 1);
    if (!b->mirror) {
      hx_fail_at(__FILE__, __LINE__, "out of host memory for a copy of a buffer of %zu bytes", len);
      hx_internal_abort_test();
    }
    b->mirror_fresh = 0;
  }
  if (!b->mirror_fresh && len && D.download(b->mirror, data_dev(b), len) != 0) device_failed("reading a buffer");
  b->mirror_fresh = 1;
  b->mirror_lent = 1;
  return b->mirror;
}
size_t hx_buf_len(const hx_buf *b) { return b ? b->n : 0; }

/* Device memory: the test's writes into the mirror, to the device. */
static void mirror_push(hx_buf *b) {
  if (!b->dev || !b->mirror || !b->mirror_lent) return;
  const size_t len = b->n * b->elem;
  if (len && D.upload(data_dev(b), b->mirror, len) != 0) device_failed("filling a buffer");
  b->mirror_lent = 0;
  b->mirror_fresh = 1;
}

static void unregister(hx_buf *b, proc *p, unsigned bit) {
  if (!reg_with(b, bit == 2)) return;
  hxp_request q = request(HXP_BUF_FREE);
  q.id = b->id;
  exchange(p, &q, -1, "freeing a buffer");
}

void hx_buf_free(hx_buf *b) {
  if (!b) return;
  unregister(b, &student, 1);
  unregister(b, &clean, 2);
  if (b->dev) {
    free(b->mirror);
    pool_put(b->slot); /* the descriptor and the snapshot's memory stay with the entry */
  } else {
    munmap(b->map, b->bytes);
    if (b->fd >= 0) close(b->fd);
  }
  free(b->snapshot);
  free(b);
}

static void ensure_registered(hx_buf *b, proc *p, unsigned bit) {
  if (reg_with(b, bit == 2)) return;
  hxp_request q = request(HXP_BUF_NEW);
  q.id = b->id;
  q.n = b->n;
  q.elem = b->elem;
  q.mem = b->dev ? HXM_DEVICE : HXM_HOST;
  q.device = (uint32_t)b->device;
  q.mapped = b->mapped;
  int fd = b->fd;
  const int k = bit == 2;
  if (b->dev) {
    q.map = (uint32_t)b->slot;
    if (holds(&pool[b->slot], k)) fd = -1; /* the driver still has it mapped */
    pool[b->slot].held[k] = 0;            /* until it answers: a failed import holds nothing */
  }
  if (exchange(p, &q, fd, "sharing a buffer") != HXS_OK) {
    hx_fail_at(__FILE__, __LINE__, "harness: the driver could not take a buffer of %zu bytes: %s",
               b->bytes, p->last.text);
    hx_internal_abort_test();
  }
  if (b->dev) {
    pool[b->slot].held[k] = p->gen;
    if (!k) pool[b->slot].tainted = p->gen;
  }
  b->registered |= bit;
  b->reg_gen[bit == 2] = p->gen;
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

/* A generated input's elements, in host memory. */
static void fill_generated(hx_buf *b, const hx_arg *a) {
  int32_t *v = (int32_t *)(b->map + HXP_GUARD_BYTES);
  for (size_t i = 0; i < b->n; i++) v[i] = hxp_gen_value(a->seed, i, a->lo, a->hi);
}

static void to_wire(const hx_arg *a, hxp_arg *w) {
  memset(w, 0, sizeof *w);
  switch (a->kind) {
    case HX_ARG_IN:
    case HX_ARG_INOUT:
    case HX_ARG_OUT: /* the test poisoned it: copied in, so a word never written stays poison */
      w->kind = HXA_BUF;
      w->flags = HXF_UPLOAD | HXF_DOWNLOAD;
      break;
    case HX_ARG_GEN:
      w->kind = HXA_BUF;
      w->flags = HXF_UPLOAD | (a->i ? 0u : HXF_DOWNLOAD); /* i = 1: not copied back (timing) */
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

/* ---- before and after a call ------------------------------------------------------------------ */

static int report_guards(hx_buf *b, const char *ctx, const char *role, size_t changed_front, size_t last_front,
                         size_t changed_back, size_t first_back) {
  const size_t words = b->elem / 4;
  if (changed_back)
    hx_fail_at(__FILE__, __LINE__, "%s: write past the end of the %s at index %zu (n=%zu; %zu guard word%s "
               "changed)", ctx, role, b->n + first_back / words, b->n, changed_back, changed_back == 1 ? "" : "s");
  if (changed_front) {
    const long long idx = -(long long)((HXP_GUARD_BYTES / 4 - last_front + words - 1) / words);
    hx_fail_at(__FILE__, __LINE__, "%s: write before the start of the %s at index %lld (n=%zu; %zu guard "
               "word%s changed)", ctx, role, idx, b->n, changed_front, changed_front == 1 ? "" : "s");
  }
  return changed_back || changed_front;
}

static int check_guards(hx_buf *b, const char *ctx, const char *role) {
  const size_t gw = HXP_GUARD_BYTES / 4;
  if (b->dev) {
    size_t cf, ff, lf, cb, fb, lb;
    if (D.words_not(b->dptr, gw, HXP_POISON, &cf, &ff, &lf) != 0 ||
        D.words_not(b->dptr + HXP_GUARD_BYTES + b->n * b->elem, gw, HXP_POISON, &cb, &fb, &lb) != 0)
      device_failed("checking a buffer's guards");
    if (!report_guards(b, ctx, role, cf, lf, cb, fb)) return 0;
    dev_poison(b, 0, HXP_GUARD_BYTES); /* clean guards for the buffer's next call */
    dev_poison(b, HXP_GUARD_BYTES + b->n * b->elem, HXP_GUARD_BYTES);
    return 1;
  }
  const unsigned char *front = b->map, *back = b->map + HXP_GUARD_BYTES + b->n * b->elem;
  size_t last_front = 0, first_back = 0, changed_front = 0, changed_back = 0;
  for (size_t w = 0; w < gw; w++) {
    uint32_t x, y;
    memcpy(&x, front + 4 * w, 4);
    memcpy(&y, back + 4 * w, 4);
    if (x != HXP_POISON) {
      changed_front++;
      last_front = w;
    }
    if (y != HXP_POISON && changed_back++ == 0) first_back = w;
  }
  if (!report_guards(b, ctx, role, changed_front, last_front, changed_back, first_back)) return 0;
  poison_words(b->map, HXP_GUARD_BYTES);
  poison_words(b->map + HXP_GUARD_BYTES + b->n * b->elem, HXP_GUARD_BYTES);
  return 1;
}

#define SNAPSHOT_MAX ((size_t)64 << 20)

/* Remembers an input's elements, for check_unchanged(). */
static void snapshot(hx_buf *b) {
  const size_t len = b->n * b->elem;
  if (b->dev) {
    pool_entry *e = &pool[b->slot];
    if (!e->dsnap && D.alloc(&e->dsnap, e->mapped) != 0) device_failed("a copy of an input");
    b->dsnap = e->dsnap;
    if (len && D.copy(b->dsnap, data_dev(b), len) != 0) device_failed("a copy of an input");
    return;
  }
  free(b->snapshot);
  b->snapshot = NULL;
  if (len <= SNAPSHOT_MAX) {
    b->snapshot = (unsigned char *)malloc(len ? len : 1);
    if (b->snapshot) memcpy(b->snapshot, hx_buf_data(b), len);
  }
  if (!b->snapshot) b->hash = fnv(hx_buf_data(b), len);
}

static int input_modified(const char *ctx, size_t count, size_t first) {
  hx_fail_at(__FILE__, __LINE__, "%s: the input was modified (it is const): %zu element%s changed, the first at "
             "[%zu]", ctx, count, count == 1 ? "" : "s", first);
  return 1;
}

static int check_unchanged(hx_buf *b, const char *ctx) {
  const size_t len = b->n * b->elem;
  if (b->dev) {
    size_t count = 0, first = 0;
    if (D.compare(b->dsnap, data_dev(b), b->n, b->elem, &count, &first) != 0) device_failed("checking an input");
    if (!count) return 0;
    if (D.copy(data_dev(b), b->dsnap, len) != 0) device_failed("restoring an input"); /* for the test's own use */
    return input_modified(ctx, count, first);
  }
  const unsigned char *now = (const unsigned char *)hx_buf_data(b);
  if (b->snapshot) {
    if (memcmp(b->snapshot, now, len) == 0) return 0;
    size_t first = 0, count = 0;
    for (size_t i = 0; i < b->n; i++)
      if (memcmp(b->snapshot + i * b->elem, now + i * b->elem, b->elem) != 0 && count++ == 0) first = i;
    memcpy((unsigned char *)now, b->snapshot, len); /* restored for the test's own use */
    return input_modified(ctx, count, first);
  }
  if (fnv(now, len) == b->hash) return 0;
  hx_fail_at(__FILE__, __LINE__, "%s: the input was modified (it is const)", ctx);
  return 1;
}

static int check_generated(hx_buf *b, const hx_arg *a, const char *ctx) {
  size_t count = 0, first = 0;
  if (b->dev) {
    if (D.check_generated((const int32_t *)data_dev(b), b->n, a->seed, a->lo, a->hi, &count, &first) != 0)
      device_failed("checking an input");
  } else {
    const int32_t *v = (const int32_t *)hx_buf_data(b);
    for (size_t i = 0; i < b->n; i++)
      if (v[i] != hxp_gen_value(a->seed, i, a->lo, a->hi) && count++ == 0) first = i;
  }
  if (!count) return 0;
  hx_fail_at(__FILE__, __LINE__, "%s: the input was modified (it is const): first changed element at [%zu]", ctx,
             first);
  return 1;
}

/* What the test puts in a buffer before a call: the input (copied or generated), the output
 * poisoned, the guards clean. No student code runs while this happens. */
static void fill_arg(const hx_arg *a) {
  hx_buf *b = a->buf;
  if (!b) return;
  const size_t len = b->n * b->elem;
  if (b->dev) {
    switch (a->kind) {
      case HX_ARG_IN:
        mirror_push(b);
        snapshot(b);
        break;
      case HX_ARG_INOUT:
        mirror_push(b);
        b->mirror_fresh = 0;
        break;
      case HX_ARG_OUT:
        dev_poison(b, HXP_GUARD_BYTES, len);
        b->mirror_fresh = b->mirror_lent = 0;
        break;
      case HX_ARG_GEN:
        if (b->n && D.generate((int32_t *)data_dev(b), b->n, a->seed, a->lo, a->hi) != 0)
          device_failed("generating an input");
        b->mirror_fresh = b->mirror_lent = 0;
        break;
    }
    return;
  }
  switch (a->kind) {
    case HX_ARG_IN:
      snapshot(b);
      break;
    case HX_ARG_OUT:
      poison_words(b->map + HXP_GUARD_BYTES, len);
      break;
    case HX_ARG_GEN:
      fill_generated(b, a);
      break;
  }
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
    if (args[k].buf) ensure_registered(args[k].buf, p, bit);
    fill_arg(&args[k]);
    to_wire(&args[k], &q.args[k]);
  }
  if (on_device() && D.state == 1 && D.sync() != 0) device_failed("preparing a call's buffers");
  if (exchange(p, &q, -1, ctx) != HXS_OK) {
    hx_fail_at(__FILE__, __LINE__, "%s: %s", ctx, p->last.text);
    hx_internal_abort_test();
  }
}

/* Host memory on a device (emu): the driver copies the outputs back. */
static void finish(proc *p, uint32_t slot, int nargs, const hx_arg *args, int spin, const char *ctx) {
  int needed = 0;
  for (int k = 0; k < nargs; k++) needed |= args[k].buf && !args[k].buf->dev;
  if (!needed || strcmp(cfg.backend, "cpu") == 0) return;
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
  if (r->host_wrote) {
    hx_fail_at(__FILE__, __LINE__, "%s: %s: %u of its outputs or __device__ variables changed after the device last "
               "wrote them, by other means than a kernel or the runtime's copies: host code wrote device memory "
               "(reopened around the lab's rules, or a __device__ variable through a pointer?); the lab's work must "
               "be done on the device", ctx, fn, r->host_wrote);
    return 1;
  }
  const unsigned long long moved = (unsigned long long)(r->d2h + r->h2d);
  if (moved <= cfg.host_copy_allowance) return 0;
  hx_fail_at(__FILE__, __LINE__, "%s: %s copied %llu bytes between the device and the host (%llu to "
             "the host, %llu to the device): the lab's work must be done on the device",
             ctx, fn, moved, (unsigned long long)r->d2h, (unsigned long long)r->h2d);
  return 1;
}

static hx_counters last_counters;
static int incomplete_said; /* the last call's incomplete counters reported (once a call) */
const hx_counters *hx_last_counters(void) {
  if (!last_counters.available) return NULL;
  if (last_counters.c[HX_C_INCOMPLETE] && !incomplete_said) {
    incomplete_said = 1;
    hx_fail_at(__FILE__, __LINE__, "the emu's memory probes did not keep every access of the call's kernels "
               "(a thread made more memory accesses between two barriers than they keep, or a block's "
               "threads more than their log holds): the counters miss part of the work and cannot judge it; "
               "a kernel of this lab needs far fewer accesses per thread");
  }
  return &last_counters;
}

int hx_check_parallel(const char *call, double max_share, double min_lanes) {
  const hx_counters *c = hx_last_counters();
  if (!c) return -1;
  const unsigned long long *k = c->c;
  const double acc = (double)k[HX_C_W_ACCESSES], blocks = (double)k[HX_C_W_BLOCKS];
  const double instr = (double)(k[HX_C_GLD_REQ] + k[HX_C_GST_REQ] + k[HX_C_SLD_REQ] + k[HX_C_SST_REQ]);
  if (acc <= 0 || blocks <= 0 || instr <= 0) {
    HX_FAIL("%s: the emu counted no memory access of its kernels, so their work cannot be judged", call);
    return 0;
  }
  const double share = (double)k[HX_C_W_TOP] / acc, lanes = acc / instr;
  hx_note("%s: the busiest thread of a block made %.1f%% of the block's memory accesses (at most %.0f%%); %.1f of "
          "32 lanes took part in each memory instruction, on average (at least %.0f)", call, 100 * share,
          100 * max_share, lanes, min_lanes);
  int ok = 1;
  if (share > max_share) {
    const int t0 = k[HX_C_W_TOP_T0] * 2 >= k[HX_C_W_BLOCKS];
    HX_FAIL("%s: %s makes %.0f%% of its block's memory accesses: the block's work is done by one thread, one "
            "element after another, where its threads should share it (at most %.0f%% for one thread; the emu "
            "counts each thread's loads and stores of shared and global memory)", call,
            t0 ? "thread 0" : "one thread", 100 * share, 100 * max_share);
    ok = 0;
  }
  if (lanes < min_lanes) {
    HX_FAIL("%s: %.1f of a warp's 32 lanes take part in each memory instruction, on average: most lanes idle "
            "while a few do the work (at least %.0f; the emu counts the lanes of each warp-level load and store)",
            call, lanes, min_lanes);
    ok = 0;
  }
  return ok;
}

int hx_check_blocks(const char *call, double min_blocks) {
  const hx_counters *c = hx_last_counters();
  if (!c) return -1;
  const double st = (double)c->c[HX_C_W_ST], sq = (double)c->c[HX_C_W_ST_SQ];
  if (st <= 0 || sq <= 0) {
    HX_FAIL("%s: the emu counted no global store of its kernels, so their work cannot be judged", call);
    return 0;
  }
  const double blocks = st * st / sq;
  hx_note("%s: what its blocks stored was worth %.1f blocks of equal output (at least %.0f)", call, blocks,
          min_blocks);
  if (blocks < min_blocks) {
    HX_FAIL("%s: what its blocks stored was worth %.1f blocks of equal output, fewer than %.0f: one block, or a "
            "few, did the whole input, tile after tile, while the others returned or waited; a GPU runs that at "
            "the speed of those few multiprocessors (the emu counts the global sectors each block stores; a "
            "launch needs a block for each tile, or enough to fill the GPU, each storing its share)",
            call, blocks, min_blocks);
    return 0;
  }
  return 1;
}

static int depth_mode; /* hx_emu_depth: the next calls run in depth mode */

void hx_emu_depth(int on) { depth_mode = on != 0; }

int hx_check_depth(const char *call, double bytes, double min_ways) {
  const hx_counters *c = hx_last_counters();
  if (!c) return -1;
  const double depth = (double)c->c[HX_C_W_DEPTH];
  if (depth <= 0 || bytes <= 0) {
    HX_FAIL("%s: the emu measured no chain of global accesses, so how its blocks waited for one another cannot "
            "be judged", call);
    return 0;
  }
  const double ways = bytes / depth;
  hx_note("%s: its longest chain of global accesses that waited on one another moved %.0f bytes, %.1f times fewer "
          "than the %.0f the call must read and write (at least %.0f times)", call, depth, ways, bytes, min_ways);
  if (ways < min_ways) {
    HX_FAIL("%s: its longest chain of global accesses that waited on one another moved %.0f bytes, only %.1f times "
            "fewer than the %.0f the call must read and write (at least %.0f times): its blocks took turns, each waiting for another to finish "
            "its work before doing its own, which a GPU runs at one multiprocessor's speed whatever the grid (the "
            "emu follows each value a block reads back to the block that stored it; in a single pass a block "
            "loads and reduces its tile before it waits, and waits only for status words)",
            call, depth, ways, bytes, min_ways);
    return 0;
  }
  return 1;
}

void hx_traffic_diagnosis(char *out, size_t cap) {
  const hx_counters *c = hx_last_counters();
  if (!cap) return;
  out[0] = 0;
  if (!c) return;
  const unsigned long long *k = c->c;
  const double moved = 32.0 * (double)(k[HX_C_GLD_SECT] - k[HX_C_GLD_VOL_REREAD]);
  const double asked = (double)k[HX_C_GLD_BYTES];
  if (k[HX_C_GLD_PLAIN_REPOLL] >= 64)
    snprintf(out, cap, ": %llu plain loads read again the address the same thread had just read at the same "
             "line: a look-back polling its status words with plain loads, where the protocol needs volatile "
             "or atomic ones (a plain load may be kept in a register or an L1 line and never see the other "
             "block's store; the emu leaves polling out of the traffic only for volatile loads)",
             k[HX_C_GLD_PLAIN_REPOLL]);
  else if (moved > 0 && asked < 0.6 * moved)
    snprintf(out, cap, ": the loads used %.0f%% of the bytes of the 32-byte sectors they touched, the lanes of "
             "a warp reading addresses far apart (uncoalesced: lane l should read the word next to lane l-1's)",
             100.0 * asked / moved);
  else
    snprintf(out, cap, ": the loads are coalesced and none polls with plain loads, so an array is read or "
             "written more often than once (an extra pass)");
}

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
  char split[200], sectors[160], shared[160];
  /* Loads and stores apart, per unit: 16-byte stores and strided 4-byte stores both touch 16
   * sectors a request, but the second moves each sector four times. The loads leave out the
   * sectors a look-back's polling read again (its requests are not told apart from the others,
   * so the loads' sectors per request are not shown where it polled). */
  const double ld = 32.0 * (double)(k[HX_C_GLD_SECT] - k[HX_C_GLD_VOL_REREAD]) / units;
  const double st = 32.0 * (double)k[HX_C_GST_SECT] / units, at = 32.0 * (double)k[HX_C_GATOM] / units;
  snprintf(split, sizeof split, "loads %.2f%s stores %.2f", ld, at >= 0.005 ? "," : " and", st);
  if (at >= 0.005) snprintf(split + strlen(split), sizeof split - strlen(split), " and atomics %.2f", at);
  if (k[HX_C_GLD_VOL_REREAD]) snprintf(split + strlen(split), sizeof split - strlen(split), ", polling left out");
  const double per_st = k[HX_C_GST_REQ] ? (double)k[HX_C_GST_SECT] / (double)k[HX_C_GST_REQ] : 0.0;
  if (k[HX_C_GLD_VOL_SECT])
    snprintf(sectors, sizeof sectors, "sectors per request: stores %.1f", per_st);
  else
    snprintf(sectors, sizeof sectors, "sectors per request: loads %.1f, stores %.1f",
             k[HX_C_GLD_REQ] ? (double)k[HX_C_GLD_SECT] / (double)k[HX_C_GLD_REQ] : 0.0, per_st);
  const double sreq = (double)(k[HX_C_SLD_REQ] + k[HX_C_SST_REQ]);
  if (sreq > 0)
    snprintf(shared, sizeof shared, "shared memory: %.0f requests, %.2f bank conflicts per request", sreq,
             (double)(k[HX_C_SLD_CONF] + k[HX_C_SST_CONF]) / sreq);
  else
    snprintf(shared, sizeof shared, "no shared memory");
  hx_note("%s, emu model: %.2f bytes per %s (the timing test counts %.4g): %s; so %.2f of copy if all moved at "
          "copy speed; %s; %s", what, moved, unit, ideal, split, at_copy, sectors, shared);
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
  q.depth = (uint32_t)depth_mode;
  size_t bad = 0;
  if (exchange(p, &q, -1, where) != HXS_OK) {
    hx_fail_at(__FILE__, __LINE__, "%s: %s", where, p->last.text);
    bad++;
  }
  const hxp_reply run = p->last;
  if (ret) *ret = run.ret;
  memset(&last_counters, 0, sizeof last_counters);
  incomplete_said = 0;
  last_counters.available = run.counted >= HXP_COUNTERS;
  for (int k = 0; k < HXP_COUNTERS && last_counters.available; k++) last_counters.c[k] = run.counters[k];
  finish(p, 0, nargs, args, 0, where);
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

size_t hx_call_list(long long *ret, const char *fn, const char *ctx, int nargs, const hx_arg *args) {
  if (nargs < 0 || nargs > HXP_MAX_ARGS) {
    hx_fail_at(__FILE__, __LINE__, "harness: %s: %d arguments (0 to %d)", fn, nargs, HXP_MAX_ARGS);
    hx_internal_abort_test();
  }
  return call_args(ret, fn, ctx, nargs, args);
}

/* ---- checking outputs where they lie ----------------------------------------------------------- */

hx_source hx_source_buf(hx_buf *b) {
  hx_source s;
  memset(&s, 0, sizeof s);
  s.buf = b;
  return s;
}
hx_source hx_source_gen(uint64_t seed, int64_t lo, int64_t hi) {
  hx_source s;
  memset(&s, 0, sizeof s);
  s.seed = seed;
  s.lo = lo;
  s.hi = hi;
  return s;
}

/* The buffer's elements where the check runs: on the device for device memory, else the host. */
static const void *elems(hx_buf *b) { return !b ? NULL : b->dev ? (const void *)data_dev(b) : hx_buf_data(b); }

static int all_device(hx_buf *const *bs, int n) {
  int dev = 0, host = 0;
  for (int i = 0; i < n; i++) {
    if (bs[i] && bs[i]->dev) dev++;
    if (bs[i] && !bs[i]->dev) host++;
  }
  if (dev && host) {
    hx_fail_at(__FILE__, __LINE__, "harness: a check mixes device and host buffers");
    hx_internal_abort_test();
  }
  return dev > 0;
}

static hxv_input input_of(hx_source s) {
  hxv_input in = {NULL, s.seed, s.lo, s.hi};
  if (s.buf) in.p = (const int32_t *)elems(s.buf);
  return in;
}

static void too_short(hx_buf *b, size_t need, const char *what) {
  if (b && b->n * b->elem < need) {
    hx_fail_at(__FILE__, __LINE__, "harness: %s holds %zu bytes, the check reads %zu", what, b->n * b->elem, need);
    hx_internal_abort_test();
  }
}

size_t hx_verify_scan(hx_source in, hx_buf *out, size_t n, int exclusive, size_t tile, size_t sub, hx_buf *flags,
                      hxv_result *r) {
  hx_buf *bs[3] = {in.buf, out, flags};
  const int dev = all_device(bs, 3);
  too_short(in.buf, 4 * n, "the input");
  too_short(out, 4 * n, "the output");
  too_short(flags, n, "the flags");
  const hxv_input src = input_of(in);
  const hxv_segments seg = {tile, sub, (const uint8_t *)elems(flags)};
  if (!dev) return hxv_scan_host(&src, (const int32_t *)elems(out), n, exclusive, &seg, r);
  if (D.scan(&src, (const int32_t *)elems(out), n, exclusive, &seg, r) != 0) device_failed("checking a scan");
  return r->count;
}

size_t hx_verify_select(hx_source in, hx_buf *out, size_t n, int32_t pivot, int partition, hxv_result *r) {
  hx_buf *bs[2] = {in.buf, out};
  const int dev = all_device(bs, 2);
  too_short(in.buf, 4 * n, "the input");
  too_short(out, 4 * n, "the output");
  const hxv_input src = input_of(in);
  if (!dev) return hxv_select_host(&src, (const int32_t *)elems(out), n, pivot, partition, r);
  if (D.select(&src, (const int32_t *)elems(out), n, pivot, partition, r) != 0) device_failed("checking a compaction");
  return r->count;
}

size_t hx_verify_sight(hx_source in, hx_buf *vis, size_t n, hxv_result *r) {
  hx_buf *bs[2] = {in.buf, vis};
  const int dev = all_device(bs, 2);
  too_short(in.buf, 4 * n, "the input");
  too_short(vis, n, "the output");
  const hxv_input src = input_of(in);
  if (!dev) return hxv_sight_host(&src, (const uint8_t *)elems(vis), n, r);
  if (D.sight(&src, (const uint8_t *)elems(vis), n, r) != 0) device_failed("checking a line of sight");
  return r->count;
}

size_t hx_verify_sort(hx_source in, hx_buf *out, size_t n, hxv_result *r) {
  hx_buf *bs[2] = {in.buf, out};
  const int dev = all_device(bs, 2);
  too_short(in.buf, 4 * n, "the input");
  too_short(out, 4 * n, "the output");
  const hxv_input src = input_of(in);
  if (!dev) return hxv_sort_host(&src, (const uint32_t *)elems(out), n, r);
  if (D.sort(&src, (const uint32_t *)elems(out), n, r) != 0) device_failed("checking a sort");
  return r->count;
}

size_t hx_verify_spmv(hx_buf *ptr, hx_buf *col, hx_buf *x, hx_source val, hx_buf *y, int32_t rows, double rtol,
                      double atol, hxv_result *r) {
  hx_buf *bs[5] = {ptr, col, x, val.buf, y};
  const int dev = all_device(bs, 5);
  too_short(ptr, 4 * ((size_t)rows + 1), "the row offsets");
  too_short(y, 4 * (size_t)rows, "the output");
  const hxv_input src = input_of(val);
  if (!dev)
    return hxv_spmv_host((const int32_t *)elems(ptr), (const int32_t *)elems(col), (const float *)elems(x), &src,
                         (const float *)elems(y), rows, rtol, atol, r);
  if (D.spmv((const int32_t *)elems(ptr), (const int32_t *)elems(col), (const float *)elems(x), &src,
             (const float *)elems(y), rows, rtol, atol, r) != 0)
    device_failed("checking a sparse product");
  return r->count;
}

/* ---- information from a process without student code ---------------------------------------- */

static hx_device_info info;
static int have_info = 0;

const hx_device_info *hx_device(void) {
  if (have_info) return &info;
  if (strcmp(cfg.backend, "cpu") == 0) {
    snprintf(info.backend, sizeof info.backend, "cpu");
    snprintf(info.device, sizeof info.device, "host CPU");
    info.devices = 1;
    have_info = 1;
    return &info;
  }
  proc *p = start(&clean, cfg.clean_driver);
  memcpy(info.backend, p->last.backend, sizeof info.backend); /* same sizes, terminated by await() */
  memcpy(info.device, p->last.device, sizeof info.device);
  info.l2_bytes = p->last.l2_bytes;
  info.free_bytes = p->last.free_bytes;
  info.total_bytes = p->last.total_bytes;
  info.devices = p->last.devices >= 1 && p->last.devices <= HXP_DEVICES_MAX ? (int)p->last.devices : 1;
  have_info = 1;
  return &info;
}

/* ---- timing ---------------------------------------------------------------------------------- */

/* A seed nobody can know before the test draws it: a timed call's input is unknown to the
 * driver's process until the call runs, so no answer can be prepared ahead. */
static uint64_t fresh_seed(void) {
  uint64_t s = 0;
  if (getrandom(&s, sizeof s, 0) == (ssize_t)sizeof s) return s;
  return (uint64_t)(hx_now() * 1e9) ^ ((uint64_t)getpid() << 32); /* no getrandom: still not the driver's to know */
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* On the cpu backend (a lab without kernels) a timed call is measured in CPU seconds: those
 * of the driver's processes, read from outside, while the driver sleeps between requests. A
 * wall clock there measured the machine's load: beside other work on two cores a call of a
 * few milliseconds waited out other processes' turns while the yardstick's copy, shorter than
 * one turn, mostly did not (fifteen right scans graded as a class measured 0.009 to 3.5 of
 * memcpy; one on CI fell under the 0.003 its check asked). A GPU's calls keep the wall clock,
 * with both sides polling. */
static int timed_in_cpu_seconds(void) { return strcmp(cfg.backend, "cpu") == 0; }

/* The processes the sandbox @p root started, itself among them: at most @p cap pids in @p out,
 * found through each process's parent in /proc (a pass adds the children of those found, until
 * one adds none, at most 8 passes: the sandbox and the driver under it are two levels, and a
 * pass also finds the children of those it found earlier in it); how many. */
static int process_tree(pid_t root, pid_t *out, int cap) {
  int n = 0;
  if (cap > 0) out[n++] = root;
  for (int added = 1, pass = 0; added && pass < 8 && n < cap; pass++) {
    added = 0;
    DIR *d = opendir("/proc");
    if (!d) break;
    for (struct dirent *e; (e = readdir(d)) != NULL && n < cap;) {
      char path[64], buf[512];
      if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
      const pid_t pid = (pid_t)atoi(e->d_name);
      int known = 0;
      for (int i = 0; i < n && !known; i++) known = out[i] == pid;
      if (known) continue;
      snprintf(path, sizeof path, "/proc/%.20s/stat", e->d_name);
      const int fd = open(path, O_RDONLY | O_CLOEXEC);
      if (fd < 0) continue;
      const ssize_t got = read(fd, buf, sizeof buf - 1);
      close(fd);
      if (got <= 0) continue;
      buf[got] = '\0';
      const char *close_paren = strrchr(buf, ')'); /* the command's name may hold anything */
      int ppid;
      char state;
      if (!close_paren || sscanf(close_paren + 1, " %c %d", &state, &ppid) != 2) continue;
      for (int i = 0; i < n; i++)
        if (out[i] == (pid_t)ppid) {
          out[n++] = pid;
          added = 1;
          break;
        }
    }
    closedir(d);
  }
  return n;
}

/* CPU seconds used so far by the processes @p pids; NAN where one cannot be read (it ended, or
 * the system hides it): a time that left a process out would flatter the call. */
static double cpu_seconds(const pid_t *pids, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    clockid_t c;
    struct timespec t;
    if (clock_getcpuclockid(pids[i], &c) != 0 || clock_gettime(c, &t) != 0) return NAN;
    s += (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
  }
  return s;
}

/* Times a batch of calls prepared in slots 0..k-1: seconds per call (CPU seconds on the cpu
 * backend). The clock stops at the run's reply; a ping then proves that reply was the only one. */
static double run_batch(proc *p, int k, const char *ctx, hxp_reply *rep) {
  const int cpu = timed_in_cpu_seconds();
  hxp_request q = request(HXP_RUN);
  q.slot = 0;
  q.count = (uint32_t)k;
  q.spin = (uint32_t)!cpu;
  guard_run(p); /* what exchange() would do first, before the clock */
  pid_t tree[64];
  const int ntree = cpu ? process_tree(p->pid, tree, 64) : 0;
  const double t0 = cpu ? cpu_seconds(tree, ntree) : hx_now();
  const uint32_t st = exchange(p, &q, -1, ctx);
  const double t = (cpu ? cpu_seconds(tree, ntree) : hx_now()) - t0;
  *rep = p->last;
  if (st != HXS_OK) {
    hx_fail_at(__FILE__, __LINE__, "%s: %s", ctx, p->last.text);
    return NAN;
  }
  if (cpu && (ntree < 2 || !(t > 0))) { /* the sandbox alone, a clock unread, or no time at all */
    hx_fail_at(__FILE__, __LINE__, "%s: the CPU time of the driver's processes could not be read (%d found under "
               "the sandbox, process %d): this machine's /proc hides them, so the call cannot be timed", ctx,
               ntree, (int)p->pid);
    return NAN;
  }
  ping(p, !cpu, ctx);
  return t / k;
}

double hx_time_calls(const hx_timed *t, int batches, int per_batch) {
  if (per_batch < 1) per_batch = 1;
  if (per_batch > HXP_MAX_SLOTS) per_batch = HXP_MAX_SLOTS;
  if (batches < 1) batches = 1;
  if (t->nextra > HXP_MAX_ARGS - 2) return NAN;
  proc *p = start(&student, cfg.driver);
  const int spin = !timed_in_cpu_seconds(); /* both sides poll while a GPU's calls are timed */
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
      /* A fresh input for every call, from a seed drawn now: nothing to replay, nothing to
       * cache, nothing to compute ahead. */
      seeds[k] = fresh_seed();
      args[k][0] = hx_in_generated(in[k], seeds[k], t->lo, t->hi);
      args[k][0].i = 1; /* not copied back: its check recomputes it */
      args[k][1] = hx_out(out[k]);
      for (int e = 0; e < t->nextra; e++) args[k][2 + e] = t->extra[e];
      prepare(p, 1, (uint32_t)k, t->fn, 2 + t->nextra, args[k], spin, t->ctx);
    }
    hxp_reply rep;
    secs[b] = run_batch(p, per_batch, t->ctx, &rep);
    if (isnan(secs[b]) || check_copies(&rep, t->fn, t->ctx)) ok = 0;
    for (int k = 0; ok && k < per_batch; k++) {
      finish(p, (uint32_t)k, 2 + t->nextra, args[k], spin, t->ctx);
      /* the input unchanged, the output's guards, the extra inputs (flags, keys) unchanged by
       * every call; then the output itself */
      if (after_call(2 + t->nextra, args[k], t->ctx) || t->check(t, seeds[k], out[k], t->ctx)) ok = 0;
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

/* The yardstick runs where no student work can: the student's driver is ended first (its
 * process, its threads and its device contexts, with any work it left on another context), and
 * started again by the next call. */
double hx_time_copy(size_t bytes, int batches, int per_batch) {
  if (per_batch < 1) per_batch = 1;
  if (per_batch > HXP_MAX_SLOTS) per_batch = HXP_MAX_SLOTS;
  if (batches < 1) batches = 1;
  if (student.pid > 0) stop(&student, cfg.nwrap ? 120.0 : 1.0);
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
    /* what the copy moves does not change its speed: the source keeps its poison */
  }
  /* One batch more than timed, the first, untimed, as the student's timed calls come after the
   * correctness tests: the clean driver has just started. (A run on an H200 that had sat idle
   * once measured its copy at a quarter of its bandwidth, and lab 02's scan read 0.915 of
   * "copy".) */
  for (int b = -1; ok && b < batches; b++) {
    for (int k = 0; k < per_batch; k++) {
      for (int a = 0; a < 2; a++) ensure_registered(a ? dst[k] : src[k], p, 2);
      hxp_request q = request(HXP_PREP);
      q.slot = (uint32_t)k;
      q.spin = (uint32_t)!timed_in_cpu_seconds();
      q.nargs = 2;
      snprintf(q.fn, sizeof q.fn, "copy");
      q.args[0].kind = q.args[1].kind = HXA_BUF;
      q.args[0].buf = src[k]->id;
      q.args[1].buf = dst[k]->id;
      q.args[0].flags = HXF_UPLOAD; /* host memory on a device: the source goes in, nothing comes back */
      if (exchange(p, &q, -1, "the copy yardstick") != HXS_OK) ok = 0;
    }
    hxp_reply rep;
    const double t = ok ? run_batch(p, per_batch, "the copy yardstick", &rep) : NAN;
    if (isnan(t)) ok = 0;
    else if (b >= 0) secs[b] = t;
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
