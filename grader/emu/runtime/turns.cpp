/**
 * @file turns.cpp
 * @brief Blocks in flight together, one running at a time: the order of a launch's blocks as a
 *        function of the schedule alone, whatever the host's cores.
 *
 * In a build with the memory probes (every graded run), a launch holds as many blocks at once
 * as the emulated device would (EMU_SMS multiprocessors, each as many blocks as the occupancy
 * allows), each on a worker of its own (its shared memory is that worker's), and hands a *turn*
 * from one to the next: only the holder runs. A block gives up its turn only at a point where
 * another block could see what it did or change what it reads next:
 *
 * - *publish* points: an atomic on global memory (after it), a volatile store to global memory
 *   (before it: a block can be held between writing a value and writing its flag), a fence;
 * - *poll* points: a volatile load of global memory (before it), `__nanosleep`;
 * - *barriers*: each completed `__syncthreads`, for the first ADVERSARIAL_BARRIERS of a launch
 *   and KERNEL_BARRIERS of a kernel's launches, until the launch goes calm (blocks interleave
 *   between barriers as on a GPU, so blocks that share memory with no order between them see
 *   each other's stores);
 * - *ticks*: once the launch has had a publish point, each completed warp collective and
 *   barrier past those (so a spin loop on plain loads still turns over: a block that stored
 *   nothing between two such turn-overs is stuck too).
 *
 * A publish point counts only as a block's first or after PUBLISH_WORK memory accesses since the
 * last that counted (an atomic an element would otherwise switch at every one; many atomics with
 * nothing between them are a spin, and count as poll points do). At a publish point that counts
 * the schedule decides whether to switch (forward and reverse always do, random with
 * probability 1/2); after SPIN_POLLS poll points without a publish point the block
 * is *stuck* (it waits for someone) and gives up its turn, and runs again only once something
 * is published; after TICKS ticks it gives up its turn too. The next holder is the next slot in
 * the schedule's order (forward: the next slot, reverse: the previous one, random: any), except
 * the *late* slot: one slot a launch (forward: slot 1, reverse: the last, random: a slot the
 * seed picks) runs as soon as it can until its first publish point (a tile drawn), and from then
 * on only when every other slot is stuck or done, so the tiles it draws are published late
 * while later tiles run, which is what breaks a look-back that does not wait for every tile
 * before it. Blocks are handed out to slots in the schedule's order too (forward
 * in index order, reverse backwards, random shuffled within each run of as many blocks as there
 * are slots): a GPU promises no order.
 *
 * After ADVERSARIAL_PUBLISHES publish points that count, a launch goes calm: no late slot, no
 * switch at a publish point (a look-back's faults show in its first tiles; a switch is a handoff
 * between OS threads, slow on a loaded machine); so does every launch of a kernel once its
 * launches in the process have had KERNEL_PUBLISHES (a test's first calls, the small sizes,
 * meet the adversarial order; its hundreds of later ones run at the speed of one thread).
 *
 * With SCANLAB_EMU_CALM=1 (make profile: the least polling, to set beside a GPU's counts) there
 * is no late slot, blocks are handed out in index order and a block gives up its turn only
 * when it is stuck: blocks run one after another unless one waits for another.
 *
 * Everything here is decided by counts, never by time, so a launch runs the same on 1 core or
 * 64. The workers are OS threads, only one of which runs at a time.
 */
/// @cond EMU_INTERNAL
#include "emu_internal.h"

#include <cstdlib>
#include <map>

namespace scanlab_emu {

/* Poll points a block passes without a publish point before it counts as stuck: a look-back
 * window of 32 volatile loads and its votes, twice. */
static const int SPIN_POLLS = 96;
/* Warp collectives and barriers completed, once the launch has had a publish point, after which a
 * block gives up its turn (not stuck: it may be busy): a spin on plain loads still turns over. */
static const int TICKS = 256;
/* Memory accesses since a block's last publish point that counted, under which the next one
 * does not count as a publish point (unless it is the block's first). */
static const unsigned long long PUBLISH_WORK = 64;
/* Publish points that count, in a launch, after which it goes calm (no late slot, no switch at
 * a publish point: blocks switch only when one waits). A look-back's faults show in its first
 * tiles as in its last; a switch costs a handoff between OS threads, which on a loaded machine
 * waits for the scheduler, so a launch of thousands of tiles would pay thousands. */
static const int ADVERSARIAL_PUBLISHES = 256;
/* And over all the launches of one kernel in a process (a test calls a function hundreds of
 * times, the small sizes first): past this many, its launches start calm. */
static const long long KERNEL_PUBLISHES = 1024;
/* Completed __syncthreads at which a block gives up its turn, at most, in a launch and over a
 * kernel's launches in a process: blocks interleave between barriers, as on a GPU, in a
 * launch's first tiles and a test's first calls (a handoff between OS threads each: the count
 * is bounded). */
static const int ADVERSARIAL_BARRIERS = 512;
static const long long KERNEL_BARRIERS = 2048;
/* Depth mode: the bytes of global memory a slot's schedule clock may run ahead of the least
 * clock of the others before it gives up its turn (at its next point). */
static const unsigned long long DEPTH_QUANTUM = 4096;

static unsigned long long mix(unsigned long long &s) {
  s ^= s >> 12;
  s ^= s << 25;
  s ^= s >> 27;
  return s * 2685821657736338717ull;
}

static long long gcd(long long a, long long b) {
  while (b) {
    const long long t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static std::mutex g_quiet_mutex;
static std::map<const void *, bool> g_quiet; /* kernel -> no points in any launch so far */
/* kernel -> its earlier launches' publish points that counted and turns given up at barriers */
struct KernelTurns {
  long long publishes = 0, barrier_switches = 0;
};
static std::map<const void *, KernelTurns> g_turns;

int resident_blocks(const LaunchInfo &in) {
  const unsigned long long threads = (unsigned long long)in.block.x * in.block.y * in.block.z;
  int per_sm = 0;
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, in.kaddr, (int)threads, in.smem);
  if (per_sm < 1) per_sm = 1;
  long long r = (long long)per_sm * EMU_SMS;
  const long long blocks = (long long)in.grid.x * in.grid.y * in.grid.z;
  if (r > blocks) r = blocks;
  if (r > EMU_MAX_SLOTS) r = EMU_MAX_SLOTS;
  return (int)r;
}

void turns_begin(LaunchState *L, Worker *const *workers, int nslots, const void *key) {
  const Config &cfg = config();
  KernelTurns before;
  {
    std::lock_guard<std::mutex> g(g_quiet_mutex);
    auto it = g_turns.find(key);
    if (it != g_turns.end()) before = it->second;
  }
  const long long published = before.publishes;
  L->kernel_publishes = published;
  L->kernel_barrier_switches = before.barrier_switches;
  L->barrier_switches = 0;
  L->turns = true;
  L->nslots = nslots;
  L->slot_worker = workers;
  L->slots.assign((size_t)nslots, SlotTurn());
  L->holder = 0;
  L->over = false;
  L->dispatched = 0;
  L->seen_publish = false;
  L->trng = (cfg.seed ^ 0x5851F42D4C957F2Dull) * (L->serial * 0x9E3779B97F4A7C15ull + 7);
  if (!L->trng) L->trng = 1;
  mix(L->trng);
  L->dispatch_seed = mix(L->trng) | 1;
  L->calm = published >= KERNEL_PUBLISHES;
  if (nslots < 2 || cfg.calm || L->calm || g_depth_on) L->late = -1;
  else if (cfg.schedule == SCHED_FORWARD) L->late = 1;
  else if (cfg.schedule == SCHED_REVERSE) L->late = nslots - 1;
  else L->late = (int)(mix(L->trng) % (unsigned long long)nslots);
  L->slots[0].state = SLOT_RUNNING; /* the launching thread is slot 0 and holds the first turn */
}

/* The block the next dispatch runs (-1: none left); called by the holder only. */
long long turns_take_block(LaunchState *L) {
  if (L->dispatched >= L->nblocks) return -1;
  const long long i = L->dispatched++;
  L->next_block.store(L->dispatched);
  const ScheduleKind k = config().schedule;
  if (k == SCHED_FORWARD || config().calm || g_depth_on) return i;
  if (k == SCHED_REVERSE) return L->nblocks - 1 - i;
  /* random: shuffled within each run of nslots blocks, by a bijection of the run's indices */
  const long long run = L->nslots, start = i / run * run;
  long long len = L->nblocks - start;
  if (len > run) len = run;
  unsigned long long s = L->dispatch_seed ^ (unsigned long long)(start + 1) * 0xD6E8FEB86659FD93ull;
  const long long a = (long long)(mix(s) % (unsigned long long)len);
  long long step = 1 + (long long)(mix(s) % (unsigned long long)len);
  while (gcd(step, len) != 1) step++;
  return start + (a + (i - start) * step) % len;
}

static bool eligible(const LaunchState *L, int s) {
  const SlotTurn &t = L->slots[(size_t)s];
  if (t.state == SLOT_RUNNING) return true;
  return t.state == SLOT_UNSTARTED && L->dispatched < L->nblocks;
}

/* The slot that runs after @p from (which may be @p from itself); -1 when none can. A stuck
 * slot waits for something to be published: it runs again only after a publish point (which
 * clears every slot's stuck mark), or when every slot is stuck (then in turn, so that a spin
 * on what plain stores change still ends, and a real hang is named by the hang detector). */
static int choose_next(LaunchState *L, int from) {
  const int n = L->nslots;
  bool any = false;      /* a slot that is not stuck, the late one aside */
  bool any_late = false; /* the late one, not stuck */
  for (int s = 0; s < n; s++) {
    if (!eligible(L, s) || L->slots[(size_t)s].stuck) continue;
    if (s == L->late) any_late = true;
    else any = true;
  }
  /* the late slot runs early until it has drawn something (its first publish point), then late */
  if (L->late >= 0 && L->late != from && !L->late_armed && eligible(L, L->late)) return L->late;
  auto ok = [&](int s) {
    if (!eligible(L, s)) return false;
    if (any) return s != L->late && !L->slots[(size_t)s].stuck;
    if (any_late) return s == L->late;
    return true; /* all stuck */
  };
  const ScheduleKind k = config().schedule;
  if (k == SCHED_RANDOM) {
    int cand[EMU_MAX_SLOTS], m = 0;
    for (int s = 0; s < n; s++)
      if (s != from && ok(s)) cand[m++] = s;
    if (m) return cand[mix(L->trng) % (unsigned long long)m];
  } else {
    for (int d = 1; d < n; d++) {
      const int s = k == SCHED_REVERSE ? (from - d + n) % n : (from + d) % n;
      if (ok(s)) return s;
    }
  }
  return eligible(L, from) ? from : -1;
}

/* Depth mode: the slot other than @p from that may run (not stuck) and whose schedule clock
 * is least, the first such at equal clocks; -1 when every other slot is stuck or done. */
static int least_clock(LaunchState *L, int from) {
  int best = -1;
  unsigned long long best_clock = 0;
  for (int s = 0; s < L->nslots; s++) {
    if (s == from || !eligible(L, s) || L->slots[(size_t)s].stuck) continue;
    const unsigned long long c = probe_sched_clock(L->slot_worker[s]);
    if (best < 0 || c < best_clock) {
      best = s;
      best_clock = c;
    }
  }
  return best;
}

/* Gives the turn to @p to and, unless @p from is done, waits until it comes back. */
static void hand_over(LaunchState *L, int from, int to, bool from_done) {
  std::unique_lock<std::mutex> lk(L->turn_mutex);
  L->handoffs++;
  L->holder = to;
  if (to >= 0) {
    SlotTurn &t = L->slots[(size_t)to];
    if (t.state == SLOT_UNSTARTED) {
      t.state = SLOT_RUNNING;
      lk.unlock();
      summon_worker(L->slot_worker[to], L);
      lk.lock();
    } else {
      L->slot_worker[to]->turn_cv.notify_one();
    }
  }
  if (from_done) return;
  Worker *me = L->slot_worker[from];
  while (L->holder != from && !L->over) me->turn_cv.wait(lk);
}

/* turn_point in depth mode: the blocks in flight advance together, as on a GPU. A slot gives up
 * its turn where its schedule clock (probe.cpp's dc_access) is more than DEPTH_QUANTUM ahead of
 * the least clock of the slots that may run, to that slot; or where it is stuck, as in the
 * schedules (to the least clock that is not, else the next in turn). No late slot, no switch
 * at a publish point for its own sake: what each block reads is what the others had stored by
 * the same clock. */
static bool depth_point(Worker *w, int kind) {
  LaunchState *L = w->launch;
  SlotTurn &t = L->slots[(size_t)w->id];
  bool stuck = false;
  if (kind == POINT_PUBLISH) {
    L->seen_publish = true;
    const unsigned long long work = probe_accesses(w);
    if (!t.fresh && work - t.work_mark < PUBLISH_WORK) {
      if (++t.idle_pubs >= SPIN_POLLS) { /* many atomics and nothing else: a spin */
        t.idle_pubs = 0;
        stuck = true;
      }
    } else {
      t.fresh = false;
      t.work_mark = work;
      t.idle_pubs = 0;
      t.polls = 0;
      t.ticks = 0;
      for (SlotTurn &o : L->slots) o.stuck = false; /* what it published may free the others */
    }
  } else if (kind == POINT_POLL) {
    if (++t.polls >= SPIN_POLLS) {
      t.polls = 0;
      stuck = true;
    }
  } else if (L->seen_publish && ++t.ticks >= TICKS) {
    t.ticks = 0;
    const unsigned long long stores = probe_store_total(w); /* nothing stored since: a spin */
    stuck = stores == t.store_mark;
    t.store_mark = stores;
  }
  int to = least_clock(L, w->id);
  if (stuck) {
    t.stuck = true;
    if (to < 0) to = choose_next(L, w->id); /* every slot stuck: in turn */
  } else if (to >= 0 && probe_sched_clock(w) <= probe_sched_clock(L->slot_worker[to]) + DEPTH_QUANTUM) {
    to = -1;
  }
  if (to < 0 || to == w->id) return false;
  hand_over(L, w->id, to, false);
  return L->failed.load(std::memory_order_relaxed);
}

bool turn_point(Worker *w, int kind) {
  LaunchState *L = w->launch;
  if (!L || !L->turns) return false;
  if (g_depth_on) return depth_point(w, kind);
  SlotTurn &t = L->slots[(size_t)w->id];
  bool give;
  if (kind == POINT_PUBLISH) {
    L->seen_publish = true;
    /* a publish point counts after some work (or as a block's first): an atomic a element, or
     * an atomic spin on a lock, would otherwise switch at every one */
    const unsigned long long work = probe_accesses(w);
    if (!t.fresh && work - t.work_mark < PUBLISH_WORK) {
      if (++t.idle_pubs < SPIN_POLLS) return false;
      t.idle_pubs = 0; /* many atomics and nothing else: a spin, as poll points are */
      t.stuck = true;
      const int to = choose_next(L, w->id);
      if (to < 0 || to == w->id) return false;
      hand_over(L, w->id, to, false);
      return L->failed.load(std::memory_order_relaxed);
    }
    t.fresh = false;
    t.work_mark = work;
    t.idle_pubs = 0;
    if ((++L->publishes > ADVERSARIAL_PUBLISHES || L->kernel_publishes + L->publishes > KERNEL_PUBLISHES) &&
        !L->calm) {
      L->calm = true;
      L->late = -1;
    }
    for (SlotTurn &o : L->slots) o.stuck = false; /* what it published may free the others */
    if (w->id == L->late) L->late_armed = true;
    t.polls = 0;
    t.ticks = 0;
    const ScheduleKind k = config().schedule;
    give = !config().calm && !L->calm && (w->id == L->late || k != SCHED_RANDOM || (mix(L->trng) & 1));
  } else if (kind == POINT_POLL) {
    if (++t.polls < SPIN_POLLS) return false;
    t.polls = 0;
    t.stuck = true;
    give = true;
  } else if (kind == POINT_BARRIER && !config().calm && !L->calm && L->barrier_switches < ADVERSARIAL_BARRIERS &&
             L->kernel_barrier_switches + L->barrier_switches < KERNEL_BARRIERS) {
    /* a block between two of its barriers: another block may run there, as on a GPU (blocks
     * that share memory with no order between them then see each other's stores) */
    if (config().schedule == SCHED_RANDOM && !(mix(L->trng) & 1)) return false;
    L->barrier_switches++;
    t.ticks = 0;
    give = true;
  } else {
    if (!L->seen_publish || ++t.ticks < TICKS) return false;
    t.ticks = 0;
    /* nothing stored since it last gave up its turn this way: it spins (on plain loads), so it
     * waits for someone as a block stuck at poll points does */
    const unsigned long long stores = probe_store_total(w);
    t.stuck = stores == t.store_mark;
    t.store_mark = stores;
    give = true;
  }
  if (!give) return false;
  const int to = choose_next(L, w->id);
  if (to < 0 || to == w->id) return false;
  hand_over(L, w->id, to, false);
  return L->failed.load(std::memory_order_relaxed);
}

bool turn_wait_first(Worker *w) {
  LaunchState *L = w->launch;
  std::unique_lock<std::mutex> lk(L->turn_mutex);
  while (L->holder != w->id && !L->over) w->turn_cv.wait(lk);
  return !L->over;
}

void turn_slot_done(Worker *w) {
  LaunchState *L = w->launch;
  L->slots[(size_t)w->id].state = SLOT_DONE;
  int to = L->failed.load() ? -1 : g_depth_on ? least_clock(L, w->id) : choose_next(L, w->id);
  if (to < 0 && g_depth_on && !L->failed.load()) to = choose_next(L, w->id); /* the others stuck */
  if (L->failed.load()) /* the others leave their blocks at their next point: let each do so */
    for (int s = 0; s < L->nslots; s++)
      if (L->slots[(size_t)s].state == SLOT_RUNNING) { to = s; break; }
  if (to >= 0) {
    hand_over(L, w->id, to, true);
    return;
  }
  std::lock_guard<std::mutex> lk(L->turn_mutex);
  L->over = true;
  L->holder = -1;
  for (int s = 0; s < L->nslots; s++) L->slot_worker[s]->turn_cv.notify_all();
}

void kernel_took_turns(const void *key, const LaunchState *L) {
  std::lock_guard<std::mutex> g(g_quiet_mutex);
  KernelTurns &k = g_turns[key];
  k.publishes += L->publishes;
  k.barrier_switches += L->barrier_switches;
}

bool kernel_is_quiet(const void *key) {
  std::lock_guard<std::mutex> g(g_quiet_mutex);
  auto it = g_quiet.find(key);
  return it != g_quiet.end() && it->second;
}

bool kernel_is_loud(const void *key) {
  std::lock_guard<std::mutex> g(g_quiet_mutex);
  auto it = g_quiet.find(key);
  return it != g_quiet.end() && !it->second;
}

void kernel_heard(const void *key, bool had_points) {
  std::lock_guard<std::mutex> g(g_quiet_mutex);
  auto it = g_quiet.find(key);
  if (it == g_quiet.end()) g_quiet[key] = !had_points;
  else if (had_points) it->second = false;
}

}  // namespace scanlab_emu
/// @endcond
