/**
 * @file harness.c
 * @brief The harness's test side: parameters, verdicts over the grader's channel, array checks,
 *        seeded inputs, clocks.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"
#include "harness_internal.h"

#include <CUnit/CUnit.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- state of the running test ------------------------------------------------------- */

#define HX_MAX_PARAMS 64
#define HX_MSG_MAX 1024
#define HX_MAX_REPORTED 8 /* failures reported in full per test; the rest are counted */

static struct {
  char *key[HX_MAX_PARAMS];
  char *value[HX_MAX_PARAMS];
  int count;
} params;

static struct {
  int failures;
  int skipped;
  char skip_reason[HX_MSG_MAX];
} current;

static int channel = -1;

void hx_internal_set_channel(int fd) { channel = fd; }
int hx_internal_channel_open(void) { return channel >= 0; }

void hx_internal_add_param(const char *key, const char *value) {
  if (params.count == HX_MAX_PARAMS) {
    fprintf(stderr, "harness: more than %d parameters\n", HX_MAX_PARAMS);
    exit(2);
  }
  params.key[params.count] = strdup(key);
  params.value[params.count] = strdup(value);
  params.count++;
}

void hx_internal_begin_test(void) {
  current.failures = 0;
  current.skipped = 0;
  current.skip_reason[0] = '\0';
}

int hx_internal_skipped(const char **reason) {
  if (reason) *reason = current.skip_reason;
  return current.skipped;
}

/* ---- the channel: one JSON object per line ---------------------------------------------- */

static void json_escape(FILE *f, const char *s) {
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
}

void hx_internal_send(const char *event, const char *key, const char *text, double value) {
  if (channel < 0) return;
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  if (!f) return;
  fprintf(f, "{\"event\":\"%s\"", event);
  if (key) { fputs(",\"key\":\"", f); json_escape(f, key); fputc('"', f); }
  if (text) { fputs(",\"text\":\"", f); json_escape(f, text); fputc('"', f); }
  if (isfinite(value)) fprintf(f, ",\"value\":%.9g", value);
  fputs("}\n", f);
  fclose(f);
  size_t off = 0;
  while (off < len) {
    ssize_t w = write(channel, buf + off, len - off);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) break;
    off += (size_t)w;
  }
  free(buf);
}

/* ---- verdicts ---------------------------------------------------------------------------- */

static void record_failure(const char *file, int line, const char *msg) {
  current.failures++;
  if (current.failures <= HX_MAX_REPORTED) {
    /* CUnit copies the condition text, so a stack buffer is fine. */
    CU_assertImplementation(CU_FALSE, (unsigned)line, msg, file, "", CU_FALSE);
    hx_internal_send("fail", NULL, msg, NAN);
    fprintf(stdout, "test: FAIL: %s\n", msg); /* for the test's log (the verdict is the channel's) */
    fflush(stdout);
  } else if (current.failures == HX_MAX_REPORTED + 1) {
    const char *more = "(further failures of this test are counted, not shown)";
    hx_internal_send("fail", NULL, more, NAN);
    fprintf(stdout, "test: FAIL: %s\n", more);
    CU_assertImplementation(CU_FALSE, (unsigned)line, more, file, "", CU_FALSE);
  } else {
    CU_assertImplementation(CU_FALSE, (unsigned)line, "further failure", file, "", CU_FALSE);
  }
}

void hx_fail_at(const char *file, int line, const char *fmt, ...) {
  char msg[HX_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  record_failure(file, line, msg);
}

void hx_not_counted(const char *test) {
  hx_fail_at(__FILE__, __LINE__, "%s counts memory only for a right answer: the wrong answer above is the fault (the "
             "correctness tests name it too), not the code's use of memory", test);
}

void hx_skip(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(current.skip_reason, sizeof current.skip_reason, fmt, ap);
  va_end(ap);
  current.skipped = 1;
}

void hx_metric(const char *name, double value) {
  hx_internal_send("metric", name, NULL, value);
  fprintf(stdout, "test: metric %s = %.6g\n", name, value);
}

void hx_note(const char *fmt, ...) {
  char msg[HX_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  hx_internal_send("note", NULL, msg, NAN);
  fprintf(stdout, "test: note: %s\n", msg);
}

int hx_failures(void) { return current.failures; }

/* ---- parameters -------------------------------------------------------------------------- */

static const char *lookup(const char *key) {
  for (int i = params.count - 1; i >= 0; i--)
    if (strcmp(params.key[i], key) == 0) return params.value[i];
  return NULL;
}

int hx_param_has(const char *key) { return lookup(key) != NULL; }

static const char *require(const char *key) {
  const char *v = lookup(key);
  if (!v) HX_FAIL("manifest error: the test needs parameter '%s' (add it to the lab's manifest)", key);
  return v;
}

long long hx_param_int(const char *key) {
  const char *v = require(key);
  if (!v) return 0;
  char *end;
  errno = 0;
  long long x = strtoll(v, &end, 0);
  if (errno || end == v || *end) {
    HX_FAIL("manifest error: parameter '%s' = '%s' is not an integer", key, v);
    return 0;
  }
  return x;
}

double hx_param_double(const char *key) {
  const char *v = require(key);
  if (!v) return 0;
  char *end;
  errno = 0;
  double x = strtod(v, &end);
  if (errno || end == v || *end) {
    HX_FAIL("manifest error: parameter '%s' = '%s' is not a number", key, v);
    return 0;
  }
  return x;
}

const char *hx_param_str(const char *key) {
  const char *v = require(key);
  return v ? v : "";
}

int hx_param_words(const char *key, hx_words *out) {
  out->n = -1;
  const char *v = require(key);
  if (!v) return -1;
  if (strlen(v) >= sizeof out->buf) {
    HX_FAIL("manifest error: parameter '%s' is longer than %d characters", key, HX_WORDS_CHARS - 1);
    return -1;
  }
  strcpy(out->buf, v);
  out->n = 0;
  for (char *save = NULL, *t = strtok_r(out->buf, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
    if (out->n == HX_WORDS_MAX) {
      HX_FAIL("manifest error: parameter '%s' has more than %d words", key, HX_WORDS_MAX);
      out->n = -1;
      return -1;
    }
    out->w[out->n++] = t;
  }
  return out->n;
}

int hx_param_int_list(const char *key, long long *out, int max) {
  const char *v = require(key);
  if (!v) return -1;
  int count = 0;
  const char *p = v;
  while (*p) {
    char *end;
    errno = 0;
    long long x = strtoll(p, &end, 0);
    if (errno || end == p) {
      HX_FAIL("manifest error: parameter '%s' = '%s' is not a list of integers", key, v);
      return -1;
    }
    if (count == max) {
      HX_FAIL("manifest error: parameter '%s' has more than %d values", key, max);
      return -1;
    }
    out[count++] = x;
    p = end;
    while (*p == ' ') p++;
    if (*p == ',') p++;
    while (*p == ' ') p++;
  }
  return count;
}

uint64_t hx_seed(void) { return (uint64_t)hx_param_int("seed"); }

/* ---- array checks ------------------------------------------------------------------------ */

const char *hx_ctx(const char *fmt, ...) {
  static char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

int hx_emu_fill_notes = 0;

const char *hx_poison_note(const void *p, size_t size, size_t index) {
  static const char note[] = " (the poison value: never written)";
  const unsigned char *b = (const unsigned char *)p;
  int dead = size > 0, ef = size > 0;
  for (size_t k = 0; k < size; k++) {
    const size_t at = index * size + k; /* the byte's offset in the output, whose words were 0xDEADBEEF */
    dead &= b[k] == (unsigned char)(0xDEADBEEFu >> (8 * (at % 4)));
    ef &= b[k] == 0xEFu;
  }
  if (dead || ef) return note;
  /* 0xCDCDCDCD (-842150451), or within 255 of it, on the emu: shared memory no thread of the
   * block wrote (the emulator fills it so), read and perhaps added to a little */
  int32_t w = 0;
  if (size == 4) memcpy(&w, p, 4);
  const int64_t off = (int64_t)w - (int32_t)0xCDCDCDCDu;
  if (!hx_emu_fill_notes) return "";
  if (size == 4 && off == 0)
    return " (0xCDCDCDCD: on the emu, shared memory that no thread wrote before it was read)";
  if (size == 4 && off > -256 && off < 256)
    return " (near 0xCDCDCDCD, -842150451: on the emu, shared memory that no thread wrote before it was read, then "
           "added to)";
  return "";
}

size_t hx_check_i32(const char *ctx, const int32_t *expected, const int32_t *got, size_t n) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n; i++)
    if (expected[i] != got[i] && bad++ == 0) first = i;
  if (bad)
    HX_FAIL("%s: first mismatch at [%zu]: expected %d, got %d%s (%zu mismatch%s)", ctx, first,
            (int)expected[first], (int)got[first], hx_poison_note(&got[first], 4, first), bad,
            bad == 1 ? "" : "es");
  return bad;
}

size_t hx_report_i32(const char *ctx, const hxv_result *r) {
  if (r->count) {
    const int32_t g = (int32_t)r->got;
    HX_FAIL("%s: first mismatch at [%zu]: expected %d, got %d%s (%zu mismatch%s)", ctx, r->first, (int)r->expected,
            (int)r->got, hx_poison_note(&g, 4, 0), r->count, r->count == 1 ? "" : "es");
  }
  return r->count;
}

size_t hx_check_f32(const char *ctx, const float *expected, const float *got, size_t n,
                    double rtol, double atol) {
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n; i++) {
    double e = expected[i], g = got[i];
    int ok = !isnan(g) && !isnan(e) && fabs(g - e) <= atol + rtol * fabs(e);
    if (isinf(e) && g == e) ok = 1;
    if (!ok && bad++ == 0) first = i;
  }
  if (bad)
    HX_FAIL("%s: first mismatch at [%zu]: expected %.9g, got %.9g%s (tolerance %.1e + %.1e*|expected|;"
            " %zu mismatch%s)", ctx, first, (double)expected[first], (double)got[first],
            hx_poison_note(&got[first], 4, first), atol, rtol, bad, bad == 1 ? "" : "es");
  return bad;
}

/* One element of @p size bytes, as a reader wants it: a number for 1, 2 and 4 bytes (4: signed,
 * and its bits), hexadecimal 32-bit words for larger elements. */
static void format_element(char *out, size_t cap, const unsigned char *p, size_t size) {
  if (size == 1) {
    snprintf(out, cap, "%u (0x%02x)", p[0], p[0]);
  } else if (size == 2) {
    uint16_t v;
    memcpy(&v, p, 2);
    snprintf(out, cap, "%u (0x%04x)", (unsigned)v, (unsigned)v);
  } else if (size == 4) {
    int32_t v;
    memcpy(&v, p, 4);
    snprintf(out, cap, "%d (0x%08x)", (int)v, (unsigned)(uint32_t)v);
  } else {
    out[0] = '\0';
    const size_t words = size / 4 < 8 ? size / 4 : 8;
    snprintf(out, cap, "{");
    for (size_t w = 0; w < words; w++) {
      uint32_t a;
      memcpy(&a, p + 4 * w, 4);
      snprintf(out + strlen(out), cap - strlen(out), "%s%08x", w ? " " : "", a);
    }
    snprintf(out + strlen(out), cap - strlen(out), "%s}", size / 4 > words ? " ..." : "");
  }
}

size_t hx_check_bytes(const char *ctx, const void *expected, const void *got, size_t n,
                      size_t size) {
  const unsigned char *e = (const unsigned char *)expected, *g = (const unsigned char *)got;
  size_t bad = 0, first = 0;
  for (size_t i = 0; i < n; i++)
    if (memcmp(e + i * size, g + i * size, size) != 0 && bad++ == 0) first = i;
  if (bad) {
    char es[128], gs[128];
    format_element(es, sizeof es, e + first * size, size);
    format_element(gs, sizeof gs, g + first * size, size);
    HX_FAIL("%s: first mismatch at [%zu]: expected %s, got %s%s (%zu mismatch%s)", ctx, first, es, gs,
            hx_poison_note(g + first * size, size, first), bad, bad == 1 ? "" : "es");
  }
  return bad;
}

/* ---- seeded inputs (splitmix64) ---------------------------------------------------------- */

hx_rng hx_rng_make(uint64_t seed) {
  hx_rng r = {seed ^ 0x5CA11AB5EEDULL};
  return r;
}

uint64_t hx_rng_next(hx_rng *r) {
  uint64_t z = (r->s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

int32_t hx_rng_range(hx_rng *r, int32_t lo, int32_t hi) {
  uint64_t span = (uint64_t)((int64_t)hi - (int64_t)lo) + 1;
  return (int32_t)((int64_t)lo + (int64_t)(hx_rng_next(r) % span));
}

float hx_rng_float(hx_rng *r, float lo, float hi) {
  double u = (double)(hx_rng_next(r) >> 11) * (1.0 / 9007199254740992.0);
  return (float)(lo + (hi - lo) * u);
}

void hx_fill_i32(int32_t *a, size_t n, uint64_t seed, int32_t lo, int32_t hi) {
  hx_rng r = hx_rng_make(seed);
  for (size_t i = 0; i < n; i++) a[i] = hx_rng_range(&r, lo, hi);
}

void hx_fill_f32(float *a, size_t n, uint64_t seed, float lo, float hi) {
  hx_rng r = hx_rng_make(seed);
  for (size_t i = 0; i < n; i++) a[i] = hx_rng_float(&r, lo, hi);
}

void hx_fill_flags(int32_t *a, size_t n, uint64_t seed, int mean_len) {
  hx_rng r = hx_rng_make(seed);
  if (mean_len < 1) mean_len = 1;
  for (size_t i = 0; i < n; i++) a[i] = i == 0 || hx_rng_next(&r) % (uint64_t)mean_len == 0;
}

/* ---- host memory and timing -------------------------------------------------------------- */

void *hx_malloc(size_t bytes) {
  void *p = malloc(bytes ? bytes : 1);
  if (!p) HX_FAIL("out of host memory allocating %zu bytes", bytes);
  return p;
}

double hx_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

double hx_median(double *v, int n) {
  if (n <= 0) return NAN;
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
