/**
 * @file driver.c
 * @brief The driver's main loop: receives requests from the test on the control socket,
 *        maps the shared buffers, prepares and runs calls of the lab's call table, replies.
 *
 * The driver is started by the test, through the sandbox, with the control socket as
 * descriptor HXP_CONTROL_FD and its standard output and error going to the test. It keeps
 * no secret: everything it could tell the test is checked there.
 */
#define _GNU_SOURCE
#include "driver.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hx_proto.h"

#define MAX_BUFS 256
#define ERR_CAP 900

typedef struct {
  int used;
  uint64_t n, elem, bytes;  /* bytes: the whole region, guards included */
  unsigned char *shared;    /* the test's memfd, mapped */
  void *dev;                /* the device copy (the shared mapping itself on cpu) */
} buffer;

struct drv_call {
  char fn[HXP_NAME_MAX];
  drv_fn call;
  uint32_t nargs;
  hxp_arg args[HXP_MAX_ARGS];
};

static buffer bufs[MAX_BUFS];
static drv_call slots[HXP_MAX_SLOTS];
static int control = HXP_CONTROL_FD;

/* ---- replies ------------------------------------------------------------------------------ */

static void send_reply(hxp_reply *r) {
  r->magic = HXP_MAGIC;
  while (send(control, r, sizeof *r, MSG_NOSIGNAL) < 0 && errno == EINTR) {
  }
}

static void reply_status(uint32_t type, uint32_t status, const char *text) {
  hxp_reply r;
  memset(&r, 0, sizeof r);
  r.type = type;
  r.status = status;
  if (text) snprintf(r.text, sizeof r.text, "%s", text);
  send_reply(&r);
}

void drv_die(const char *fmt, ...) {
  char msg[ERR_CAP];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  fprintf(stderr, "driver: %s\n", msg);
  reply_status(0, HXS_FATAL, msg);
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

static int buf_new(const hxp_request *q, int fd, char *err) {
  if (fd < 0 || q->id >= MAX_BUFS || bufs[q->id].used || q->elem == 0 || q->elem > 4096 ||
      q->n > ((uint64_t)1 << 40) / q->elem) {
    snprintf(err, ERR_CAP, "bad buffer request (id %u)", q->id);
    if (fd >= 0) close(fd);
    return -1;
  }
  buffer *b = &bufs[q->id];
  b->n = q->n;
  b->elem = q->elem;
  b->bytes = q->n * q->elem + 2 * HXP_GUARD_BYTES;
  b->shared = (unsigned char *)mmap(NULL, b->bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (b->shared == MAP_FAILED) {
    snprintf(err, ERR_CAP, "cannot map a shared buffer of %llu bytes: %s",
             (unsigned long long)b->bytes, strerror(errno));
    return -1;
  }
  if (drv_dev_is_host()) {
    b->dev = b->shared;
  } else if (drv_dev_alloc(&b->dev, b->bytes, err, ERR_CAP) != 0) {
    munmap(b->shared, b->bytes);
    return -1;
  }
  b->used = 1;
  return 0;
}

static void buf_free(uint32_t id) {
  if (id >= MAX_BUFS || !bufs[id].used) return;
  buffer *b = &bufs[id];
  if (!drv_dev_is_host()) drv_dev_free(b->dev);
  munmap(b->shared, b->bytes);
  memset(b, 0, sizeof *b);
}

/* ---- calls ---------------------------------------------------------------------------------- */

static drv_fn lookup(const char *name) {
  for (const drv_entry *e = drv_table; e->name; e++)
    if (strcmp(e->name, name) == 0) return e->fn;
  return NULL;
}

/* Copies a slot's inputs in and poisons or generates the rest; no student code runs. */
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
  for (uint32_t k = 0; k < c->nargs; k++) {
    hxp_arg *a = &c->args[k];
    if (a->kind == HXA_BYTES && a->nbytes > sizeof a->bytes) a->nbytes = sizeof a->bytes;
    if (a->kind != HXA_BUF) continue;
    if (a->buf >= MAX_BUFS || !bufs[a->buf].used) {
      snprintf(err, ERR_CAP, "%s: argument %u names no buffer", c->fn, k);
      return -1;
    }
    buffer *b = &bufs[a->buf];
    int rc = 0;
    if (a->flags & HXF_UPLOAD) {
      if (!drv_dev_is_host()) rc = drv_dev_upload(b->dev, b->shared, b->bytes, err, ERR_CAP);
    } else if (a->flags & (HXF_POISON | HXF_GEN)) {
      rc = drv_dev_poison(b->dev, b->bytes, err, ERR_CAP);
    }
    if (rc == 0 && (a->flags & HXF_GEN)) {
      if (b->elem != 4) {
        snprintf(err, ERR_CAP, "%s: generated inputs are 32-bit ints", c->fn);
        return -1;
      }
      rc = drv_dev_generate((int32_t *)((unsigned char *)b->dev + HXP_GUARD_BYTES), b->n,
                            a->gen.seed, a->gen.lo, a->gen.hi, err, ERR_CAP);
    }
    if (rc != 0) return -1;
  }
  return drv_dev_sync(err, ERR_CAP) == 0 ? 0 : -1;
}

/* Copies a slot's buffers back to the shared mappings. */
static int finish(uint32_t slot, char *err) {
  if (slot >= HXP_MAX_SLOTS) return -1;
  drv_call *c = &slots[slot];
  if (drv_dev_is_host()) return 0;
  for (uint32_t k = 0; k < c->nargs; k++) {
    const hxp_arg *a = &c->args[k];
    if (a->kind != HXA_BUF || !(a->flags & HXF_DOWNLOAD)) continue;
    if (a->buf >= MAX_BUFS || !bufs[a->buf].used) continue;
    buffer *b = &bufs[a->buf];
    if (drv_dev_download(b->shared, b->dev, b->bytes, err, ERR_CAP) != 0) return -1;
  }
  return 0;
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

int main(void) {
  char err[ERR_CAP];
  int spin = 0;
  if (drv_dev_init(err, sizeof err) != 0) {
    reply_status(HXP_HELLO, HXS_FATAL, err);
    return 4;
  }
  for (;;) {
    hxp_request q;
    int fd = -1;
    ssize_t got = receive(&q, &fd, spin);
    if (got <= 0) return 0; /* the test went away */
    if ((size_t)got != sizeof q || q.magic != HXP_MAGIC || q.version != HXP_VERSION) {
      if (fd >= 0) close(fd);
      drv_die("malformed request");
    }
    err[0] = '\0';
    switch (q.type) {
      case HXP_HELLO: {
        hxp_reply r;
        memset(&r, 0, sizeof r);
        r.type = HXP_HELLO;
        snprintf(r.backend, sizeof r.backend, "%s", drv_backend());
        drv_dev_info(r.device, sizeof r.device, &r.l2_bytes, &r.free_bytes, &r.total_bytes);
        send_reply(&r);
        break;
      }
      case HXP_BUF_NEW:
        if (buf_new(&q, fd, err) != 0) reply_status(q.type, HXS_ERROR, err);
        else reply_status(q.type, HXS_OK, NULL);
        break;
      case HXP_BUF_FREE:
        buf_free(q.id);
        reply_status(q.type, HXS_OK, NULL);
        break;
      case HXP_PREP: {
        int rc = prep(&q, err);
        reply_status(q.type, rc == 0 ? HXS_OK : HXS_ERROR, rc == 0 ? NULL : err);
        break;
      }
      case HXP_RUN: {
        hxp_reply r;
        memset(&r, 0, sizeof r);
        r.type = HXP_RUN;
        if (q.slot >= HXP_MAX_SLOTS || q.count > HXP_MAX_SLOTS - q.slot) {
          reply_status(q.type, HXS_ERROR, "bad slot range");
          break;
        }
        uint64_t d0, h0, d1, h1, c0[HXP_COUNTERS] = {0}, c1[HXP_COUNTERS] = {0};
        drv_dev_copy_counters(&d0, &h0);
        const int counted = drv_dev_probe_counters(c0, HXP_COUNTERS);
        for (uint32_t s = q.slot; s < q.slot + q.count; s++) {
          drv_call *c = &slots[s];
          if (!c->call) drv_die("slot %u was not prepared", s);
          r.ret = c->call(c);
        }
        int rc = drv_dev_sync(r.text, sizeof r.text);
        drv_dev_copy_counters(&d1, &h1);
        r.d2h = d1 - d0;
        r.h2d = h1 - h0;
        if (counted > 0 && drv_dev_probe_counters(c1, HXP_COUNTERS) == counted) {
          r.counted = (uint32_t)counted;
          for (int k = 0; k < counted; k++) r.counters[k] = c1[k] - c0[k];
        }
        r.status = rc == 0 ? HXS_OK : rc == 2 ? HXS_FATAL : HXS_ERROR;
        send_reply(&r);
        break;
      }
      case HXP_FINISH: {
        int rc = finish(q.slot, err);
        reply_status(q.type, rc == 0 ? HXS_OK : HXS_FATAL, rc == 0 ? NULL : err);
        break;
      }
      case HXP_EXIT:
        fflush(stdout);
        fflush(stderr);
        _exit(0);
      default:
        if (fd >= 0) close(fd);
        drv_die("unknown request %u", q.type);
    }
    spin = (int)q.spin; /* a timing test: poll for the next request rather than sleep */
    fflush(stdout);
    fflush(stderr);
  }
}
