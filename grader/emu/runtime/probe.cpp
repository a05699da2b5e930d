/**
 * @file probe.cpp
 * @brief Memory probes of the emulation backend: per-launch counters named as Nsight Compute
 *        names them, and a race detector for shared memory and for global memory within a block.
 *
 * Active only in programs whose `.cu` files were compiled with the probe flags (`EMU_PROBE`,
 * see @ref emu): GCC's ThreadSanitizer instrumentation then calls `__tsan_readN` and
 * `__tsan_writeN` before every load and store, and this file, not libtsan, defines them. Each
 * call appends the access to the log of the CUDA thread running now. When all threads of a
 * block meet at `__syncthreads`, and when the block ends, the logs of that stretch (an epoch)
 * are read twice:
 *
 * 1. grouped per warp and per instruction (the k-th execution of one instruction by each lane
 *    of a warp is one warp-level instruction, as the lanes of a converged warp issue it), each
 *    group is costed as the hardware costs it: a global request and its 32-byte sectors, a
 *    shared request and its wavefronts (the largest number of distinct 4-byte words any bank
 *    must deliver, per phase of 32, 16 or 8 lanes for 4-, 8- and 16-byte accesses);
 * 2. every address touched by two threads, at least one writing, is checked for an order
 *    between them: within an epoch only a warp collective (`__syncwarp`, shuffles, votes)
 *    orders two lanes of one warp, and nothing orders threads of different warps.
 *
 * Both depend only on what each thread accessed between two barriers, not on the order in
 * which the emulator ran the threads, so the verdicts are the same under every schedule.
 */
#include "emu_internal.h"

#include <dlfcn.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

namespace scanlab_emu {

bool g_probe_on = false;

namespace {

struct Access {
  uintptr_t pc;     /* return address of the probe call: one per instruction of the source */
  uintptr_t addr;   /* the address */
  uintptr_t vaddr;  /* shared: the offset in the block's shared window (banks); global: addr */
  uint32_t phase;   /* warp collectives this thread had passed */
  uint8_t size;
  uint8_t shared;
  uint8_t write;
  uint8_t vol;      /* a volatile access (status words polled in a spin loop, ...) */
};

struct Range {
  uintptr_t lo, hi, vbase;
};

enum Metric {
  G_LD_REQ, G_LD_SECT, G_ST_REQ, G_ST_SECT, S_LD_WAVE, S_LD_CONF, S_ST_WAVE, S_ST_CONF, N_METRICS
};
const char *const METRIC_NAMES[N_METRICS] = {
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
};
/* derived, for the efficiency tests: shared requests (one per warp-level instruction), and the
 * global load sectors of volatile loads (a look-back's polling: how often a tile reads its
 * neighbours' status words depends on the schedule, the data traffic does not) */
enum { S_LD_REQ = N_METRICS, S_ST_REQ, G_LD_VOL_SECT, N_COUNTS };

const size_t LOG_CAP = (size_t)1 << 22; /* accesses kept per thread and epoch */

struct Probe {
  std::vector<std::vector<Access>> logs;
  std::vector<uint32_t> phase;
  std::vector<Range> shared;  /* dynamic shared memory and the static arrays reached */
  uintptr_t sh_lo = 0, sh_hi = 0;
  uintptr_t sh_next = 0;      /* next free offset in the shared window */
  unsigned long long counts[N_COUNTS];
  bool truncated = false;
  /* scratch */
  std::vector<uint64_t> scratch;
};

/* device memory of the running launch, sorted by start */
std::vector<std::pair<uintptr_t, uintptr_t>> g_dev;
uintptr_t g_dev_lo = 0, g_dev_hi = 0;
bool g_race_on = true;
const char *g_profile_path = nullptr;
std::string g_race_msg; /* the first race of the running launch */
std::mutex g_race_mutex;
const LaunchInfo *g_launch = nullptr;

Probe *probe_of(Worker *w) {
  if (!w->probe) w->probe = new Probe();
  return (Probe *)w->probe;
}

__thread uintptr_t t_last_lo = 1, t_last_hi = 0; /* the allocation this thread hit last */
__thread unsigned long long t_last_serial = ~0ull;
unsigned long long g_launch_serial = 0;

inline bool is_device(uintptr_t a) {
  if (a - t_last_lo < t_last_hi - t_last_lo && t_last_serial == g_launch_serial) return true;
  if (a < g_dev_lo || a >= g_dev_hi) return false;
  auto it = std::upper_bound(g_dev.begin(), g_dev.end(), std::make_pair(a, ~(uintptr_t)0));
  if (it == g_dev.begin()) return false;
  --it;
  if (a >= it->second) return false;
  t_last_lo = it->first;
  t_last_hi = it->second;
  t_last_serial = g_launch_serial;
  return true;
}

inline void record(const volatile void *p, unsigned size, unsigned write, void *ret, unsigned vol = 0) {
  Fiber *f = (Fiber *)tls.fiber;
  if (!f) return;
  const uintptr_t a = (uintptr_t)p;
  if (a - (uintptr_t)f->stack.lo < (uintptr_t)(f->stack.hi - f->stack.lo)) return; /* its own stack */
  Probe *pr = (Probe *)((Worker *)tls.worker)->probe;
  Access x;
  x.shared = 0;
  if (a >= pr->sh_lo && a < pr->sh_hi) {
    for (const Range &r : pr->shared)
      if (a >= r.lo && a < r.hi) {
        x.shared = 1;
        x.vaddr = r.vbase + (a - r.lo);
        break;
      }
  }
  if (!x.shared) {
    if (!is_device(a)) return;
    x.vaddr = a;
  }
  std::vector<Access> &log = pr->logs[(size_t)f->tid];
  if (log.size() >= LOG_CAP) {
    pr->truncated = true;
    return;
  }
  /* filled in place, field by field: a whole Access built on the stack and copied in costs a
     stalled 16-byte load (the fields were just stored one by one) on every access */
  Access &y = log.emplace_back();
  y.pc = (uintptr_t)ret;
  y.addr = a;
  y.vaddr = x.vaddr;
  y.phase = pr->phase[(size_t)f->tid];
  y.size = (uint8_t)size;
  y.shared = x.shared;
  y.write = (uint8_t)write;
  y.vol = (uint8_t)vol;
}

void add_shared_range(Probe *pr, uintptr_t lo, size_t bytes) {
  for (const Range &r : pr->shared)
    if (r.lo == lo) return;
  const uintptr_t vbase = (pr->sh_next + 127) & ~(uintptr_t)127; /* each array starts a bank row */
  pr->shared.push_back(Range{lo, lo + bytes, vbase});
  pr->sh_next = vbase + bytes;
  if (!pr->sh_lo || lo < pr->sh_lo) pr->sh_lo = lo;
  if (lo + bytes > pr->sh_hi) pr->sh_hi = lo + bytes;
}

/* ---------------------------------------------------------------- counting */

void cost_group(Probe *pr, const Access *const *g, const uint8_t *lanes, int n) {
  const Access &a0 = *g[0];
  uint64_t *s = pr->scratch.data();
  int k = 0;
  if (!a0.shared) {
    bool simple = true;
    uintptr_t prev = 0;
    int sectors = 0;
    for (int i = 0; i < n && simple; i++) {
      const uintptr_t q = g[i]->vaddr >> 5;
      if (((g[i]->vaddr + g[i]->size - 1) >> 5) != q || (i && q < prev)) simple = false;
      sectors += !i || q != prev;
      prev = q;
    }
    if (simple) { /* one sector per lane, in increasing order: count the changes */
      pr->counts[a0.write ? G_ST_REQ : G_LD_REQ] += 1;
      pr->counts[a0.write ? G_ST_SECT : G_LD_SECT] += (unsigned long long)sectors;
      if (a0.vol && !a0.write) pr->counts[G_LD_VOL_SECT] += (unsigned long long)sectors;
      return;
    }
    for (int i = 0; i < n; i++)
      for (uintptr_t q = g[i]->vaddr >> 5; q <= (g[i]->vaddr + g[i]->size - 1) >> 5; q++) s[k++] = q;
    std::sort(s, s + k);
    sectors = (int)(std::unique(s, s + k) - s);
    pr->counts[a0.write ? G_ST_REQ : G_LD_REQ] += 1;
    pr->counts[a0.write ? G_ST_SECT : G_LD_SECT] += (unsigned long long)sectors;
    if (a0.vol && !a0.write) pr->counts[G_LD_VOL_SECT] += (unsigned long long)sectors;
    return;
  }
  /* shared: lanes in phases of 128 bytes' worth of accesses */
  int maxsize = 4;
  for (int i = 0; i < n; i++) maxsize = std::max(maxsize, (int)g[i]->size);
  if (maxsize == 4) { /* one word per lane: no two words in one bank means one wavefront */
    unsigned banks = 0;
    uintptr_t word[32];
    bool clash = false;
    for (int i = 0; i < n && !clash; i++) {
      const uintptr_t wd = g[i]->vaddr >> 2;
      const unsigned bit = 1u << (wd & 31);
      if (banks & bit) {
        clash = true;
        for (int j = 0; j < i; j++)
          if (word[j] == wd) clash = false; /* the same word: a broadcast */
      }
      banks |= bit;
      word[i] = wd;
      if ((g[i]->vaddr & 3) && ((g[i]->vaddr + g[i]->size - 1) >> 2) != wd) clash = true;
    }
    if (!clash) {
      pr->counts[a0.write ? S_ST_WAVE : S_LD_WAVE] += 1;
      pr->counts[a0.write ? S_ST_REQ : S_LD_REQ] += 1;
      return;
    }
  }
  const int lanes_per_phase = maxsize >= 16 ? 8 : maxsize >= 8 ? 16 : 32;
  unsigned long long waves = 0, phases = 0;
  for (int ph = 0; ph < 32 / lanes_per_phase; ph++) {
    k = 0;
    for (int i = 0; i < n; i++) {
      const int lane = lanes[i];
      if (lane / lanes_per_phase != ph) continue;
      for (uintptr_t wd = g[i]->vaddr >> 2; wd <= (g[i]->vaddr + g[i]->size - 1) >> 2; wd++)
        s[k++] = ((wd & 31) << 58) | (wd & (((uint64_t)1 << 58) - 1));
    }
    if (!k) continue;
    std::sort(s, s + k);
    k = (int)(std::unique(s, s + k) - s);
    int best = 0;
    for (int i = 0; i < k;) {
      int j = i;
      while (j < k && (s[j] >> 58) == (s[i] >> 58)) j++;
      best = std::max(best, j - i);
      i = j;
    }
    waves += (unsigned long long)best;
    phases++;
  }
  pr->counts[a0.write ? S_ST_WAVE : S_LD_WAVE] += waves;
  pr->counts[a0.write ? S_ST_CONF : S_LD_CONF] += waves - phases;
  pr->counts[a0.write ? S_ST_REQ : S_LD_REQ] += 1;
}

void count_epoch(Worker *w, Probe *pr) {
  const int n = w->nthreads;
  if (pr->scratch.size() < 32 * 8) pr->scratch.resize(32 * 8);
  for (int w0 = 0; w0 < n; w0 += 32) {
    const int m = std::min(32, n - w0);
    /* fast path: every lane that accessed memory ran the same instructions */
    int first = -1;
    bool same = true;
    for (int l = 0; l < m && same; l++) {
      const std::vector<Access> &L = pr->logs[(size_t)(w0 + l)];
      if (L.empty()) continue;
      if (first < 0) {
        first = l;
        continue;
      }
      const std::vector<Access> &F = pr->logs[(size_t)(w0 + first)];
      if (L.size() != F.size()) {
        same = false;
        break;
      }
      for (size_t i = 0; i < L.size(); i++)
        if (L[i].pc != F[i].pc) {
          same = false;
          break;
        }
    }
    if (first < 0) continue;
    const Access *g[32];
    uint8_t lanes[32];
    if (same) {
      const size_t len = pr->logs[(size_t)(w0 + first)].size();
      const Access *base[32];
      int k = 0;
      for (int l = 0; l < m; l++) {
        const std::vector<Access> &L = pr->logs[(size_t)(w0 + l)];
        if (L.empty()) continue;
        base[k] = L.data();
        lanes[k++] = (uint8_t)l;
      }
      for (size_t i = 0; i < len; i++) {
        for (int j = 0; j < k; j++) g[j] = base[j] + i;
        cost_group(pr, g, lanes, k);
      }
      continue;
    }
    /* general: the k-th execution of an instruction by each lane */
    struct Key {
      uintptr_t pc;
      uint32_t occ;
      bool operator==(const Key &o) const { return pc == o.pc && occ == o.occ; }
    };
    struct KeyHash {
      size_t operator()(const Key &k) const { return std::hash<uintptr_t>()(k.pc * 31 + k.occ); }
    };
    std::unordered_map<Key, std::vector<std::pair<const Access *, uint8_t>>, KeyHash> groups;
    std::vector<Key> order;
    for (int l = 0; l < m; l++) {
      std::unordered_map<uintptr_t, uint32_t> occ;
      for (const Access &x : pr->logs[(size_t)(w0 + l)]) {
        Key key{x.pc, occ[x.pc]++};
        auto it = groups.find(key);
        if (it == groups.end()) {
          it = groups.emplace(key, std::vector<std::pair<const Access *, uint8_t>>()).first;
          order.push_back(key);
        }
        it->second.emplace_back(&x, (uint8_t)l);
      }
    }
    for (const Key &key : order) {
      const auto &v = groups[key];
      for (size_t i = 0; i < v.size(); i++) {
        g[i] = v[i].first;
        lanes[i] = v[i].second;
      }
      cost_group(pr, g, lanes, (int)v.size());
    }
  }
}

/* ---------------------------------------------------------------- races */

std::string where(uintptr_t pc) {
  Dl_info info;
  char buf[512];
  if (!dladdr((void *)pc, &info) || !info.dli_fname) {
    snprintf(buf, sizeof buf, "pc %#lx", (unsigned long)pc);
    return buf;
  }
  const unsigned long off = (unsigned long)(pc - 1 - (uintptr_t)info.dli_fbase);
  std::string path = info.dli_fname;
  if (path.empty() || path.find('/') == std::string::npos) {
    char self[4096];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    if (k > 0) {
      self[k] = 0;
      path = self;
    }
  }
  if (access(path.c_str(), R_OK) != 0) { /* a program whose folder is hidden (the grader's sandbox) */
    char self[64];
    snprintf(self, sizeof self, "/proc/%ld/exe", (long)getpid());
    char real[4096];
    ssize_t k = readlink(self, real, sizeof real - 1);
    if (k > 0 && (size_t)k == path.size() && !memcmp(real, path.data(), (size_t)k)) path = self;
  }
  snprintf(buf, sizeof buf, "addr2line -e '%s' %#lx 2>/dev/null", path.c_str(), off);
  std::string out;
  if (FILE *p = popen(buf, "r")) {
    if (fgets(buf, sizeof buf, p)) out = buf;
    pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  size_t d = out.find(" (discriminator");
  if (d != std::string::npos) out.resize(d);
  if (out.empty() || out[0] == '?') {
    snprintf(buf, sizeof buf, "%s+%#lx", path.c_str(), off);
    return buf;
  }
  size_t slash = out.rfind('/', out.rfind(':'));
  return slash == std::string::npos ? out : out.substr(slash + 1);
}

struct Who {       /* 16 bytes: a cell fits in 96 */
  uintptr_t pc;
  uint32_t phase;
  uint16_t tid;
  uint8_t mask;    /* bytes of the 8-byte granule */
  uint8_t write;
};
struct Cell {
  uintptr_t key;   /* granule address / 8 + 1 */
  uint32_t gen;    /* the epoch that filled it; another: empty */
  uint8_t shared;
  uint8_t nw, nr;  /* slots used */
  Who w[2];        /* writes */
  Who r[3];        /* reads, from distinct threads */
};
__thread std::vector<Cell> *t_table = nullptr;
__thread uint32_t t_gen = 0;

bool ordered(const Who &a, int tid, uint32_t phase) {
  if (a.tid == tid) return true;
  if ((a.tid >> 5) != (tid >> 5)) return false;
  return a.phase != phase;
}

struct Race {
  Who a, b;
  uintptr_t addr;
  bool shared;
};

bool check_races(Worker *w, Probe *pr, Race *race) {
  size_t total = 0;
  for (int t = 0; t < w->nthreads; t++) total += pr->logs[(size_t)t].size();
  if (!total) return false;
  size_t cap = 64;
  while (cap < total * 2) cap <<= 1;
  if (!t_table) t_table = new std::vector<Cell>();
  std::vector<Cell> &table = *t_table;
  if (table.size() < cap || ++t_gen == 0) {
    if (table.size() < cap) table.resize(cap);
    for (Cell &c : table) c.gen = 0;
    t_gen = 1;
  }
  /* only the first `cap` cells: a small epoch after a large one stays in the cache */
  const uint32_t gen = t_gen;
  for (int t = 0; t < w->nthreads; t++) {
    for (const Access &x : pr->logs[(size_t)t]) {
      for (uintptr_t gaddr = x.addr & ~(uintptr_t)7; gaddr < x.addr + x.size; gaddr += 8) {
        const uintptr_t key = (gaddr >> 3) + 1;
        const uintptr_t lo = std::max(gaddr, x.addr), hi = std::min(gaddr + 8, x.addr + x.size);
        const uint8_t mask = (uint8_t)(((1u << (hi - lo)) - 1u) << (lo - gaddr));
        size_t h = (key * 0x9E3779B97F4A7C15ull) >> 20;
        Cell *c;
        for (;;) {
          c = &table[h & (cap - 1)];
          if (c->gen != gen || c->key == key) break;
          h++;
        }
        if (c->gen != gen) { /* a fresh cell: this thread is its only user so far */
          c->key = key;
          c->gen = gen;
          c->shared = x.shared;
          Who &o = x.write ? c->w[0] : c->r[0];
          o = Who{x.pc, x.phase, (uint16_t)t, mask, x.write};
          c->nw = x.write;
          c->nr = !x.write;
          continue;
        }
        for (int i = 0; i < c->nw; i++) {
          const Who &o = c->w[i];
          if ((o.mask & mask) && !ordered(o, t, x.phase)) {
            *race = Race{o, Who{x.pc, x.phase, (uint16_t)t, mask, x.write}, gaddr + __builtin_ctz(o.mask & mask),
                         x.shared != 0};
            return true;
          }
        }
        if (x.write)
          for (int i = 0; i < c->nr; i++) {
            const Who &o = c->r[i];
            if ((o.mask & mask) && !ordered(o, t, x.phase)) {
              *race = Race{o, Who{x.pc, x.phase, (uint16_t)t, mask, x.write}, gaddr + __builtin_ctz(o.mask & mask),
                           x.shared != 0};
              return true;
            }
          }
        Who *slots = x.write ? c->w : c->r;
        uint8_t &used = x.write ? c->nw : c->nr;
        const int ns = x.write ? 2 : 3;
        int k = 0;
        while (k < used && !(slots[k].tid == t && slots[k].phase == x.phase)) k++;
        if (k < used) slots[k].mask |= mask;
        else if (k < ns) {
          slots[k] = Who{x.pc, x.phase, (uint16_t)t, mask, x.write};
          used++;
        }
      }
    }
  }
  return false;
}

void describe_race(Worker *w, Probe *pr, const Race &r) {
  char head[256];
  const uint3 bd = tls.block_dim;
  auto tidx = [&](int t) {
    char b[64];
    snprintf(b, sizeof b, "thread (%u,%u,%u)", t % bd.x, (t / bd.x) % bd.y, t / (bd.x * bd.y));
    return std::string(b);
  };
  std::string place;
  if (r.shared) {
    for (const Range &g : pr->shared)
      if (r.addr >= g.lo && r.addr < g.hi) {
        const bool dyn = g.lo == (uintptr_t)w->dyn;
        snprintf(head, sizeof head, "%s shared memory at byte offset %lu", dyn ? "dynamic" : "a __shared__ array's",
                 (unsigned long)(r.addr - g.lo));
        place = head;
      }
  } else {
    auto it = std::upper_bound(g_dev.begin(), g_dev.end(), std::make_pair(r.addr, ~(uintptr_t)0));
    --it;
    snprintf(head, sizeof head, "global memory at byte offset %lu of a device allocation",
             (unsigned long)(r.addr - it->first));
    place = head;
  }
  const bool same_warp = (r.a.tid >> 5) == (r.b.tid >> 5);
  std::string msg = "emu: race on " + place + " in kernel " + g_launch->name;
  snprintf(head, sizeof head, ", block (%u,%u,%u): ", w->bidx.x, w->bidx.y, w->bidx.z);
  msg += head;
  msg += tidx(r.a.tid) + (r.a.write ? " writes it at " : " reads it at ") + where(r.a.pc) + " and " + tidx(r.b.tid) +
         (r.b.write ? " writes it at " : " reads it at ") + where(r.b.pc);
  msg += same_warp ? ", in one warp with no __syncwarp (or other warp collective) between them"
                   : ", in different warps with no __syncthreads between them";
  std::lock_guard<std::mutex> g(g_race_mutex);
  if (g_race_msg.empty()) g_race_msg = msg;
}

}  // namespace

/* ---------------------------------------------------------------- hooks for sched.cpp */

void probe_launch_begin(const LaunchInfo *in) {
  g_dev.clear();
  device_ranges(g_dev);
  std::sort(g_dev.begin(), g_dev.end());
  g_dev_lo = g_dev.empty() ? 0 : g_dev.front().first;
  g_dev_hi = 0;
  for (auto &r : g_dev) g_dev_hi = std::max(g_dev_hi, r.second);
  g_race_msg.clear();
  g_launch = in;
  g_launch_serial++;
}

void probe_worker_reset(Worker *w) {
  Probe *pr = probe_of(w);
  for (auto &c : pr->counts) c = 0;
  pr->truncated = false;
}

void probe_block_begin(Worker *w) {
  Probe *pr = probe_of(w);
  const size_t n = (size_t)w->nthreads;
  if (pr->logs.size() < n) pr->logs.resize(n);
  for (size_t i = 0; i < n; i++) pr->logs[i].clear();
  pr->phase.assign(n, 0);
  pr->shared.clear();
  pr->sh_lo = pr->sh_hi = pr->sh_next = 0;
  if (w->launch->info.smem) add_shared_range(pr, (uintptr_t)w->dyn, w->launch->info.smem);
}

void probe_shared_touch(Worker *w, const volatile void *p, size_t bytes) {
  if (!w->probe) return;
  add_shared_range((Probe *)w->probe, (uintptr_t)p, bytes);
}

void probe_collective(Worker *w, int tid) {
  if (w->probe) ((Probe *)w->probe)->phase[(size_t)tid]++;
}

bool probe_epoch(Worker *w) {
  Probe *pr = (Probe *)w->probe;
  if (!pr) return true;
  count_epoch(w, pr);
  bool ok = true;
  Race r;
  if (g_race_on && check_races(w, pr, &r)) {
    describe_race(w, pr, r);
    ok = false;
  }
  for (int t = 0; t < w->nthreads; t++) pr->logs[(size_t)t].clear();
  return ok;
}

const char *probe_race_message() { return g_race_msg.empty() ? nullptr : g_race_msg.c_str(); }

/* Every probed launch's counts added up since the process began (read by the kit's driver
 * around a student's call: scanlab_emu_probe_counters). */
unsigned long long g_totals[N_COUNTS];

void probe_launch_end(const LaunchInfo &in, const std::vector<Worker *> &workers) {
  g_launch = nullptr;
  unsigned long long c[N_COUNTS] = {0};
  for (Worker *w : workers)
    if (w->probe)
      for (int i = 0; i < N_COUNTS; i++) c[i] += ((Probe *)w->probe)->counts[i];
  for (int i = 0; i < N_COUNTS; i++) g_totals[i] += c[i];
  if (!g_profile_path) return;
  FILE *f = fopen(g_profile_path, "a");
  if (!f) {
    diag("emu: SCANLAB_EMU_PROFILE: cannot open %s for appending", g_profile_path);
    return;
  }
  std::string name;
  for (const char *s = in.name; *s; s++) {
    if (*s == '"' || *s == '\\') name += '\\';
    name += *s;
  }
  fprintf(f, "{\"kernel\": \"%s\", \"grid\": [%u, %u, %u], \"block\": [%u, %u, %u], \"metrics\": {", name.c_str(),
          in.grid.x, in.grid.y, in.grid.z, in.block.x, in.block.y, in.block.z);
  for (int i = 0; i < N_METRICS; i++) fprintf(f, "%s\"%s\": %llu", i ? ", " : "", METRIC_NAMES[i], c[i]);
  fprintf(f, "}, \"emu\": {\"shared_ld_requests\": %llu, \"shared_st_requests\": %llu, \"global_ld_volatile_sectors\": %llu}}\n",
          c[S_LD_REQ], c[S_ST_REQ], c[G_LD_VOL_SECT]);
  fclose(f);
}

}  // namespace scanlab_emu

/* Not CUDA: the counts of every probed launch so far, in the order of METRIC_NAMES, then shared
 * load and store requests; returns how many it wrote (0 where no code was built with probes). */
extern "C" int scanlab_emu_probe_counters(unsigned long long *out, int n) {
  if (!scanlab_emu::g_probe_on) return 0;
  int k = 0;
  for (; k < n && k < scanlab_emu::N_COUNTS; k++) out[k] = scanlab_emu::g_totals[k];
  return k;
}

/* ---------------------------------------------------------------- the instrumentation's entry points */

using scanlab_emu::record;

#define SCANLAB_PROBE_RW(N)                                                                                  \
  extern "C" void __tsan_read##N(void *p) { record(p, N, 0, __builtin_return_address(0)); }                 \
  extern "C" void __tsan_write##N(void *p) { record(p, N, 1, __builtin_return_address(0)); }                \
  extern "C" void __tsan_unaligned_read##N(void *p) { record(p, N, 0, __builtin_return_address(0)); }       \
  extern "C" void __tsan_unaligned_write##N(void *p) { record(p, N, 1, __builtin_return_address(0)); }      \
  extern "C" void __tsan_volatile_read##N(void *p) { record(p, N, 0, __builtin_return_address(0), 1); }     \
  extern "C" void __tsan_volatile_write##N(void *p) { record(p, N, 1, __builtin_return_address(0), 1); }
SCANLAB_PROBE_RW(1)
SCANLAB_PROBE_RW(2)
SCANLAB_PROBE_RW(4)
SCANLAB_PROBE_RW(8)
SCANLAB_PROBE_RW(16)

extern "C" void __tsan_read_range(void *, unsigned long) {}
extern "C" void __tsan_write_range(void *, unsigned long) {}
extern "C" void __tsan_func_entry(void *) {}
extern "C" void __tsan_func_exit() {}
extern "C" void __tsan_vptr_update(void *, void *) {}
extern "C" void __tsan_vptr_read(void *) {}
extern "C" void __tsan_init() {
  if (scanlab_emu::g_probe_on) return;
  scanlab_emu::g_probe_on = true;
  const char *p = getenv("SCANLAB_EMU_PROFILE");
  if (p && *p) {
    /* %p: the process id, so that several processes can profile at once */
    std::string path;
    for (const char *c = p; *c; c++) {
      if (c[0] == '%' && c[1] == 'p') {
        path += std::to_string((long)getpid());
        c++;
      } else {
        path += *c;
      }
    }
    scanlab_emu::g_profile_path = strdup(path.c_str());
  }
  const char *r = getenv("SCANLAB_EMU_RACECHECK");
  if (r && !strcmp(r, "0")) scanlab_emu::g_race_on = false;
}

/* Atomics: sequentially consistent, whatever order was asked for; not counted, not races. */
#define SCANLAB_PROBE_ATOMIC(N, T)                                                                          \
  extern "C" T __tsan_atomic##N##_load(const volatile T *a, int) { return __atomic_load_n(a, __ATOMIC_SEQ_CST); } \
  extern "C" void __tsan_atomic##N##_store(volatile T *a, T v, int) { __atomic_store_n(a, v, __ATOMIC_SEQ_CST); } \
  extern "C" T __tsan_atomic##N##_exchange(volatile T *a, T v, int) {                                      \
    return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST);                                                     \
  }                                                                                                         \
  extern "C" T __tsan_atomic##N##_fetch_add(volatile T *a, T v, int) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); } \
  extern "C" T __tsan_atomic##N##_fetch_sub(volatile T *a, T v, int) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); } \
  extern "C" T __tsan_atomic##N##_fetch_and(volatile T *a, T v, int) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); } \
  extern "C" T __tsan_atomic##N##_fetch_or(volatile T *a, T v, int) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); } \
  extern "C" T __tsan_atomic##N##_fetch_xor(volatile T *a, T v, int) { return __atomic_fetch_xor(a, v, __ATOMIC_SEQ_CST); } \
  extern "C" T __tsan_atomic##N##_fetch_nand(volatile T *a, T v, int) { return __atomic_fetch_nand(a, v, __ATOMIC_SEQ_CST); } \
  extern "C" int __tsan_atomic##N##_compare_exchange_strong(volatile T *a, T *c, T v, int, int) {          \
    return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                 \
  }                                                                                                         \
  extern "C" int __tsan_atomic##N##_compare_exchange_weak(volatile T *a, T *c, T v, int, int) {            \
    return __atomic_compare_exchange_n(a, c, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                  \
  }                                                                                                         \
  extern "C" T __tsan_atomic##N##_compare_exchange_val(volatile T *a, T c, T v, int, int) {                \
    __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);                       \
    return c;                                                                                               \
  }
SCANLAB_PROBE_ATOMIC(8, unsigned char)
SCANLAB_PROBE_ATOMIC(16, unsigned short)
SCANLAB_PROBE_ATOMIC(32, unsigned int)
SCANLAB_PROBE_ATOMIC(64, unsigned long long)
extern "C" void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
extern "C" void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
