/**
 * @file emu_internal.h
 * @brief Internals shared by the emulation runtime's sources (not part of the public API).
 */
#ifndef SCANLAB_EMU_INTERNAL_H
#define SCANLAB_EMU_INTERNAL_H
/// @cond EMU_INTERNAL
#define SCANLAB_EMU_RUNTIME 1 /* the device side of scanlab_emu_device.h too */
#include "cuda_runtime.h"

#include <atomic>
#include <condition_variable>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define SCANLAB_EMU_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SCANLAB_EMU_ASAN 1
#endif
#endif

#if !defined(__x86_64__) || defined(SCANLAB_EMU_FORCE_UCONTEXT)
#define SCANLAB_EMU_UCONTEXT 1
#include <ucontext.h>
#endif

namespace scanlab_emu {

/* ---- configuration from the environment ---- */
enum ScheduleKind { SCHED_FORWARD, SCHED_REVERSE, SCHED_RANDOM };
struct Config {
  int workers;
  ScheduleKind schedule;
  unsigned long long seed;
  double watchdog_s;
  double hang_s;   /* seconds a launch may go without progress before it is named a hang (0: never) */
  size_t stack_bytes;
  bool calm; /* SCANLAB_EMU_CALM=1: blocks in flight switch only when one waits (turns.cpp) */
  /* SCANLAB_EMU_STRICT=1 (the grader's runs): what the CUDA programming model leaves undefined
   * fails the launch; without it the emu gives what a GPU's hardware does and warns (a
   * barrier that threads which exited never reach: the GPU counts them as arrived) */
  bool strict;
  /* SCANLAB_EMU_LOOPS=0: no kernel runs as loops (loops.py) */
  bool loops;
};
const Config &config();

/* ---- fibers ---- */
enum FiberState : uint8_t { F_RUNNABLE, F_BARRIER, F_COLL, F_EXITED };

struct Stack {
  char *map;      /* start of the mapping (guard page) */
  size_t mapped;  /* length of the mapping */
  char *lo;       /* lowest usable byte */
  char *hi;       /* one past the highest usable byte */
};

struct Fiber {
  void *sp;
#ifdef SCANLAB_EMU_UCONTEXT
  ucontext_t uc;
#endif
  Stack stack;
  /* memory probes (probe.cpp): where this thread's next access goes in its log, the end of the
   * room it has there, the warp collectives it has passed in this block, and its loop
   * context (LoopCtx) */
  void *probe_cur;
  void *probe_end;
  uint32_t probe_phase;
  uint32_t probe_sync; /* of those, the __syncwarp calls: what orders memory between lanes */
  uint32_t probe_ctx;
  uintptr_t probe_gld_pc, probe_gld_addr; /* its last plain global load (a poll with plain loads) */
  int tid;
  ::uint3 tidx;
  uint8_t state;
  bool fresh;       /* prepared for this block, not started yet */
  bool in_body;     /* past its kernel's entry (kernel_entered): its arguments are read */
  unsigned yields;  /* its turns given up at atomics and polls since its last barrier */
  unsigned long long vclock; /* its clock64() */
  /* what it waits at */
  int kind;
  const char *file;
  int line;
  unsigned mask;
  int src;
  unsigned long long value;
  unsigned long long result;
};

struct WarpState {
  unsigned arrived;  /* lanes waiting at a collective */
  unsigned gone;     /* lanes that exited or do not exist */
  unsigned long long hold; /* the round in which its lanes' volatile loads wait for a store (lockstep_point) */
  /* the collective and mask of the lanes waiting (arrived), while they all agree: a lane that
   * arrives with the same two needs no check against each waiting lane (collective) */
  int sig_kind;
  unsigned sig_mask;
  bool sig_mixed;
  /* lockstep warps (lockstep_point): the lanes waiting to make a volatile load [0] or store [1],
   * and of those, the ones that came to it in round pend_round[k] */
  unsigned pend[2] = {0, 0};
  unsigned pend_new[2] = {0, 0};
  unsigned long long pend_round[2] = {0, 0};
};

/* A block's volatile stores since its last barrier, by byte address (lockstep_point): open
 * addressing, cleared by a new generation; up to 2^16 words (the slots grow from 1,024 as they
 * fill). An unordered_map here cost a node's malloc and free per store, an eighth of a
 * volatile-heavy kernel's time. */
struct VolWords {
  struct Slot { uintptr_t key; uint64_t value; uint32_t gen; };
  std::vector<Slot> slots;
  uint32_t gen = 1;
  size_t count = 0;
  size_t size() const { return count; }
  void clear();
  void put(uintptr_t key, uint64_t value);
  const uint64_t *find(uintptr_t key) const;
};

struct LaunchState;

struct Worker {
  int id;
  std::vector<Fiber> fibers;    /* grows to the largest block seen; stacks are kept */
  std::vector<int> order;
  void *sched_sp;               /* the worker's own context */
  void *altstack;               /* signal stack of the worker's thread */
#ifdef SCANLAB_EMU_UCONTEXT
  ucontext_t sched_uc;
#endif
#ifdef SCANLAB_EMU_ASAN
  const void *sched_stack_lo;
  size_t sched_stack_size;
  void *asan_fake;
#endif
  Fiber *cur;
  int pos;                      /* index in order of the fiber running now */
  unsigned long long round = 0; /* the scheduler's rounds of the block's threads, from 1 */
  /* the block running now */
  LaunchState *launch;
  ::uint3 bidx;
  int nthreads;
  int live;
  int nrunnable;
  bool failed;
  unsigned long long rng;
  /* __syncthreads */
  int bar_arrived;
  int bar_count, bar_and, bar_or;
  bool bar_mixed;
  const char *bar_file;
  int bar_line;
  int bar_kind;
  /* shared memory */
  std::vector<const volatile void *> touched;
  unsigned char *dyn;           /* the block's dynamic shared memory, inside arena */
  size_t dyn_size;
  /* the arena: PROT_NONE page, front guard, dynamic shared memory, back guard, PROT_NONE page */
  unsigned char *arena;
  size_t arena_mapped;
  unsigned char *guard_hi;      /* back guard: from dyn + dyn_size to the last PROT_NONE page */
  size_t guard_hi_len;
  bool arena_ready;             /* the layout matches dyn_size and the guards are poisoned */
  std::vector<WarpState> warps;
  int coalesced_waiting = 0;    /* fibers waiting in coalesced_threads() */
  std::condition_variable turn_cv; /* turns.cpp: woken when this worker's slot gets the turn */
  struct LaunchState *summoned = nullptr; /* a launch whose turn it got first (summon_worker) */
  void *probe = nullptr;        /* probe.cpp's state, in programs built with the probes */
  /* the emulator's own work at a barrier or a block's end (the guards, the probes' epoch):
   * since when (now_s()), 0 when none; one that lasts is progress for the hang detector (a
   * thread that logged millions of accesses makes it last seconds; OwnWork, sched.cpp) */
  std::atomic<double> own_work{0};
  /* lockstep warps (lockstep_point), without the probes: each word of the block's volatile
   * stores since its last barrier, by the thread that stored it and that thread's __syncwarp
   * count then (tid << 32 | count) */
  VolWords vol_words;
  /* a block run as loops (run_loops): its threads' indices and which have returned, the room
   * of its PerThread arrays (chunks kept from block to block), where a failure leaves it */
  bool loops_run = false;
  unsigned long long loops_serial = ~0ull; /* the launch whose threads fibers[] holds, as loops */
  bool loops_entered = false;
  std::vector<::uint3> loops_tidx;
  std::vector<unsigned char> loops_gone;
  std::vector<char *> loops_chunks;
  std::vector<char *> loops_big;
  size_t loops_chunk = 0, loops_used = 0;
  void *loops_jmp = nullptr; /* a jmp_buf */
};

/* The grid-wide barrier of a cooperative launch (grid_group::sync): one thread of each block
 * waits here for the others; blocks that have finished are counted, so a grid barrier that
 * some blocks never reach is reported instead of waiting for the watchdog. */
struct GridBarrier {
  std::mutex m;
  std::condition_variable cv;
  long long arrived = 0;
  long long finished = 0;
  unsigned long long generation = 0;
  bool broken = false;
};

/* turns.cpp: a slot of the blocks in flight together, one worker each */
enum SlotState : uint8_t { SLOT_UNSTARTED, SLOT_RUNNING, SLOT_DONE };
struct SlotTurn {
  SlotState state = SLOT_UNSTARTED;
  bool stuck = false; /* its last turn ended waiting for someone */
  int polls = 0;      /* poll points since its last publish point */
  int ticks = 0;      /* ticks since it last gave up its turn for them */
  int idle_pubs = 0;  /* publish points with next to no work between them (an atomic spin) */
  bool fresh = true;  /* no publish point yet in its block */
  unsigned long long work_mark = 0; /* probe_accesses at its last publish point that counted */
  unsigned long long store_mark = 0; /* probe_store_total when it last gave up its turn at a tick */
};
/* The emulated device: multiprocessors, and at most this many blocks in flight at once. */
static const int EMU_SMS = 4;
static const int EMU_MAX_SLOTS = 8;

struct LaunchState {
  LaunchInfo info;
  int device = 0; /* the device current where it was launched: its workers run as that device */
  void (*thunk)(const void *);
  const void *closure;
  long long nblocks;
  std::atomic<long long> next_block;
  std::atomic<bool> failed;
  std::atomic<int> error;
  std::atomic<bool> programs_own; /* the failure is the program's own end of it (assert, __trap) */
  std::atomic<int> running_workers;
  unsigned long long serial;
  double start_s;
  std::vector<std::atomic<long long>> current_block; /* per worker, -1 when idle */
  GridBarrier *grid = nullptr;  /* cooperative launches */
  bool name_pending = false;    /* no kernel address: the template kernel's entry names it */
  std::atomic<const char *> resolved{nullptr};
  /* turns (turns.cpp): set by turns_begin; only the holder reads or writes the rest */
  bool turns = false;
  int nslots = 1;
  Worker *const *slot_worker = nullptr;
  std::vector<SlotTurn> slots;
  std::mutex turn_mutex;
  int holder = 0;       /* the slot that runs now (under turn_mutex) */
  bool over = false;    /* every slot is done (under turn_mutex) */
  long long dispatched = 0;
  bool seen_publish = false;
  int late = -1;        /* the slot that runs only when all others wait */
  bool late_armed = false; /* the late slot has had a publish point: from now on it is late */
  int publishes = 0;    /* publish points that counted (turn_point) */
  long long kernel_publishes = 0; /* those of the kernel's earlier launches in this process */
  bool calm = false;    /* past ADVERSARIAL_PUBLISHES: blocks switch only when one waits */
  int barrier_switches = 0; /* turns given up at a completed __syncthreads (turn_point) */
  long long kernel_barrier_switches = 0; /* those of the kernel's earlier launches */
  unsigned long long trng = 1;
  unsigned long long dispatch_seed = 1; /* the order blocks are handed out in (fixed a launch) */
  unsigned long long handoffs = 0;
  std::atomic<bool> any_point{false}; /* a publish or poll point happened (kernel_heard) */
  std::atomic<bool> lockstep_said{false}; /* warp-synchronous code warned about (lockstep_point) */
  /* a kernel's blocks as loops (loops.py, run_loops): this launch runs so; a thread of it entered
   * its kernel's loops version (loops_entry, on fibers); something the loops would not run as
   * the fibers do happened (a thread read another's volatile store since their last barrier,
   * threads met at different barriers or one that others had left) */
  bool loops = false;
  std::atomic<bool> loops_capable{false};
  std::atomic<bool> loops_unfit{false};
  const char *loops_file = nullptr; /* the lines of the barriers its loops version holds */
  const int *loops_lines = nullptr;
  int loops_nlines = 0;
};

/* turns (turns.cpp) */
int resident_blocks(const LaunchInfo &in);
/* key: the kernel, whose earlier launches' turns (kernel_took_turns) decide how soon this one
 * goes calm */
void turns_begin(LaunchState *L, Worker *const *workers, int nslots, const void *key);
void kernel_took_turns(const void *key, const LaunchState *L);
long long turns_take_block(LaunchState *L);
/* At a publish or poll point of the running fiber: true when the launch failed meanwhile (the
 * caller leaves the block). */
enum PointKind { POINT_PUBLISH, POINT_POLL, POINT_TICK, POINT_BARRIER /* a block's __syncthreads, completed */ };
bool turn_point(Worker *w, int kind);
void inter_point(int kind); /* sched.cpp: turn_point, leaving the block on failure */
void summon_worker(Worker *w, LaunchState *L); /* sched.cpp: a helper's first turn in a launch */
/* A kernel is quiet when none of its launches so far had a publish or poll point: its blocks
 * cannot see one another's order, and its later launches run on parallel workers. */
bool kernel_is_quiet(const void *key);
bool kernel_is_loud(const void *key); /* a launch of it had points */
void kernel_heard(const void *key, bool had_points);
bool turn_wait_first(Worker *w); /* false: the launch ended without giving this slot a turn */
void turn_slot_done(Worker *w);

/* stack and context switching (fiber.cpp) */
bool stack_alloc(Stack *s, size_t bytes);
void fiber_prepare(Worker *w, Fiber *f, void (*entry)());
void switch_to(Worker *w, void **save_sp, Fiber *from, Fiber *to);

/* errors (api.cpp) */
void set_error(cudaError_t e);
void set_sticky(cudaError_t e);
cudaError_t sticky_error();
void note_kernel_failure();
void diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
std::mutex &diag_mutex();
double now_s();
bool range_is_device(const void *p, size_t n);
int dynamic_smem_limit_for(const void *func);

/* several devices (api.cpp; SCANLAB_EMU_DEVICES, device_count() in scanlab_emu_device.h) */
int current_device();          /* the calling host thread's (cudaSetDevice), 0 by default */
void set_current_device(int d); /* a worker running a block takes its launch's device */
/* Of the n pointers, the first that lies in a cudaMalloc allocation of a device other than
 * `device`, to which `device` has no peer access: its index, and its device in *owner; -1
 * when there is none. */
int foreign_pointer(int device, const void *const *ptrs, int n, int *owner);
/* Host synchronisations (scanlab_emu_host_syncs): a call that waits for the device holds one
 * for its duration; only the outermost of the calling thread counts, so a call made inside
 * another (cudaMemcpy3D's rows, a graph's copies) is not counted again. A null name: a call
 * that does not wait (an asynchronous one), and neither do the calls it makes. */
struct SyncCall {
  explicit SyncCall(const char *name);
  ~SyncCall();
  SyncCall(const SyncCall &) = delete;
  SyncCall &operator=(const SyncCall &) = delete;
};

/* device allocations between guard pages (api.cpp) */
struct GuardHit {
  uintptr_t user;   /* the allocation */
  size_t size;
  int kind;         /* 0 cudaMalloc, 2 cudaMallocManaged */
  int slot;
  bool in_data;     /* in its pages (the allocation, its head or its slack), not in a fence */
  uintptr_t addr;   /* the address looked up */
};
/* Async-signal-safe: the guarded allocation whose mapping holds addr. */
bool guard_find(const void *addr, GuardHit *hit);
/* Async-signal-safe: makes the chunk of a cudaMalloc allocation around hit.addr accessible
 * until the launch ends. */
bool guard_open_for_kernel(const GuardHit &hit);
/* Around each launch; open_all when the fault handler cannot open allocations on demand. The
 * beginning fails (with a diagnostic and a sticky error) where host code damaged the guard
 * bytes of a managed allocation; the end checks those of what the kernel touched: false and a
 * diagnostic in msg if one is damaged. */
bool launch_memory_begin(bool open_all, const char *kernel);
bool launch_memory_end(const char *kernel, char *msg, size_t cap);
/* What every allocation the program holds (device, managed, pinned, __device__ variables) says,
 * for a launch run twice (sched.cpp's trial of a kernel's loops version): taken (false where it
 * holds more than limit bytes), put back, compared; between launch_memory_begin(true) and its end,
 * which open every device allocation. */
struct MemorySnapshot {
  std::vector<std::pair<uintptr_t, std::string>> parts;
};
bool memory_snapshot(MemorySnapshot *s, size_t limit);
/* Around each run of such a launch: what its kernel prints caught (printed; false where it could
 * not be), and for the run to be compared only (quiet_run), no diagnostic said (quiet()). */
/* Around the run to be compared: the device heap and the functions' static variables of device
 * code left as found (api.cpp); trial_end is false where the run used the heap or met a static
 * first (what the trial cannot compare: the kernel stays on fibers). */
void trial_begin();
bool trial_end();
void trial_static_made(const void *p, size_t bytes);
void capture_begin(bool quiet_run);
bool capture_end(std::string *printed);
bool quiet();
void memory_restore(const MemorySnapshot &s);
bool memory_same(const MemorySnapshot &s);
/* Around a launch: the driver's watched ranges checked against their hashes before it (a change
 * the host made), hashed again after it as the device left them (api.cpp). */
void watch_before_launch();
void watch_after_launch();

/* memory probes (probe.cpp): active where .cu files were built with the probe flags */
extern bool g_probe_on;
/* depth mode (scanlab_emu_depth): launches count their longest chain of global accesses that
 * wait on one another, and their blocks take turns by their clocks (turns.cpp) */
extern bool g_depth_on;
/* A volatile access by the running CUDA thread (the probes' hooks call it, and so do the hooks
 * of a file built for lockstep only): in a program's own run, the next lane takes its step
 * (sched.cpp). */
void lockstep_point(const volatile void *p, bool write);
/* Lanes of one warp exchanged data through volatile memory with no __syncwarp, and the emu ran
 * them in step, as a GPU runs a converged warp: lockstep_claim is true for the first such pair
 * of a kernel (once a launch, once a kernel's name), whose lockstep_warn says so; `pair` names
 * the two threads and what each did, where. */
bool lockstep_claim(Worker *w);
void lockstep_warn(Worker *w, const std::string &pair);
void device_ranges(std::vector<std::pair<uintptr_t, uintptr_t>> &out); /* api.cpp */
bool device_static_at(const void *p); /* within a static of device code (device_static, probe.cpp) */
const char *device_static_name(const void *p); /* the name of the static holding p, or null */
/* the statics of device code registered so far (device_static) */
std::vector<std::pair<uintptr_t, uintptr_t>> device_static_ranges();
/* check_blocks: look for races between blocks (probe_block_race), for a launch of several
 * blocks, not cooperative, of a kernel not known to order its blocks; alone: one worker runs
 * all its blocks (no helper, no turns), so nothing else writes the shadow while it does;
 * turns: its blocks take turns (turns.cpp) */
void probe_launch_begin(const LaunchInfo *in, bool check_blocks, bool alone, bool turns);
void probe_worker_reset(Worker *w);
void probe_block_begin(Worker *w);
void probe_block_end(Worker *w); /* after the block's last probe_epoch */
unsigned long long probe_accesses(Worker *w); /* memory accesses its blocks' threads made so far */
unsigned long long probe_store_total(Worker *w); /* and stores, this launch */
unsigned long long probe_sched_clock(Worker *w); /* depth mode: its slot's schedule clock (dc_access) */
void probe_shared_touch(Worker *w, const volatile void *p, size_t bytes);
bool in_device_heap(uintptr_t a); /* within the device heap (malloc in device code: api.cpp) */
void probe_heap_freed(const void *p, size_t bytes); /* device_free: the bytes' next owner starts afresh */
void probe_collective(Worker *w, int tid, bool orders_memory);
void probe_atomic(Worker *w, const volatile void *p, void *pc, bool changed);
void probe_fence(Worker *w);    /* __threadfence: the block's plain stores so far are ordered */
void probe_grid_sync();          /* grid.sync(): everything before it is ordered */
[[noreturn]] void fail_block_now(const char *msg); /* sched.cpp: fails the launch, leaves the block */
bool probe_epoch(Worker *w); /* false: a race, described by probe_race_message() */
const char *probe_race_message();
unsigned long long probe_store_count(const std::vector<Worker *> &workers); /* the hang detector's */
bool probe_last_access(Worker *w, int tid, std::string *what);
void probe_launch_end(const LaunchInfo &in, const std::vector<Worker *> &workers);
/* After the launch: true, with *msg, when two of its blocks touched a word, one writing, and the
 * launch was quiet (no publish or poll point: nothing ordered its blocks) */
bool probe_block_race(const LaunchInfo &in, bool quiet, std::string *msg);

/* assert() inside a kernel (libc.cpp calls it) */
[[noreturn]] void device_assert_failed(const char *assertion, const char *file, unsigned line, const char *function);

/* launches (sched.cpp) */
bool in_kernel();
void sync_all();
void install_fault_handler();
/* a kernel the program's .cu files registered (not a template's instance), by its address */
bool kernel_by_address(const void *func, const char **name, PackedCall *call, PackedCopy *copy, PackedFree *free);
cudaError_t launch_args(const char *name, const void *func, PackedCall call, void **args, dim3 grid, dim3 block,
                        size_t smem, cudaStream_t stream, unsigned flags);

/* graphs and stream capture (graph.cpp) */
struct Capture;
/* What a graph's node does, on the stream the graph runs in; copied when the graph is cloned
 * or instantiated. */
struct GraphStep {
  virtual ~GraphStep() {}
  virtual cudaError_t run(cudaStream_t s) = 0;
  virtual GraphStep *clone() const = 0;
};
template <class F>
struct FnStep : GraphStep {
  F f;
  explicit FnStep(const F &f_) : f(f_) {}
  cudaError_t run(cudaStream_t s) override { return f(s); }
  GraphStep *clone() const override { return new FnStep(f); }
};
template <class F>
GraphStep *make_step(const F &f) { return new FnStep<F>(f); }
/* Adds a node doing `step` (taken over) to the graph the stream captures into. */
cudaError_t capture_step(cudaStream_t s, int node_type, GraphStep *step);
/* What a call that cannot be captured returns on a capturing stream (the capture is spoilt). */
cudaError_t capture_refuse(cudaStream_t s, const char *fn);
/* cudaEventRecord on a capturing stream, and cudaStreamWaitEvent on such an event. */
cudaError_t capture_record(cudaStream_t s, cudaEvent_t e);
cudaError_t capture_wait(cudaStream_t s, cudaEvent_t e);
/* a launch by address (cudaLaunchKernel with a void pointer) on a capturing stream */
cudaError_t capture_kernel_args(cudaStream_t s, const char *name, const void *func, PackedCall call, PackedCopy copy,
                                PackedFree free, void **args, dim3 grid, dim3 block, size_t smem, unsigned flags);

}  // namespace scanlab_emu

/* Streams and events; a stream that captures points at its capture, and its last node. */
struct CUstream_st {
  unsigned flags;
  int priority;
  cudaAccessPolicyWindow window;
  scanlab_emu::Capture *capture;
  cudaGraphNode_t last;
  std::vector<cudaGraphNode_t> joined; /* nodes of events it waited for since its last node */
};
struct CUevent_st {
  double t;
  bool recorded;
  unsigned flags;
  scanlab_emu::Capture *capture; /* recorded in a capturing stream: where the capture stood */
  cudaGraphNode_t node;
};
/// @endcond
#endif /* SCANLAB_EMU_INTERNAL_H */
