// Not part of the corpus run: a measurement beside as_loops.cpp. scanBlocks (scan.cu) at the
// CUDA samples' size (13 x 2^19 elements, arrays of 4 to 1024), each CUDA thread a C++20
// stackless coroutine rather than a fiber: segmentScan and the kernel are coroutines, each
// __syncthreads a co_await that suspends the thread, and a loop over the block's threads resumes
// each in turn until all have ended. No stack per thread; each thread's locals live in its
// coroutine frames (from a free list). It bounds what a rewrite of kernels with barriers into
// coroutines could gain over the emu's fibers (grader/emu/corpus/README.md, "Where the emu is
// slowest"): the barriers' bookkeeping is a counter here, less than the emu's.
//   g++ -std=c++17 -fcoroutines -O2 -pthread -o as_coroutines as_coroutines.cpp && ./as_coroutines 2
#include <chrono>
#include <coroutine>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <new>
#include <thread>
#include <vector>

struct U4 {
  unsigned x, y, z, w;
};
enum { THREADS = 256 };

// Frames by size class of 64 bytes, kept for reuse on each host thread.
static thread_local void *free_frames[64];
static void *frame_alloc(size_t n) {
  const size_t c = (n + 63) / 64;
  if (c < 64 && free_frames[c]) {
    void *p = free_frames[c];
    free_frames[c] = *(void **)p;
    return p;
  }
  return ::operator new(c * 64);
}
static void frame_free(void *p, size_t n) {
  const size_t c = (n + 63) / 64;
  if (c >= 64) return ::operator delete(p);
  *(void **)p = free_frames[c];
  free_frames[c] = p;
}

// A thread's state: the innermost coroutine to resume, and whether it has ended.
struct Thread {
  void *leaf;
  bool done;
};
static thread_local Thread *cur;
static thread_local unsigned tid, bid, arrived;
static thread_local unsigned smem[THREADS];

// A coroutine returning T (a value, or nothing: Task<void> below); awaiting one runs it.
template <class T>
struct Task;
struct PromiseBase {
  std::coroutine_handle<> caller;
  std::suspend_always initial_suspend() { return {}; }
  struct Final {
    bool await_ready() noexcept { return false; }
    template <class P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      return h.promise().caller ? h.promise().caller : std::noop_coroutine();
    }
    void await_resume() noexcept {}
  };
  Final final_suspend() noexcept { return {}; }
  void unhandled_exception() { std::terminate(); }
  static void *operator new(size_t n) { return frame_alloc(n); }
  static void operator delete(void *p, size_t n) { frame_free(p, n); }
};
template <class T>
struct TaskPromise : PromiseBase {
  T value;
  Task<T> get_return_object();
  void return_value(T v) { value = v; }
};
template <>
struct TaskPromise<void> : PromiseBase {
  Task<void> get_return_object();
  void return_void() {}
};
template <class T>
struct Task {
  using promise_type = TaskPromise<T>;
  std::coroutine_handle<promise_type> h;
  explicit Task(std::coroutine_handle<promise_type> x) : h(x) {}
  Task(Task &&o) : h(o.h) { o.h = {}; }
  ~Task() {
    if (h) h.destroy();
  }
  bool await_ready() { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> c) {
    h.promise().caller = c;
    return h;
  }
  T await_resume() {
    if constexpr (!std::is_void<T>::value) return h.promise().value;
  }
};
template <class T>
Task<T> TaskPromise<T>::get_return_object() {
  return Task<T>(std::coroutine_handle<TaskPromise<T>>::from_promise(*this));
}
inline Task<void> TaskPromise<void>::get_return_object() {
  return Task<void>(std::coroutine_handle<TaskPromise<void>>::from_promise(*this));
}

// __syncthreads: the thread notes where to resume and suspends.
struct Barrier {
  bool await_ready() { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    cur->leaf = h.address();
    arrived++;
  }
  void await_resume() {}
};

// segmentScan and scanBlocks as scan.cu writes them, with co_await at each barrier and call.
static Task<unsigned> segmentScan(unsigned *s, unsigned mine, unsigned segThreads) {
  const unsigned t = tid, lane = t & (segThreads - 1);
  s[t] = mine;
  for (unsigned offset = 1; offset < segThreads; offset <<= 1) {
    co_await Barrier{};
    const unsigned add = lane >= offset ? s[t - offset] : 0;
    co_await Barrier{};
    s[t] += add;
  }
  co_await Barrier{};
  co_return s[t];
}
static Task<void> scanBlocks(U4 *dst, const U4 *src, unsigned length) {
  const unsigned i = bid * THREADS + tid;
  const U4 v = src[i];
  const unsigned sum = v.x + v.y + v.z + v.w;
  const unsigned inclusive = co_await segmentScan(smem, sum, length / 4);
  const unsigned before = inclusive - sum;
  U4 out;
  out.x = before;
  out.y = before + v.x;
  out.z = out.y + v.y;
  out.w = out.z + v.z;
  dst[i] = out;
}

// One block: each thread's kernel coroutine made, then rounds of resumes until all have ended.
static void block(U4 *dst, const U4 *src, unsigned length, unsigned b) {
  Thread th[THREADS];
  std::vector<Task<void>> tops;
  tops.reserve(THREADS);
  bid = b;
  for (unsigned t = 0; t < THREADS; t++) {
    tid = t;
    tops.push_back(scanBlocks(dst, src, length));
    th[t] = Thread{tops.back().h.address(), false};
  }
  for (unsigned live = THREADS; live;) {
    arrived = 0;
    for (unsigned t = 0; t < THREADS; t++) {
      if (th[t].done) continue;
      cur = &th[t];
      tid = t;
      std::coroutine_handle<>::from_address(th[t].leaf).resume();
      if (tops[t].h.done()) th[t].done = true, live--;
    }
  }
}

int main(int argc, char **argv) {
  const unsigned elems = 13 * 1048576 / 2, blocks = elems / 4 / THREADS;
  const int workers = argc > 1 ? atoi(argv[1]) : 2;
  std::vector<unsigned> src(elems), dst(elems);
  srand(2009);
  for (unsigned i = 0; i < elems; i++) src[i] = rand() % 1000;
  double total = 0;
  bool ok = true;
  for (unsigned length = 4; length <= 1024; length <<= 1) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::thread> th;
    for (int w = 0; w < workers; w++)
      th.emplace_back([&, w] {
        for (unsigned b = (unsigned)w; b < blocks; b += (unsigned)workers)
          block((U4 *)dst.data(), (const U4 *)src.data(), length, b);
      });
    for (std::thread &t : th) t.join();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    total += ms;
    for (unsigned a = 0; a < elems; a += length) {  // every array's exclusive sums
      unsigned acc = 0;
      for (unsigned i = a; i < a + length; i++) {
        ok = ok && dst[i] == acc;
        acc += src[i];
      }
    }
    printf("arrays of %4u: %7.2f ms\n", length, ms);
  }
  printf("nine lengths: %.1f ms, %s\n", total, ok ? "right" : "WRONG");
  return ok ? 0 : 1;
}
