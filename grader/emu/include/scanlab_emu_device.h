/**
 * @file scanlab_emu_device.h
 * @brief Device side of the CPU emulation backend: built-in variables, barriers, warp
 *        collectives, atomics and intrinsics, and the kernel launch that cu2cpp.py emits.
 *
 * Included by cuda_runtime.h in C++ translation units only. Every call that can make a CUDA
 * thread wait (barriers, warp collectives, `__nanosleep`, fences, atomics) is a point where
 * the emulator may switch to another CUDA thread of the same block. See @ref emu.
 *
 * Why one file (past 800 lines): the device side of the toolkit's API, which every .cu file
 * includes whole.
 */
#ifndef SCANLAB_EMU_DEVICE_H
#define SCANLAB_EMU_DEVICE_H

/// @cond EMU_INTERNAL
#include <math.h>
#include <time.h>

#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

namespace scanlab_emu {

/* Per OS thread state: the CUDA thread (fiber) running now and its block. */
struct ThreadState {
  ::uint3 thread_idx;
  ::uint3 block_idx;
  ::uint3 block_dim;
  ::uint3 grid_dim;
  void *fiber;
  void *worker;
  unsigned char *dyn_smem;
  const char *dyn_type; /* element type of the last `extern __shared__` declaration reached */
  size_t dyn_elem;      /* and its size */
  bool name_pending;    /* the launch has no name yet: the template kernel's entry gives it */
  /* with several devices: the pointer arguments of the launch being made, and their positions
   * (from 0), which run_kernel checks and clears */
  const void *const *arg_ptrs;
  const int *arg_pos;
  int arg_n;
  volatile int loops_t; /* the thread a block run as loops runs now, -1 where its loop does not
                           say (the fault handler names it) */
};
extern __thread ThreadState tls;

/* Several devices (SCANLAB_EMU_DEVICES): how many the emu models; 0 until the runtime has read
 * the variable. With one (the default), a launch looks at no argument. */
extern int g_device_count;
int device_count_init();
inline int device_count() {
  const int g = __atomic_load_n(&g_device_count, __ATOMIC_RELAXED);
  return __builtin_expect(g == 1, 1) ? 1 : g ? g : device_count_init();
}
/* A launch's arguments that are pointers to data (not to functions): the runtime checks that
 * each lies on the launching device, or on a device it has peer access to. */
template <class T>
struct IsDataPointer
    : std::integral_constant<bool, std::is_pointer<T>::value &&
                                       !std::is_function<typename std::remove_pointer<T>::type>::value> {};
template <class... A>
constexpr int data_pointer_count() {
  return (0 + ... + (IsDataPointer<typename std::decay<A>::type>::value ? 1 : 0));
}
template <int N>
struct PointerArgs {
  const void *ptrs[N ? N : 1];
  int pos[N ? N : 1];
  int n = 0;
  template <class T>
  void add(int i, const T &v) {
    if constexpr (IsDataPointer<typename std::decay<T>::type>::value) {
      ptrs[n] = const_cast<const void *>(static_cast<const volatile void *>(v));
      pos[n++] = i;
    }
  }
  /* for the launch made next on this thread (run_kernel takes them) */
  void publish() const {
    tls.arg_ptrs = ptrs;
    tls.arg_pos = pos;
    tls.arg_n = n;
  }
};

/* At the entry of each kernel template (cu2cpp.py puts it there): a launch that deduced the
 * template's arguments (`scan<<<g, b>>>(d_in, n)`) is named by the instance that runs,
 * `scan<float>`, from the function's own signature. */
void name_launch(const char *pretty_function);
/* At the entry of every kernel (cu2cpp.py): the thread's arguments are read; from here on what
 * it loads must be the device's (the probes fail a load from the host's own memory). */
void kernel_entered();
/* A __constant__ variable (cu2cpp.py): kernels may load it (it is a host static on the emu). */
bool device_constant(const void *p, size_t bytes);
inline void template_kernel_entry(const char *pretty_function) {
  if (__builtin_expect(tls.name_pending, 0)) name_launch(pretty_function);
}

enum CollectiveKind {
  COLL_SHFL, COLL_SHFL_UP, COLL_SHFL_DOWN, COLL_SHFL_XOR, COLL_BALLOT, COLL_ANY, COLL_ALL,
  COLL_SYNCWARP, COLL_MATCH_ANY, COLL_MATCH_ALL, COLL_REDUCE_ADD, COLL_REDUCE_MIN_U,
  COLL_REDUCE_MAX_U, COLL_REDUCE_MIN_I, COLL_REDUCE_MAX_I, COLL_REDUCE_AND, COLL_REDUCE_OR,
  COLL_REDUCE_XOR, COLL_COALESCED
};
enum BarrierKind { BAR_SYNC, BAR_COUNT, BAR_AND, BAR_OR, BAR_GRID };

/* A __device__ function (a barrier, a warp collective, curand_init) called from host code,
 * which nvcc refuses when compiling: the emu ends the program there, naming it (sched.cpp). */
[[noreturn]] void device_function_on_host(const char *fn, const char *file, int line);
int barrier(int kind, int pred, const char *file, int line);
unsigned long long collective(int kind, unsigned mask, unsigned long long value, int param,
                              int width, const char *file, int line);
void yield_point();
/* __threadfence (a publish point) and __nanosleep (a poll point): a switch point, as yield_point,
 * where another block may take its turn (turns.cpp) */
void fence_point();
void sleep_point();
/* After an atomic on @p address: the memory probes count it (shared or global memory); then a
 * switch point, as yield_point. */
/* An atomic of a CUDA thread at address; `changed`: it changed the word (a progress the hang
 * detector counts: an atomicAdd, not a compare-and-swap that failed or an exchange of the value
 * already there, a spin lock's polling) */
void atomic_point(const volatile void *address, bool changed = true);
void shared_touch(const volatile void *p, size_t bytes);
void register_device_range(const void *p, size_t bytes);
/* A static-storage variable of device code (cu2cpp.py emits the call after its declaration): a
 * `__device__` or `__managed__` variable, a `static` of a device function. Global memory on a
 * GPU: the memory probes count and race-check it as they do cudaMalloc'd memory, and name it
 * (`name`, as the source spells it) in what they report. */
bool device_static(const void *p, size_t bytes, const char *name = nullptr, bool managed = false);
/* malloc and free in device code (cu2cpp.py calls these there): the device heap, of
 * cudaLimitMallocHeapSize bytes (8 MiB unless the program set it before its first device malloc);
 * null once it is full, as on a GPU. */
void *device_malloc(size_t bytes);
void device_free(void *p);
/* A copy to or from a symbol that runs past its end: refused (cudaErrorInvalidValue, also what
 * cudaGetLastError returns next), as the GPU's runtime refuses it. */
cudaError_t symbol_overrun();
int set_default_stack_kb(int kb);
long long clock_ns();
/* clock64() (and clock()) in device code: the CUDA thread's own cycle counter, which moves on
 * by 1000 at each reading. The threads of a block run one after another here, so a wall clock
 * would make a loop that waits for some cycles wait that long in every thread in turn. */
long long device_clock();

/* The loops of device code (cu2cpp.py wraps each in a block holding one of these): in a build
 * with the memory probes (EMU_PROBE_FLAGS define SCANLAB_EMU_PROBED), each iteration
 * sets the CUDA thread's loop context, a hash of the iteration numbers of the loops it is in,
 * which the probes keep with every access; elsewhere an empty object. */
#ifdef SCANLAB_EMU_PROBED
unsigned loop_ctx_enter();
void loop_ctx_set(unsigned ctx);
struct LoopCtx {
  const unsigned saved;
  unsigned n = 0;
  LoopCtx() : saved(loop_ctx_enter()) {}
  ~LoopCtx() { loop_ctx_set(saved); }
  LoopCtx(const LoopCtx &) = delete;
  LoopCtx &operator=(const LoopCtx &) = delete;
  void next() {
    unsigned x = saved * 0x9E3779B1u + ++n;
    x ^= x >> 15;
    x *= 0x85EBCA6Bu;
    x ^= x >> 13;
    loop_ctx_set(x);
  }
};
#else
struct LoopCtx {
  __attribute__((always_inline, no_sanitize_thread)) void next() {}
};
#endif

/* File-scope __shared__ variables register how to find them; poisoned at each block start. */
struct FileShared {
  FileShared(void *(*addr)(), size_t bytes);
};
/* File-scope `extern __shared__ T name[];` becomes a thread-local `T *name`, pointed at the
 * block's dynamic shared memory when each block starts. */
struct FileDynamicShared {
  explicit FileDynamicShared(void **(*addr)());
};

/* Proxy for a file-scope `extern __shared__ T name[];`. */
template <class T>
struct DynamicShared {
  operator T *() const { return reinterpret_cast<T *>(tls.dyn_smem); }
  template <class I>
  T &operator[](I i) const { return reinterpret_cast<T *>(tls.dyn_smem)[i]; }
};

template <class T>
inline T *dynamic_smem() { return reinterpret_cast<T *>(tls.dyn_smem); }
template <class T>
inline T *dynamic_smem(const char *type) {
  tls.dyn_type = type;
  tls.dyn_elem = sizeof(T);
  return reinterpret_cast<T *>(tls.dyn_smem);
}

/* LaunchInfo::flags */
enum { LAUNCH_COOPERATIVE = 1, LAUNCH_NAME_BY_ADDRESS = 2 };
struct LaunchInfo {
  const char *name;
  const char *file;
  int line;
  const void *kaddr;
  ::dim3 grid;
  ::dim3 block;
  size_t smem;
  cudaStream_t stream;
  unsigned flags;
};
/* Whether [p, p+n) is (within) a __device__ variable, not a __managed__ one: a launch argument
 * that is one was named in host code. */
bool is_device_static_object(const void *p, size_t n);
/* Fails a launch whose argument at position pos is a __device__ variable named in host code. */
void host_named_device_arg_at(const LaunchInfo &info, int pos, const void *arg);
template <class... T>
void host_named_device_arg(const LaunchInfo &info, int pos, const T *...args) {
  const void *all[] = {static_cast<const void *>(args)...};
  host_named_device_arg_at(info, pos, all[pos]);
}
/* Runs a launch; returns the launch's own error (cudaSuccess when it ran). */
cudaError_t run_kernel(const LaunchInfo &info, void (*thunk)(const void *), const void *closure);

/* Stream capture (graph.cpp): a launch into a stream that captures becomes a node of the
 * graph, holding a copy of the call (its arguments by value) to run when the graph does. */
bool stream_capturing(cudaStream_t s);
struct Deferred {
  void (*thunk)(const void *);
  void *closure;
  void (*destroy)(void *);
  void *(*clone)(const void *);
};
template <class C>
inline void closure_thunk(const void *p) { (*static_cast<const C *>(p))(); }
template <class C>
inline void closure_destroy(void *p) { delete static_cast<C *>(p); }
template <class C>
inline void *closure_clone(const void *p) { return new C(*static_cast<const C *>(p)); }
template <class C>
inline Deferred defer(const C &c) {
  return Deferred{&closure_thunk<C>, new C(c), &closure_destroy<C>, &closure_clone<C>};
}
cudaError_t capture_kernel(const LaunchInfo &info, const Deferred &d);

/* Kernel arguments as CUDA passes them: the launch converts each to its parameter's type once,
 * on the host, and every thread gets a bitwise copy; no constructor or destructor runs for a
 * thread (a by-value struct with a destructor, CUDA by Example's lock, was destroyed once per
 * thread, freeing its mutex while other blocks spun on it). A parameter of a class type that
 * is not trivial for calls (a copy or move constructor or a destructor of its own) is passed
 * by invisible reference in the Itanium C++ ABI that GCC follows on x86-64: the caller makes
 * the object and passes its address. The call below passes the address of a thread's bitwise
 * copy through the same function, typed as taking a pointer there, so nothing of the class
 * runs; other parameters are passed as they are. (tests/kernel_args.cu) */
template <class P>
struct ByInvisibleRef
    : std::integral_constant<bool, std::is_class<P>::value &&
                                       !(std::is_trivially_destructible<P>::value &&
                                         (std::is_trivially_copy_constructible<P>::value ||
                                          !std::is_copy_constructible<P>::value) &&
                                         (std::is_trivially_move_constructible<P>::value ||
                                          !std::is_move_constructible<P>::value) &&
                                         (std::is_copy_constructible<P>::value ||
                                          std::is_move_constructible<P>::value))> {};
template <class P, bool = ByInvisibleRef<P>::value>
struct ThreadArg { /* a parameter passed as it is: its value */
  const P &value;
  explicit ThreadArg(const P &v) : value(v) {}
  P get() const { return value; }
};
template <class P>
struct ThreadArg<P, true> { /* by invisible reference: the address of a thread's bitwise copy */
  alignas(P) unsigned char bytes[sizeof(P)];
  explicit ThreadArg(const P &v) { __builtin_memcpy(bytes, static_cast<const void *>(__builtin_addressof(v)), sizeof(P)); }
  const void *get() { return bytes; } /* the callee may write its copy */
};
template <class P>
using AbiParam = typename std::conditional<ByInvisibleRef<P>::value, const void *, P>::type;
template <class... P>
struct KernelCall {
  void (*fn)(P...);
  std::tuple<typename std::decay<P>::type...> values; /* the host's copy, made once */
  void operator()() const { call(std::index_sequence_for<P...>{}); }
  /* used only for a kernel with a parameter passed by invisible reference (Launch::typed) */
  template <size_t... I>
  void call(std::index_sequence<I...>) const {
    std::tuple<ThreadArg<typename std::decay<P>::type>...> mine(std::get<I>(values)...);
    using Abi = void (*)(AbiParam<typename std::decay<P>::type>...);
    reinterpret_cast<Abi>(reinterpret_cast<void (*)()>(fn))(std::get<I>(mine).get()...); /* via void (*)(): the cast meant */
  }
};

/* A kernel the launch names plainly (one function, or a template's instance), beside the call
 * as written: launch() passes the arguments as CUDA does where they fit its parameters one by
 * one, and makes the call as written otherwise (a default argument). */
template <class K, class L>
struct KernelRef {
  K fn;
  L call;
};
template <class K, class L>
inline KernelRef<K, L> kernel_ref(K fn, L call) { return KernelRef<K, L>{fn, call}; }

/* A launch's argument written as a literal 0 alone (the rewrite's, where the kernel's parameter
 * types are known): it converts to a parameter type exactly where the literal does, since
 * zero_param<T>(0) is the literal copy-initialising a T (a null pointer, a zero, a class
 * through a constructor from an integer or a pointer that is not explicit), and returns the
 * literal. (Named so that no student file may name it: a student's macro cannot rename it.) */
template <class T>
void zero_param(T);
struct scanlab_emu_zero {
  template <class T, class = decltype(zero_param<T>(0))>
  operator T() const { return 0; }
};

/* What `k<<<g, b, s, st>>>(args)` becomes: launch(...)(caller, args). */
struct Launch {
  LaunchInfo info;
  template <class C>
  static void invoke(const void *p) { (*static_cast<const C *>(p))(); }
  template <class C>
  void start(const C &call) const {
    if (__builtin_expect(info.stream != nullptr, 0) && stream_capturing(info.stream)) {
      capture_kernel(info, defer(call));
      return;
    }
    run_kernel(info, &invoke<C>, &call);
  }
  /* With several devices, the pointer arguments go along for the runtime's check. An argument
   * that is a __device__ array named in host code (it decays to a pointer) fails the launch
   * first (host_named_device_arg says why). */
  template <class C, class... A>
  void start_with(const C &call, const A &...args) const {
    if constexpr ((std::is_array<A>::value || ...)) {
      int i = 0, named = -1;
      ((named = named < 0 && std::is_array<A>::value && is_device_static_object(__builtin_addressof(args), sizeof(A))
                    ? i
                    : named,
        i++),
       ...);
      if (__builtin_expect(named >= 0, 0)) {
        host_named_device_arg(info, named, __builtin_addressof(args)...);
        return;
      }
    }
    if constexpr (data_pointer_count<A...>() > 0) {
      if (__builtin_expect(device_count() > 1, 0)) {
        PointerArgs<data_pointer_count<A...>()> pa;
        int i = 0;
        (pa.add(i++, args), ...);
        pa.publish();
        start(call);
        tls.arg_n = 0; /* a captured launch is not checked */
        return;
      }
    }
    start(call);
  }
  template <class... P, class L, class... A>
  void operator()(const KernelRef<void (*)(P...), L> &k, const A &...args) const {
    typed<P...>(k.fn, k.call, args...);
  }
  /* nvcc refuses a noexcept kernel; so does the emu, where it is launched */
  template <class... P, class L, class... A>
  void operator()(const KernelRef<void (*)(P...) noexcept, L> &, const A &...) const {
    static_assert(sizeof(L) == 0, "an exception specification (noexcept) is not allowed on a __global__ function "
                                  "(nvcc refuses it)");
  }
  template <class K, class L, class... A>
  void operator()(const KernelRef<K, L> &k, const A &...args) const { /* any other kernel type: as written */
    (*this)(k.call, args...);
  }
  /* every argument for its parameter, none a reference (a reference parameter is a pointer in
   * the ABI the typed call relies on): as CUDA passes them; otherwise the call as written */
  template <class... P>
  struct Fits {
    template <class... A>
    static constexpr bool with() {
      if constexpr (sizeof...(P) != sizeof...(A) || (std::is_reference<P>::value || ...)) return false;
      else return (std::is_convertible<const A &, typename std::decay<P>::type>::value && ...);
    }
  };
  template <class... P, class L, class... A>
  void typed(void (*fn)(P...), const L &call, const A &...args) const {
    /* a kernel whose parameters are all passed as they are: each thread's copy is bitwise
     * already, and the call as written is the same (and cheaper to compile: no tuple) */
    if constexpr ((ByInvisibleRef<typename std::decay<P>::type>::value || ...) && Fits<P...>::template with<A...>())
      start_with(KernelCall<P...>{fn, std::tuple<typename std::decay<P>::type...>(args...)}, args...);
    else if constexpr (Fits<P...>::template with<A...>() && (Valueless<A>::value || ...))
      (*this)(call, carried<P>(args)...);
    else
      (*this)(call, args...);
  }
  /* An argument of a type that carries no value (nullptr, the rewrite's literal 0) goes in as
   * its parameter's value, kept in the launch's copy of the arguments: the kernel reads it as a
   * GPU's does. Left as it was, it reached the inlined kernel as a constant, and GCC dropped a
   * store through the null pointer as undefined behaviour, where a GPU fails the launch. */
  template <class A>
  struct Valueless
      : std::integral_constant<bool, std::is_null_pointer<A>::value || std::is_same<A, scanlab_emu_zero>::value> {};
  template <class P, class A>
  static decltype(auto) carried(const A &a) {
    if constexpr (Valueless<A>::value) return static_cast<typename std::decay<P>::type>(a);
    else return (a);
  }
  /* An argument as the call keeps it: an array (a __device__ array named in host code) as a
   * pointer to its first element, as the kernel's parameter takes it. Kept whole, it was copied
   * into the launch's closure: 128 MiB of it overflowed the stack, a crash with no message. */
  template <class A>
  static typename std::decay<A>::type kept(const A &a) {
    if constexpr (std::is_array<A>::value)
      return const_cast<typename std::decay<A>::type>(static_cast<const typename std::remove_extent<A>::type *>(a));
    else
      return a;
  }
  template <class F, class... A>
  void operator()(F fn, const A &...args) const { /* not a plain function: as written */
    start_with(with_kept(fn, kept(args)...), args...);
  }
  template <class F, class... K>
  static auto with_kept(F fn, K... k) {
    return [fn, k...]() { fn(k...); };
  }
};
inline Launch launch(const char *name, const char *file, int line, const void *kaddr, ::dim3 grid,
                     ::dim3 block, size_t smem = 0, cudaStream_t stream = 0) {
  return Launch{LaunchInfo{name, file, line, kaddr, grid, block, smem, stream, 0}};
}
/* A launch through an expression that is not a kernel's name (a function pointer, a table
 * entry): the profile and the diagnostics name the kernel found at the address. */
inline Launch launch_dyn(const char *name, const char *file, int line, const void *kaddr, ::dim3 grid,
                         ::dim3 block, size_t smem = 0, cudaStream_t stream = 0) {
  return Launch{LaunchInfo{name, file, line, kaddr, grid, block, smem, stream, LAUNCH_NAME_BY_ADDRESS}};
}
template <class F>
inline const void *kernel_address(F *f) { return reinterpret_cast<const void *>(f); }

/* The kernels defined in the program's .cu files (cu2cpp.py registers each one that is not a
 * template): their names, and how to call one with the argument array of cudaLaunchKernel. */
typedef void (*PackedCall)(const void *kernel, void **args);
/* A copy of the values an argument array points at, as an argument array of its own (a graph's
 * kernel node keeps one), and how to free it. */
typedef void **(*PackedCopy)(void *const *args);
typedef void (*PackedFree)(void **copy);
bool register_kernel(const void *kernel, const char *name, PackedCall call, PackedCopy copy, PackedFree free);
template <class... P, size_t... I>
inline void call_packed(void (*f)(P...), void **args, std::index_sequence<I...>) {
  f(*static_cast<typename std::remove_reference<P>::type *>(args[I])...);
}
template <class... P>
inline void call_packed_thunk(const void *kernel, void **args) {
  call_packed(reinterpret_cast<void (*)(P...)>(const_cast<void *>(kernel)), args, std::index_sequence_for<P...>{});
}
template <class... P>
struct PackedArgs {
  std::tuple<typename std::decay<P>::type...> values;
  void *ptrs[sizeof...(P) + 1]; /* the last one points back at this object */
};
template <class... P, size_t... I>
inline void **packed_copy_at(void *const *args, std::index_sequence<I...>) {
  auto *c = new PackedArgs<P...>{
      std::tuple<typename std::decay<P>::type...>(*static_cast<typename std::decay<P>::type *>(args[I])...), {}};
  ((c->ptrs[I] = static_cast<void *>(&std::get<I>(c->values))), ...);
  c->ptrs[sizeof...(P)] = c;
  return c->ptrs;
}
template <class... P>
inline void **packed_copy(void *const *args) {
  return packed_copy_at<P...>(args, std::index_sequence_for<P...>{});
}
template <class... P>
inline void packed_free(void **copy) {
  delete static_cast<PackedArgs<P...> *>(copy[sizeof...(P)]);
}
template <class... P>
inline bool kernel_register(void (*f)(P...), const char *name) {
  return register_kernel(reinterpret_cast<const void *>(f), name, &call_packed_thunk<P...>, &packed_copy<P...>,
                         &packed_free<P...>);
}
template <class Tuple, size_t... I>
inline void point_at(Tuple &t, void **ptrs, std::index_sequence<I...>) {
  ((ptrs[I] = static_cast<void *>(&std::get<I>(t))), ...);
}
/* A kernel and its own copy of the arguments (a launch captured into a graph). */
template <class... P>
struct OwnedCall {
  void (*f)(P...);
  void **args;
  OwnedCall(void (*f_)(P...), void *const *a) : f(f_), args(packed_copy<P...>(a)) {}
  OwnedCall(const OwnedCall &o) : f(o.f), args(packed_copy<P...>(o.args)) {}
  OwnedCall &operator=(const OwnedCall &) = delete;
  ~OwnedCall() { packed_free<P...>(args); }
  void operator()() const { call_packed(f, args, std::index_sequence_for<P...>{}); }
};
/* The pointer arguments of an argument array (with several devices). */
template <class... P, int N, size_t... I>
inline void packed_pointers(PointerArgs<N> &pa, void **args, std::index_sequence<I...>) {
  (pa.add((int)I, *static_cast<const typename std::decay<P>::type *>(args[I])), ...);
}
/* cudaLaunchKernel and cudaLaunchCooperativeKernel with the kernel's type known. */
template <class... P>
inline cudaError_t launch_packed(void (*f)(P...), ::dim3 grid, ::dim3 block, void **args, size_t smem,
                                 cudaStream_t stream, unsigned flags, const char *file, int line) {
  LaunchInfo info{nullptr, file, line, reinterpret_cast<const void *>(f), grid, block, smem, stream,
                  flags | LAUNCH_NAME_BY_ADDRESS};
  if (__builtin_expect(stream != nullptr, 0) && stream_capturing(stream))
    return capture_kernel(info, defer(OwnedCall<P...>(f, args)));
  auto call = [f, args]() { call_packed(f, args, std::index_sequence_for<P...>{}); };
  if constexpr (data_pointer_count<P...>() > 0) {
    if (__builtin_expect(device_count() > 1, 0) && args) {
      PointerArgs<data_pointer_count<P...>()> pa;
      packed_pointers<P...>(pa, args, std::index_sequence_for<P...>{});
      pa.publish();
      const cudaError_t e = run_kernel(info, &Launch::invoke<decltype(call)>, &call);
      tls.arg_n = 0;
      return e;
    }
  }
  return run_kernel(info, &Launch::invoke<decltype(call)>, &call);
}

/* ---- a kernel's block as loops over its threads (loops.py writes the kernel's loops version;
 * sched.cpp's run_loops calls it once for a block). The threads run one after another between
 * two barriers; each local that lives across a barrier is a PerThread array. */
/* at the kernel's entry: true where this block runs as loops; the lines of the barriers the
 * loops version holds (a barrier elsewhere, on fibers, keeps the kernel on fibers) */
bool loops_entry(const char *file, const int *lines, int nlines);
void set_thread_index(const ::uint3 &t); /* builtins.cpp */
struct LoopsBlockInfo {
  int n;
  const ::uint3 *tidx;
  unsigned char *gone;
  char *fibers;
  size_t fiber_size;
};
LoopsBlockInfo loops_block();
void *loops_alloc(size_t bytes, size_t align);
void loops_barrier(const char *file, int line);
void loops_exit(int t);
[[noreturn]] void loops_diverged(const char *file, int line, int first, int other);
/* The loops version is compiled without ThreadSanitizer's hooks (a file that says `volatile`
 * has them, for the lockstep warps: four in five of a volatile scan's time as loops went to
 * them), and so are these, which it inlines. */
#define SCANLAB_EMU_LOOPS_FN __attribute__((always_inline, no_sanitize_thread)) inline
struct LoopsBlock {
  int t = 0;
  LoopsBlockInfo b;
  LoopsBlock() : b(loops_block()) {}
  SCANLAB_EMU_LOOPS_FN void enter() {
    tls.loops_t = t;
    tls.thread_idx = b.tidx[t];
    set_thread_index(b.tidx[t]); /* for the functions it calls, which read threadIdx itself */
    tls.fiber = b.fibers + (size_t)t * b.fiber_size;
  }
  SCANLAB_EMU_LOOPS_FN void begin() {
    t = -1;
    next();
  }
  SCANLAB_EMU_LOOPS_FN bool more() const { return t < b.n; }
  SCANLAB_EMU_LOOPS_FN void next() {
    while (++t < b.n && b.gone[t]) {
    }
    if (t < b.n) enter();
  }
  /* a thread that returned, in a loop that sets no thread's records (loops.py's lean loops) */
  SCANLAB_EMU_LOOPS_FN bool skip() const { return gone_any && b.gone[t]; }
  /* before a loop that sets no thread's records: a fault in it names no thread */
  SCANLAB_EMU_LOOPS_FN void untracked() { tls.loops_t = -1; }
  bool gone_any = false;
  void exit_thread() {
    gone_any = true;
    loops_exit(t);
  }
  void barrier(const char *file, int line) { loops_barrier(file, line); }
  /* a condition with a barrier inside what it guards: the same for every live thread */
  template <class F>
  SCANLAB_EMU_LOOPS_FN bool uniform(F f, const char *file, int line) {
    int first = -1;
    bool v = false;
    for (begin(); more(); next()) {
      const bool c = f();
      if (first < 0) first = t, v = c;
      else if (c != v) loops_diverged(file, line, first, t);
    }
    return v;
  }
};
template <class T>
using LoopsLocal = T; /* a local of one loop over the threads (loops.py), its type as written */
/* A value all the block's threads share (loops.py's uniformize): read as a T, set only through
 * set() (an increment, a member's store or a reference to it does not compile). */
template <class T>
struct Uniform {
  T v{};
  Uniform() = default;
  /* not trivially copyable: passed to printf's `...` (the rewrite missed a use there), it does
   * not compile, where as a wrapper it would print another value */
  SCANLAB_EMU_LOOPS_FN Uniform(const Uniform &o) : v(o.v) {}
  SCANLAB_EMU_LOOPS_FN operator const T &() const { return v; }
  template <class I>
  SCANLAB_EMU_LOOPS_FN decltype(auto) operator[](const I &i) const { return v[i]; } /* a pointer's element */
  SCANLAB_EMU_LOOPS_FN void set(const T &x) { v = x; }
};
template <class T>
struct PerThread {
  static_assert(std::is_trivially_destructible<T>::value, "loops: a PerThread local is trivially destructible");
  T *p;
  explicit PerThread(const LoopsBlock &lb) : p(static_cast<T *>(loops_alloc(sizeof(T) * (size_t)lb.b.n, alignof(T)))) {
    /* a class that makes itself (default member initialisers) would be made once for the block,
     * where the kernel makes it each time it is declared: such a kernel stays on fibers (its
     * loops version does not compile) */
    static_assert(std::is_trivially_default_constructible<T>::value, "loops: a local the loops keep per thread is "
                  "trivially constructible");
  }
  SCANLAB_EMU_LOOPS_FN T &operator[](int t) const { return p[t]; }
};

/* cooperative groups (cooperative_groups.h) */
void grid_sync(const char *file, int line);
bool grid_is_cooperative();
unsigned coalesced_mask(const char *file, int line);
[[noreturn]] void unsupported_at_run_time(const char *what, const char *file, int line);

cudaError_t func_set_attribute(const char *text, const void *func, cudaFuncAttribute attr, int value);
template <class F>
inline cudaError_t func_set_attribute(const char *text, F *func, cudaFuncAttribute attr, int value) {
  return func_set_attribute(text, reinterpret_cast<const void *>(func), attr, value);
}

template <class T>
inline unsigned long long to_bits(const T &v) {
  static_assert(sizeof(T) <= 8, "warp collectives exchange values of at most 8 bytes");
  unsigned long long b = 0;
  __builtin_memcpy(&b, &v, sizeof(T));
  return b;
}
template <class T>
inline T from_bits(unsigned long long b) {
  T v;
  __builtin_memcpy(static_cast<void *>(&v), &b, sizeof(T));
  return v;
}

}  // namespace scanlab_emu

/* The device side (built-in variables, barriers, collectives, atomics, intrinsics, the math
 * overloads) is seen where nvcc shows it: in .cu files (scanlab_emu.h defines __CUDACC__) and
 * in the emulator's runtime. A host .cpp file that includes cuda_runtime.h gets the host API
 * and its C++ overloads only, as with the toolkit, so it may define its own min, max or
 * rsqrtf (the samples' helper_math.h does, outside __CUDACC__). */
#if defined(__CUDACC__) || defined(SCANLAB_EMU_RUNTIME)

/* ---- built-in variables ---- */
/* Declared as the toolkit declares them: const objects, of its types, not macros, so a type
 * test (decltype, a trait, an overload on const) sees what it sees under nvcc. The runtime
 * sets them (builtins.cpp): the index on every switch to another CUDA thread, the rest when a
 * block starts; each CUDA thread sees the same values throughout, as on a GPU. A struct may
 * have a member of these names, as cudaKernelNodeParams does. */
#ifndef SCANLAB_EMU_LOOPS_BUILD
extern __thread const ::uint3 threadIdx;
#else
/* A file with kernels as loops (loops.py, emu-nvcc's builds): one host thread runs a block's
 * CUDA threads one after another, setting threadIdx at each step, so the compiler must not take
 * it for a constant, as it may a const object (it read it once for a whole loop, in a function
 * the kernel calls: every thread got thread 0's index). Here threadIdx is a call that gives
 * the runtime's object, which is not const, as a const uint3 lvalue: the same type to a
 * template, an overload or sizeof as nvcc's, read-only, read again after each call (decltype
 * says a reference; tests/loops_unseen_code.cu). */
extern __thread ::uint3 scanlab_emu_thread_index_now __asm__("threadIdx");
__attribute__((always_inline)) inline const ::uint3 &scanlab_emu_thread_index() { return scanlab_emu_thread_index_now; }
#define threadIdx scanlab_emu_thread_index() /* at namespace scope: ::threadIdx works too */
#endif
extern __thread const ::uint3 blockIdx;
extern __thread const ::dim3 blockDim;
extern __thread const ::dim3 gridDim;
extern const int warpSize;
namespace scanlab_emu {
void set_thread_index(const ::uint3 &t);
void set_block_builtins(const ::uint3 &block, const ::uint3 &block_dim, const ::uint3 &grid_dim);
}  // namespace scanlab_emu

/* Fallback for code that cu2cpp.py did not rewrite (see the README). */
#define __shared__ static thread_local

#define SCANLAB_EMU_SITE const char *scanlab_emu_file = __builtin_FILE(), int scanlab_emu_line = __builtin_LINE()
#define SCANLAB_EMU_AT scanlab_emu_file, scanlab_emu_line

/* ---- barriers ---- */
inline void __syncthreads(SCANLAB_EMU_SITE) { ::scanlab_emu::barrier(::scanlab_emu::BAR_SYNC, 1, SCANLAB_EMU_AT); }
inline int __syncthreads_count(int pred, SCANLAB_EMU_SITE) {
  return ::scanlab_emu::barrier(::scanlab_emu::BAR_COUNT, pred, SCANLAB_EMU_AT);
}
inline int __syncthreads_and(int pred, SCANLAB_EMU_SITE) {
  return ::scanlab_emu::barrier(::scanlab_emu::BAR_AND, pred, SCANLAB_EMU_AT);
}
inline int __syncthreads_or(int pred, SCANLAB_EMU_SITE) {
  return ::scanlab_emu::barrier(::scanlab_emu::BAR_OR, pred, SCANLAB_EMU_AT);
}

/* ---- warp collectives ---- */
inline void __syncwarp(unsigned mask = 0xffffffffu, SCANLAB_EMU_SITE) {
  ::scanlab_emu::collective(::scanlab_emu::COLL_SYNCWARP, mask, 0, 0, 32, SCANLAB_EMU_AT);
}
template <class T>
inline T __shfl_sync(unsigned mask, T var, int srcLane, int width = warpSize, SCANLAB_EMU_SITE) {
  return ::scanlab_emu::from_bits<T>(::scanlab_emu::collective(
      ::scanlab_emu::COLL_SHFL, mask, ::scanlab_emu::to_bits(var), srcLane, width, SCANLAB_EMU_AT));
}
template <class T>
inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = warpSize, SCANLAB_EMU_SITE) {
  return ::scanlab_emu::from_bits<T>(::scanlab_emu::collective(
      ::scanlab_emu::COLL_SHFL_UP, mask, ::scanlab_emu::to_bits(var), (int)delta, width, SCANLAB_EMU_AT));
}
template <class T>
inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = warpSize, SCANLAB_EMU_SITE) {
  return ::scanlab_emu::from_bits<T>(::scanlab_emu::collective(
      ::scanlab_emu::COLL_SHFL_DOWN, mask, ::scanlab_emu::to_bits(var), (int)delta, width, SCANLAB_EMU_AT));
}
template <class T>
inline T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = warpSize, SCANLAB_EMU_SITE) {
  return ::scanlab_emu::from_bits<T>(::scanlab_emu::collective(
      ::scanlab_emu::COLL_SHFL_XOR, mask, ::scanlab_emu::to_bits(var), laneMask, width, SCANLAB_EMU_AT));
}
inline unsigned __ballot_sync(unsigned mask, int pred, SCANLAB_EMU_SITE) {
  return (unsigned)::scanlab_emu::collective(::scanlab_emu::COLL_BALLOT, mask, pred != 0, 0, 32, SCANLAB_EMU_AT);
}
inline int __any_sync(unsigned mask, int pred, SCANLAB_EMU_SITE) {
  return (int)::scanlab_emu::collective(::scanlab_emu::COLL_ANY, mask, pred != 0, 0, 32, SCANLAB_EMU_AT);
}
inline int __all_sync(unsigned mask, int pred, SCANLAB_EMU_SITE) {
  return (int)::scanlab_emu::collective(::scanlab_emu::COLL_ALL, mask, pred != 0, 0, 32, SCANLAB_EMU_AT);
}
template <class T>
inline unsigned __match_any_sync(unsigned mask, T value, SCANLAB_EMU_SITE) {
  return (unsigned)::scanlab_emu::collective(::scanlab_emu::COLL_MATCH_ANY, mask, ::scanlab_emu::to_bits(value),
                                             0, 32, SCANLAB_EMU_AT);
}
template <class T>
inline unsigned __match_all_sync(unsigned mask, T value, int *pred, SCANLAB_EMU_SITE) {
  unsigned r = (unsigned)::scanlab_emu::collective(::scanlab_emu::COLL_MATCH_ALL, mask,
                                                   ::scanlab_emu::to_bits(value), 0, 32, SCANLAB_EMU_AT);
  *pred = r != 0;
  return r;
}
inline unsigned __reduce_add_sync(unsigned mask, unsigned value, SCANLAB_EMU_SITE) {
  return (unsigned)::scanlab_emu::collective(::scanlab_emu::COLL_REDUCE_ADD, mask, value, 0, 32, SCANLAB_EMU_AT);
}
inline int __reduce_add_sync(unsigned mask, int value, SCANLAB_EMU_SITE) {
  return (int)::scanlab_emu::collective(::scanlab_emu::COLL_REDUCE_ADD, mask, (unsigned)value, 0, 32, SCANLAB_EMU_AT);
}
inline unsigned __reduce_min_sync(unsigned mask, unsigned value, SCANLAB_EMU_SITE) {
  return (unsigned)::scanlab_emu::collective(::scanlab_emu::COLL_REDUCE_MIN_U, mask, value, 0, 32, SCANLAB_EMU_AT);
}
inline unsigned __reduce_max_sync(unsigned mask, unsigned value, SCANLAB_EMU_SITE) {
  return (unsigned)::scanlab_emu::collective(::scanlab_emu::COLL_REDUCE_MAX_U, mask, value, 0, 32, SCANLAB_EMU_AT);
}
inline int __reduce_min_sync(unsigned mask, int value, SCANLAB_EMU_SITE) {
  return (int)::scanlab_emu::collective(::scanlab_emu::COLL_REDUCE_MIN_I, mask, (unsigned)value, 0, 32,
                                        SCANLAB_EMU_AT);
}
inline int __reduce_max_sync(unsigned mask, int value, SCANLAB_EMU_SITE) {
  return (int)::scanlab_emu::collective(::scanlab_emu::COLL_REDUCE_MAX_I, mask, (unsigned)value, 0, 32,
                                        SCANLAB_EMU_AT);
}
inline unsigned __reduce_and_sync(unsigned mask, unsigned value, SCANLAB_EMU_SITE) {
  return (unsigned)::scanlab_emu::collective(::scanlab_emu::COLL_REDUCE_AND, mask, value, 0, 32, SCANLAB_EMU_AT);
}
inline unsigned __reduce_or_sync(unsigned mask, unsigned value, SCANLAB_EMU_SITE) {
  return (unsigned)::scanlab_emu::collective(::scanlab_emu::COLL_REDUCE_OR, mask, value, 0, 32, SCANLAB_EMU_AT);
}
inline unsigned __reduce_xor_sync(unsigned mask, unsigned value, SCANLAB_EMU_SITE) {
  return (unsigned)::scanlab_emu::collective(::scanlab_emu::COLL_REDUCE_XOR, mask, value, 0, 32, SCANLAB_EMU_AT);
}
/* The lanes that reach this call together, as a GPU's converged lanes do: gathered as
 * coalesced_threads() gathers them (the lanes of the warp waiting at this call once no thread of
 * the block can run on), so a lane in a branch sees only the lanes that took it. */
inline unsigned __activemask(SCANLAB_EMU_SITE) { return ::scanlab_emu::coalesced_mask(SCANLAB_EMU_AT); }

/* ---- memory fences, sleeping, clocks ---- */
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); ::scanlab_emu::fence_point(); }
inline void __threadfence_block() { __atomic_signal_fence(__ATOMIC_SEQ_CST); ::scanlab_emu::yield_point(); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); ::scanlab_emu::fence_point(); }
inline void __nanosleep(unsigned ns) { (void)ns; ::scanlab_emu::sleep_point(); }
inline long long clock64() { return ::scanlab_emu::device_clock(); }

/* ---- ending a kernel, optimization hints ---- */
namespace scanlab_emu {
[[noreturn]] void device_trap(const char *file, int line);
}
/* __trap(): the launch fails (cudaErrorLaunchFailure, sticky), as a GPU's trap instruction
 * ends it; the message names the thread that called it. */
[[noreturn]] inline void __trap(SCANLAB_EMU_SITE) { ::scanlab_emu::device_trap(scanlab_emu_file, scanlab_emu_line); }
/* __builtin_assume(e): a promise to nvcc's optimizer, never evaluated; GCC has no such built-in.
 * (Its other hints, __builtin_expect, __builtin_unreachable and __builtin_assume_aligned, are
 * GCC's too.) */
#if !__has_builtin(__builtin_assume)
#define __builtin_assume(...) ((void)sizeof((__VA_ARGS__) ? 1 : 0))
#endif

/* ---- loads ---- */
template <class T>
inline T __ldg(const T *p) { return *p; }
template <class T>
inline T __ldcg(const T *p) { return *p; }
template <class T>
inline T __ldca(const T *p) { return *p; }
template <class T>
inline T __ldcs(const T *p) { return *p; }
template <class T>
inline T __ldlu(const T *p) { return *p; }
template <class T>
inline T __ldcv(const T *p) { return *(const volatile T *)p; }
template <class T>
inline void __stcg(T *p, T v) { *p = v; }
template <class T>
inline void __stcs(T *p, T v) { *p = v; }
template <class T>
inline void __stwt(T *p, T v) { *p = v; }
template <class T>
inline void __stwb(T *p, T v) { *p = v; }

/* ---- integer and bit intrinsics ---- */
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x) {
  x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
  x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
  x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
  return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
  return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
inline int __mul24(int a, int b) { return (int)(((long long)(a << 8 >> 8)) * (b << 8 >> 8)); }
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)((((unsigned long long)hi << 32 | lo) << (s & 31)) >> 32);
}
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)(((unsigned long long)hi << 32 | lo) >> (s & 31));
}
/* the clamping forms: a shift past 32 is 32 */
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)((((unsigned long long)hi << 32 | lo) << (s < 32 ? s : 32)) >> 32);
}
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s) {
  return (unsigned)(((unsigned long long)hi << 32 | lo) >> (s < 32 ? s : 32));
}

/* ---- float intrinsics ---- */
inline float __int_as_float(int x) { return ::scanlab_emu::from_bits<float>((unsigned)x); }
inline int __float_as_int(float x) { return (int)(unsigned)::scanlab_emu::to_bits(x); }
inline float __uint_as_float(unsigned x) { return ::scanlab_emu::from_bits<float>(x); }
inline unsigned __float_as_uint(float x) { return (unsigned)::scanlab_emu::to_bits(x); }
inline double __longlong_as_double(long long x) { return ::scanlab_emu::from_bits<double>((unsigned long long)x); }
inline long long __double_as_longlong(double x) { return (long long)::scanlab_emu::to_bits(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __powf(float a, float b) { return powf(a, b); }
/* a NaN is 0, as on the GPU */
inline float __saturatef(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }

/* ---- min and max: the overloads the CUDA math headers declare ---- */
#define SCANLAB_EMU_MINMAX(R, A, B)                                      \
  inline R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }           \
  inline R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
SCANLAB_EMU_MINMAX(int, int, int)
SCANLAB_EMU_MINMAX(unsigned int, unsigned int, unsigned int)
SCANLAB_EMU_MINMAX(unsigned int, int, unsigned int)
SCANLAB_EMU_MINMAX(unsigned int, unsigned int, int)
SCANLAB_EMU_MINMAX(long, long, long)
SCANLAB_EMU_MINMAX(unsigned long, unsigned long, unsigned long)
SCANLAB_EMU_MINMAX(unsigned long, long, unsigned long)
SCANLAB_EMU_MINMAX(unsigned long, unsigned long, long)
SCANLAB_EMU_MINMAX(long long, long long, long long)
SCANLAB_EMU_MINMAX(unsigned long long, unsigned long long, unsigned long long)
SCANLAB_EMU_MINMAX(unsigned long long, long long, unsigned long long)
SCANLAB_EMU_MINMAX(unsigned long long, unsigned long long, long long)
SCANLAB_EMU_MINMAX(float, float, float)
SCANLAB_EMU_MINMAX(double, double, double)
SCANLAB_EMU_MINMAX(double, float, double)
SCANLAB_EMU_MINMAX(double, double, float)
#undef SCANLAB_EMU_MINMAX

/* ---- atomics (sequentially consistent; each one is a switch point) ---- */
/* CHANGED: whether the operation changed the word, from the old value and the operand */
#define SCANLAB_EMU_RMW(NAME, T, OP, CHANGED)                                  \
  inline T NAME(T *address, T val) {                                          \
    T old = OP(address, val, __ATOMIC_SEQ_CST);                               \
    ::scanlab_emu::atomic_point(address, CHANGED);                            \
    return old;                                                               \
  }
#define SCANLAB_EMU_RMW_ALL(T)                                                 \
  SCANLAB_EMU_RMW(atomicAdd, T, __atomic_fetch_add, val != 0)                 \
  SCANLAB_EMU_RMW(atomicSub, T, __atomic_fetch_sub, val != 0)                 \
  SCANLAB_EMU_RMW(atomicExch, T, __atomic_exchange_n, old != val)             \
  SCANLAB_EMU_RMW(atomicAnd, T, __atomic_fetch_and, (old & val) != old)       \
  SCANLAB_EMU_RMW(atomicOr, T, __atomic_fetch_or, (old | val) != old)         \
  SCANLAB_EMU_RMW(atomicXor, T, __atomic_fetch_xor, val != 0)
SCANLAB_EMU_RMW_ALL(int)
SCANLAB_EMU_RMW_ALL(unsigned int)
SCANLAB_EMU_RMW_ALL(unsigned long long)
SCANLAB_EMU_RMW_ALL(long long)
#undef SCANLAB_EMU_RMW_ALL
#undef SCANLAB_EMU_RMW

/* Compare-and-swap loop for the atomics the hardware builds from CAS. */
namespace scanlab_emu {
template <class T, class F>
inline T atomic_update(T *address, F f) {
  T old = __atomic_load_n(address, __ATOMIC_SEQ_CST);
  T now = f(old);
  while (!__atomic_compare_exchange_n(address, &old, now, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    now = f(old);
  }
  atomic_point(address, !(now == old));
  return old;
}
}  // namespace scanlab_emu

#define SCANLAB_EMU_MINMAX_ATOMIC(T)                                                             \
  inline T atomicMin(T *a, T v) { return ::scanlab_emu::atomic_update(a, [v](T o) { return v < o ? v : o; }); } \
  inline T atomicMax(T *a, T v) { return ::scanlab_emu::atomic_update(a, [v](T o) { return v > o ? v : o; }); }
SCANLAB_EMU_MINMAX_ATOMIC(int)
SCANLAB_EMU_MINMAX_ATOMIC(unsigned int)
SCANLAB_EMU_MINMAX_ATOMIC(long long)
SCANLAB_EMU_MINMAX_ATOMIC(unsigned long long)
#undef SCANLAB_EMU_MINMAX_ATOMIC

inline int atomicCAS(int *a, int compare, int val) {
  const bool swapped = __atomic_compare_exchange_n(a, &compare, val, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  ::scanlab_emu::atomic_point(a, swapped && compare != val);
  return compare;
}
inline unsigned int atomicCAS(unsigned int *a, unsigned int compare, unsigned int val) {
  const bool swapped = __atomic_compare_exchange_n(a, &compare, val, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  ::scanlab_emu::atomic_point(a, swapped && compare != val);
  return compare;
}
inline unsigned long long atomicCAS(unsigned long long *a, unsigned long long compare, unsigned long long val) {
  const bool swapped = __atomic_compare_exchange_n(a, &compare, val, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  ::scanlab_emu::atomic_point(a, swapped && compare != val);
  return compare;
}
inline unsigned short atomicCAS(unsigned short *a, unsigned short compare, unsigned short val) {
  const bool swapped = __atomic_compare_exchange_n(a, &compare, val, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
  ::scanlab_emu::atomic_point(a, swapped && compare != val);
  return compare;
}
inline unsigned int atomicInc(unsigned int *a, unsigned int val) {
  return ::scanlab_emu::atomic_update(a, [val](unsigned o) { return o >= val ? 0u : o + 1u; });
}
inline unsigned int atomicDec(unsigned int *a, unsigned int val) {
  return ::scanlab_emu::atomic_update(a, [val](unsigned o) { return (o == 0u || o > val) ? val : o - 1u; });
}
inline float atomicAdd(float *a, float v) {
  unsigned *p = reinterpret_cast<unsigned *>(a);
  unsigned old = ::scanlab_emu::atomic_update(p, [v](unsigned o) { return __float_as_uint(__uint_as_float(o) + v); });
  return __uint_as_float(old);
}
inline double atomicAdd(double *a, double v) {
  unsigned long long *p = reinterpret_cast<unsigned long long *>(a);
  unsigned long long old = ::scanlab_emu::atomic_update(
      p, [v](unsigned long long o) { return (unsigned long long)__double_as_longlong(__longlong_as_double((long long)o) + v); });
  return __longlong_as_double((long long)old);
}
/* compute capability 9.x's vector adds: atomic for each element, not for the vector as a whole */
inline float2 atomicAdd(float2 *a, float2 v) { return make_float2(atomicAdd(&a->x, v.x), atomicAdd(&a->y, v.y)); }
inline float4 atomicAdd(float4 *a, float4 v) {
  return make_float4(atomicAdd(&a->x, v.x), atomicAdd(&a->y, v.y), atomicAdd(&a->z, v.z), atomicAdd(&a->w, v.w));
}
inline float atomicExch(float *a, float v) {
  return __uint_as_float(atomicExch(reinterpret_cast<unsigned *>(a), __float_as_uint(v)));
}
/* One device, one memory: the scoped atomics are the plain ones. */
#define SCANLAB_EMU_SCOPED(op) \
  template <class... A> inline auto op##_block(A... a) { return op(a...); } \
  template <class... A> inline auto op##_system(A... a) { return op(a...); }
SCANLAB_EMU_SCOPED(atomicAdd)
SCANLAB_EMU_SCOPED(atomicSub)
SCANLAB_EMU_SCOPED(atomicExch)
SCANLAB_EMU_SCOPED(atomicMin)
SCANLAB_EMU_SCOPED(atomicMax)
SCANLAB_EMU_SCOPED(atomicInc)
SCANLAB_EMU_SCOPED(atomicDec)
SCANLAB_EMU_SCOPED(atomicCAS)
SCANLAB_EMU_SCOPED(atomicAnd)
SCANLAB_EMU_SCOPED(atomicOr)
SCANLAB_EMU_SCOPED(atomicXor)
#undef SCANLAB_EMU_SCOPED

/* ---- conversions with a rounding mode ---- */
inline int __float2int_rn(float x) { return (int)nearbyintf(x); }
inline int __float2int_rz(float x) { return (int)x; }
inline int __float2int_ru(float x) { return (int)ceilf(x); }
inline int __float2int_rd(float x) { return (int)floorf(x); }
inline unsigned __float2uint_rn(float x) { return (unsigned)nearbyintf(x); }
inline unsigned __float2uint_rz(float x) { return (unsigned)x; }
inline long long __float2ll_rn(float x) { return (long long)nearbyintf(x); }
inline long long __float2ll_rz(float x) { return (long long)x; }
inline float __int2float_rn(int x) { return (float)x; }
inline float __uint2float_rn(unsigned x) { return (float)x; }
inline float __ll2float_rn(long long x) { return (float)x; }
inline int __double2int_rn(double x) { return (int)nearbyint(x); }
inline int __double2int_rz(double x) { return (int)x; }
inline double __int2double_rn(int x) { return (double)x; }
inline float __double2float_rn(double x) { return (float)x; }
inline float __fsub_rn(float a, float b) { return a - b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline float __exp10f(float x) { return powf(10.0f, x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __tanf(float x) { return tanf(x); }
inline void __sincosf(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
inline unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
inline unsigned __urhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b + 1) >> 1); }
inline unsigned __sad(int a, int b, unsigned c) { return c + (unsigned)(a > b ? a - b : b - a); }
inline unsigned __usad(unsigned a, unsigned b, unsigned c) { return c + (a > b ? a - b : b - a); }
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
  const unsigned long long v = (unsigned long long)y << 32 | x;
  unsigned r = 0;
  for (int k = 0; k < 4; k++) r |= (unsigned)((v >> (((s >> (4 * k)) & 7) * 8)) & 0xff) << (8 * k);
  return r;
}

#include "scanlab_emu_math.h"

/* ---- not emulated: inline PTX (cu2cpp.py puts this call where an asm statement was) ---- */
void scanlab_emu_inline_ptx_asm()
    SCANLAB_EMU_UNSUPPORTED("inline PTX assembly (asm): write it with CUDA C++ intrinsics for the emu");

/* ---- texture and surface objects (runtime/texture.cpp) ---- */
namespace scanlab_emu {
/* A fetch's result: float components (f) where the texture returns floats (linear filtering,
 * cudaReadModeNormalizedFloat, half components), else the texel's bytes (raw). */
struct TexSample {
  float f[4];
  unsigned char raw[16];
  size_t elem;
  int comps;
  int floats;
};
void tex_sample(unsigned long long tex, int dims, bool fetch, float x, float y, float z, TexSample *r, const char *fn,
                const char *file, int line);
void *surf_address(unsigned long long surf, int dims, long long xb, long long y, long long z, size_t bytes, int mode,
                   const char *fn, const char *file, int line);
[[noreturn]] void device_fault(const char *what, const char *file, int line);
template <class T>
struct is_float_vector
    : std::integral_constant<bool, std::is_same<T, float>::value || std::is_same<T, float1>::value ||
                                       std::is_same<T, float2>::value || std::is_same<T, float4>::value> {};
template <class T>
inline T tex_value(const TexSample &r, const char *fn, const char *file, int line) {
  T v;
  __builtin_memset(static_cast<void *>(&v), 0, sizeof v);
  if (r.floats) {
    if (!is_float_vector<T>::value)
      device_fault(fn, file, line); /* a float-returning texture read as a non-float type */
    __builtin_memcpy(static_cast<void *>(&v), r.f, sizeof(T) < sizeof r.f ? sizeof(T) : sizeof r.f);
    return v;
  }
  if (sizeof(T) != r.elem) device_fault(fn, file, line); /* the type's size is not the texel's */
  __builtin_memcpy(static_cast<void *>(&v), r.raw, sizeof(T));
  return v;
}
}  // namespace scanlab_emu
template <class T>
inline T tex1Dfetch(cudaTextureObject_t t, int x, SCANLAB_EMU_SITE) {
  ::scanlab_emu::TexSample r;
  ::scanlab_emu::tex_sample(t, 1, true, (float)x, 0, 0, &r, "tex1Dfetch", SCANLAB_EMU_AT);
  return ::scanlab_emu::tex_value<T>(r, "tex1Dfetch<T>: T does not match what the texture returns", SCANLAB_EMU_AT);
}
template <class T>
inline void tex1Dfetch(T *out, cudaTextureObject_t t, int x, SCANLAB_EMU_SITE) {
  *out = tex1Dfetch<T>(t, x, SCANLAB_EMU_AT);
}
template <class T>
inline T tex1D(cudaTextureObject_t t, float x, SCANLAB_EMU_SITE) {
  ::scanlab_emu::TexSample r;
  ::scanlab_emu::tex_sample(t, 1, false, x, 0, 0, &r, "tex1D", SCANLAB_EMU_AT);
  return ::scanlab_emu::tex_value<T>(r, "tex1D<T>: T does not match what the texture returns", SCANLAB_EMU_AT);
}
template <class T>
inline void tex1D(T *out, cudaTextureObject_t t, float x, SCANLAB_EMU_SITE) {
  *out = tex1D<T>(t, x, SCANLAB_EMU_AT);
}
template <class T>
inline T tex2D(cudaTextureObject_t t, float x, float y, SCANLAB_EMU_SITE) {
  ::scanlab_emu::TexSample r;
  ::scanlab_emu::tex_sample(t, 2, false, x, y, 0, &r, "tex2D", SCANLAB_EMU_AT);
  return ::scanlab_emu::tex_value<T>(r, "tex2D<T>: T does not match what the texture returns", SCANLAB_EMU_AT);
}
template <class T>
inline void tex2D(T *out, cudaTextureObject_t t, float x, float y, SCANLAB_EMU_SITE) {
  *out = tex2D<T>(t, x, y, SCANLAB_EMU_AT);
}
template <class T>
inline T tex3D(cudaTextureObject_t t, float x, float y, float z, SCANLAB_EMU_SITE) {
  ::scanlab_emu::TexSample r;
  ::scanlab_emu::tex_sample(t, 3, false, x, y, z, &r, "tex3D", SCANLAB_EMU_AT);
  return ::scanlab_emu::tex_value<T>(r, "tex3D<T>: T does not match what the texture returns", SCANLAB_EMU_AT);
}
template <class T>
inline void tex3D(T *out, cudaTextureObject_t t, float x, float y, float z, SCANLAB_EMU_SITE) {
  *out = tex3D<T>(t, x, y, z, SCANLAB_EMU_AT);
}
/* Surfaces: x in bytes; the boundary mode as on the GPU (trap: the launch fails). */
template <class T>
inline void surf1Dwrite(T v, cudaSurfaceObject_t s, int x, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap,
                        SCANLAB_EMU_SITE) {
  void *p = ::scanlab_emu::surf_address(s, 1, x, 0, 0, sizeof(T), m, "surf1Dwrite", SCANLAB_EMU_AT);
  if (p) __builtin_memcpy(p, static_cast<const void *>(&v), sizeof(T));
}
template <class T>
inline void surf2Dwrite(T v, cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap,
                        SCANLAB_EMU_SITE) {
  void *p = ::scanlab_emu::surf_address(s, 2, x, y, 0, sizeof(T), m, "surf2Dwrite", SCANLAB_EMU_AT);
  if (p) __builtin_memcpy(p, static_cast<const void *>(&v), sizeof(T));
}
template <class T>
inline void surf3Dwrite(T v, cudaSurfaceObject_t s, int x, int y, int z,
                        cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap, SCANLAB_EMU_SITE) {
  void *p = ::scanlab_emu::surf_address(s, 3, x, y, z, sizeof(T), m, "surf3Dwrite", SCANLAB_EMU_AT);
  if (p) __builtin_memcpy(p, static_cast<const void *>(&v), sizeof(T));
}
template <class T>
inline T surf1Dread(cudaSurfaceObject_t s, int x, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap, SCANLAB_EMU_SITE) {
  T v;
  __builtin_memset(static_cast<void *>(&v), 0, sizeof v);
  const void *p = ::scanlab_emu::surf_address(s, 1, x, 0, 0, sizeof(T), m, "surf1Dread", SCANLAB_EMU_AT);
  if (p) __builtin_memcpy(static_cast<void *>(&v), p, sizeof(T));
  return v;
}
template <class T>
inline T surf2Dread(cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap,
                    SCANLAB_EMU_SITE) {
  T v;
  __builtin_memset(static_cast<void *>(&v), 0, sizeof v);
  const void *p = ::scanlab_emu::surf_address(s, 2, x, y, 0, sizeof(T), m, "surf2Dread", SCANLAB_EMU_AT);
  if (p) __builtin_memcpy(static_cast<void *>(&v), p, sizeof(T));
  return v;
}
template <class T>
inline T surf3Dread(cudaSurfaceObject_t s, int x, int y, int z, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap,
                    SCANLAB_EMU_SITE) {
  T v;
  __builtin_memset(static_cast<void *>(&v), 0, sizeof v);
  const void *p = ::scanlab_emu::surf_address(s, 3, x, y, z, sizeof(T), m, "surf3Dread", SCANLAB_EMU_AT);
  if (p) __builtin_memcpy(static_cast<void *>(&v), p, sizeof(T));
  return v;
}
template <class T>
inline void surf1Dread(T *out, cudaSurfaceObject_t s, int x, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap,
                       SCANLAB_EMU_SITE) {
  *out = surf1Dread<T>(s, x, m, SCANLAB_EMU_AT);
}
template <class T>
inline void surf2Dread(T *out, cudaSurfaceObject_t s, int x, int y, cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap,
                       SCANLAB_EMU_SITE) {
  *out = surf2Dread<T>(s, x, y, m, SCANLAB_EMU_AT);
}
template <class T>
inline void surf3Dread(T *out, cudaSurfaceObject_t s, int x, int y, int z,
                       cudaSurfaceBoundaryMode m = cudaBoundaryModeTrap, SCANLAB_EMU_SITE) {
  *out = surf3Dread<T>(s, x, y, z, m, SCANLAB_EMU_AT);
}

/* ---- not emulated: layered and cubemap textures (a use does not compile) ---- */
namespace scanlab_emu {
template <class T>
struct unsupported_type : std::false_type {};
}  // namespace scanlab_emu
#define SCANLAB_EMU_NO_TEXTURE(fn, what)                                                                  \
  template <class T = void, class... A>                                                                  \
  inline T fn(A...) {                                                                                    \
    static_assert(::scanlab_emu::unsupported_type<T>::value,                                             \
                  #fn ": " what " are not supported by the ScanLab CPU emulator (emu)");                 \
    return T();                                                                                          \
  }
SCANLAB_EMU_NO_TEXTURE(tex1DLayered, "layered textures")
SCANLAB_EMU_NO_TEXTURE(tex2DLayered, "layered textures")
SCANLAB_EMU_NO_TEXTURE(texCubemap, "cubemap textures")
SCANLAB_EMU_NO_TEXTURE(tex2DLod, "mipmapped textures")
SCANLAB_EMU_NO_TEXTURE(tex2DGrad, "mipmapped textures")
SCANLAB_EMU_NO_TEXTURE(tex2Dgather, "texture gathers")
#undef SCANLAB_EMU_NO_TEXTURE

#endif /* __CUDACC__ || SCANLAB_EMU_RUNTIME */

/* ---- host API pieces that need C++ ---- */
/* CUDA 11's forms of two graph calls, as code written for it calls them. */
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, cudaGraphNode_t *pErrorNode,
                                        char *pLogBuffer, size_t bufferSize) {
  if (pErrorNode) *pErrorNode = nullptr;
  if (pLogBuffer && bufferSize) pLogBuffer[0] = 0;
  return ::cudaGraphInstantiate(pGraphExec, graph, 0);
}
inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph, cudaGraphNode_t *hErrorNode,
                                       cudaGraphExecUpdateResult *updateResult) {
  cudaGraphExecUpdateResultInfo info;
  const cudaError_t e = ::cudaGraphExecUpdate(hGraphExec, hGraph, &info);
  if (hErrorNode) *hErrorNode = info.errorNode;
  if (updateResult) *updateResult = info.result;
  return e;
}
/* The channel format of an element type (channel_descriptor.h in the toolkit). */
template <class T>
inline cudaChannelFormatDesc cudaCreateChannelDesc() {
  return ::cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
}
#define SCANLAB_EMU_CHANNEL(T, B, N, K)                                                                \
  template <>                                                                                          \
  inline cudaChannelFormatDesc cudaCreateChannelDesc<T>() {                                            \
    return ::cudaCreateChannelDesc(B, N > 1 ? B : 0, N > 2 ? B : 0, N > 3 ? B : 0, K);                 \
  }
#define SCANLAB_EMU_CHANNELS(S, V, B, K) \
  SCANLAB_EMU_CHANNEL(S, B, 1, K) SCANLAB_EMU_CHANNEL(V##1, B, 1, K) SCANLAB_EMU_CHANNEL(V##2, B, 2, K) \
  SCANLAB_EMU_CHANNEL(V##4, B, 4, K)
SCANLAB_EMU_CHANNEL(char, 8, 1, (char)-1 < 0 ? cudaChannelFormatKindSigned : cudaChannelFormatKindUnsigned)
SCANLAB_EMU_CHANNELS(signed char, char, 8, cudaChannelFormatKindSigned)
SCANLAB_EMU_CHANNELS(unsigned char, uchar, 8, cudaChannelFormatKindUnsigned)
SCANLAB_EMU_CHANNELS(short, short, 16, cudaChannelFormatKindSigned)
SCANLAB_EMU_CHANNELS(unsigned short, ushort, 16, cudaChannelFormatKindUnsigned)
SCANLAB_EMU_CHANNELS(int, int, 32, cudaChannelFormatKindSigned)
SCANLAB_EMU_CHANNELS(unsigned int, uint, 32, cudaChannelFormatKindUnsigned)
SCANLAB_EMU_CHANNELS(float, float, 32, cudaChannelFormatKindFloat)
#undef SCANLAB_EMU_CHANNELS
#undef SCANLAB_EMU_CHANNEL
inline cudaChannelFormatDesc cudaCreateChannelDescHalf() {
  return ::cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat);
}
inline cudaChannelFormatDesc cudaCreateChannelDescHalf1() { return cudaCreateChannelDescHalf(); }
inline cudaChannelFormatDesc cudaCreateChannelDescHalf2() {
  return ::cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindFloat);
}
inline cudaChannelFormatDesc cudaCreateChannelDescHalf4() {
  return ::cudaCreateChannelDesc(16, 16, 16, 16, cudaChannelFormatKindFloat);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count, size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
  if (offset > sizeof(T) || count > sizeof(T) - offset) return ::scanlab_emu::symbol_overrun();
  return ::cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
  if (offset > sizeof(T) || count > sizeof(T) - offset) return ::scanlab_emu::symbol_overrun();
  return ::cudaMemcpyFromSymbol(dst, (const void *)&symbol, count, offset, kind);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count, size_t offset = 0,
                                           cudaMemcpyKind kind = cudaMemcpyHostToDevice, cudaStream_t s = 0) {
  if (offset > sizeof(T) || count > sizeof(T) - offset) return ::scanlab_emu::symbol_overrun();
  return ::cudaMemcpyToSymbolAsync((const void *)&symbol, src, count, offset, kind, s);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyDeviceToHost, cudaStream_t s = 0) {
  if (offset > sizeof(T) || count > sizeof(T) - offset) return ::scanlab_emu::symbol_overrun();
  return ::cudaMemcpyFromSymbolAsync(dst, (const void *)&symbol, count, offset, kind, s);
}
template <class T>
inline cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol) {
  ::scanlab_emu::register_device_range(&symbol, sizeof(T));
  return ::cudaGetSymbolAddress(devPtr, (const void *)&symbol);
}
template <class T>
inline cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol) {
  (void)symbol;
  *size = sizeof(T);
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMalloc(T **devPtr, size_t size) {
  return ::cudaMalloc(reinterpret_cast<void **>(devPtr), size);
}
template <class T>
inline cudaError_t cudaMallocHost(T **ptr, size_t size) {
  return ::cudaMallocHost(reinterpret_cast<void **>(ptr), size);
}
template <class T>
inline cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned flags) {
  return ::cudaHostAlloc(reinterpret_cast<void **>(ptr), size, flags);
}
template <class T>
inline cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned flags) {
  return ::cudaHostAlloc(reinterpret_cast<void **>(ptr), size, flags);
}
template <class T>
inline cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned flags) {
  return ::cudaHostGetDevicePointer(reinterpret_cast<void **>(pDevice), pHost, flags);
}
template <class T>
inline cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height) {
  return ::cudaMallocPitch(reinterpret_cast<void **>(devPtr), pitch, width, height);
}
template <class T>
inline cudaError_t cudaMallocAsync(T **devPtr, size_t size, cudaStream_t stream) {
  return ::cudaMallocAsync(reinterpret_cast<void **>(devPtr), size, stream);
}
template <class T>
inline cudaError_t cudaMallocManaged(T **ptr, size_t size, unsigned flags = cudaMemAttachGlobal) {
  return ::cudaMallocManaged(reinterpret_cast<void **>(ptr), size, flags);
}
template <class T>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, T *entry) {
  return ::cudaFuncGetAttributes(attr, reinterpret_cast<const void *>(entry));
}
template <class T>
inline cudaError_t cudaFuncSetCacheConfig(T *entry, cudaFuncCache config) {
  return ::cudaFuncSetCacheConfig(reinterpret_cast<const void *>(entry), config);
}
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T *entry, int blockSize,
                                                                 size_t dynamicSMemSize) {
  return ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, reinterpret_cast<const void *>(entry),
                                                         blockSize, dynamicSMemSize);
}
template <class... P>
inline cudaError_t cudaLaunchKernel(void (*func)(P...), dim3 grid, dim3 block, void **args, size_t sharedMem = 0,
                                    cudaStream_t stream = 0, const char *scanlab_emu_file = __builtin_FILE(),
                                    int scanlab_emu_line = __builtin_LINE()) {
  return ::scanlab_emu::launch_packed(func, grid, block, args, sharedMem, stream, 0, scanlab_emu_file,
                                      scanlab_emu_line);
}
template <class... P>
inline cudaError_t cudaLaunchCooperativeKernel(void (*func)(P...), dim3 grid, dim3 block, void **args,
                                               size_t sharedMem = 0, cudaStream_t stream = 0,
                                               const char *scanlab_emu_file = __builtin_FILE(),
                                               int scanlab_emu_line = __builtin_LINE()) {
  return ::scanlab_emu::launch_packed(func, grid, block, args, sharedMem, stream,
                                      ::scanlab_emu::LAUNCH_COOPERATIVE, scanlab_emu_file, scanlab_emu_line);
}
template <class T>
inline cudaError_t cudaFuncGetName(const char **name, T *func) {
  return ::cudaFuncGetName(name, reinterpret_cast<const void *>(func));
}
template <class T>
inline cudaError_t cudaFuncSetSharedMemConfig(T *func, cudaSharedMemConfig config) {
  return ::cudaFuncSetSharedMemConfig(reinterpret_cast<const void *>(func), config);
}
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, T *entry, int blockSize,
                                                                          size_t dynamicSMemSize, unsigned flags) {
  return ::cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
      numBlocks, reinterpret_cast<const void *>(entry), blockSize, dynamicSMemSize, flags);
}
template <class T>
inline cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, T *func, int numBlocks,
                                                             int blockSize) {
  return ::cudaOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, reinterpret_cast<const void *>(func), numBlocks,
                                                     blockSize);
}
/* CUDA 13's cudaMemPrefetchAsync and cudaMemAdvise (12.2's _v2 forms), with a memory location. */
inline cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, cudaMemLocation location, unsigned flags,
                                        cudaStream_t stream = 0) {
  return ::cudaMemPrefetchAsync_v2(devPtr, count, location, flags, stream);
}
inline cudaError_t cudaMemAdvise(const void *devPtr, size_t count, cudaMemoryAdvise advice, cudaMemLocation location) {
  return ::cudaMemAdvise_v2(devPtr, count, advice, location);
}
/* cudaLaunchKernelEx: a launch described by a cudaLaunchConfig_t, the arguments converted to the
 * kernel's parameter types. Of the attributes, cooperative makes a cooperative launch; a
 * cluster dimension other than 1 is not emulated (thread block clusters). */
template <class... P, class... A>
inline cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config, void (*kernel)(P...), A &&...args) {
  if (!config) return cudaErrorInvalidValue;
  unsigned flags = 0;
  for (unsigned i = 0; i < config->numAttrs; i++) {
    const cudaLaunchAttribute &a = config->attrs[i];
    if (a.id == cudaLaunchAttributeCooperative && a.val.cooperative) flags |= ::scanlab_emu::LAUNCH_COOPERATIVE;
    if (a.id == cudaLaunchAttributeClusterDimension && a.val.clusterDim.x * a.val.clusterDim.y * a.val.clusterDim.z > 1)
      return cudaErrorNotSupported;
  }
  std::tuple<typename std::decay<P>::type...> values(std::forward<A>(args)...);
  void *ptrs[sizeof...(P) + 1];
  ::scanlab_emu::point_at(values, ptrs, std::index_sequence_for<P...>{});
  return ::scanlab_emu::launch_packed(kernel, config->gridDim, config->blockDim, ptrs, config->dynamicSmemBytes,
                                      config->stream, flags, __builtin_FILE(), __builtin_LINE());
}
/* The block size with the most resident threads per multiprocessor (the largest on a tie). */
template <class T, class F>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int *minGridSize, int *blockSize, T func,
                                                                  F smemForBlock, int blockSizeLimit = 0) {
  if (!minGridSize || !blockSize) return cudaErrorInvalidValue;
  int sms = 1, best = 0, bestBlocks = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  const int limit = blockSizeLimit > 0 && blockSizeLimit < 1024 ? blockSizeLimit : 1024;
  for (int b = 32; b <= limit; b += 32) {
    int n = 0;
    ::cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, reinterpret_cast<const void *>(func), b,
                                                    (size_t)smemForBlock(b));
    if (n > 0 && n * b >= best * bestBlocks) {
      best = b;
      bestBlocks = n;
    }
  }
  *blockSize = best;
  *minGridSize = bestBlocks * sms;
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, T func,
                                                      size_t dynamicSMemSize = 0, int blockSizeLimit = 0) {
  return cudaOccupancyMaxPotentialBlockSizeVariableSMem(minGridSize, blockSize, func,
                                                        [dynamicSMemSize](int) { return dynamicSMemSize; },
                                                        blockSizeLimit);
}
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize, T func,
                                                               size_t dynamicSMemSize = 0, int blockSizeLimit = 0,
                                                               unsigned flags = 0) {
  (void)flags;
  return cudaOccupancyMaxPotentialBlockSize(minGridSize, blockSize, func, dynamicSMemSize, blockSizeLimit);
}
template <class T, class F>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(int *minGridSize, int *blockSize, T func,
                                                                           F smemForBlock, int blockSizeLimit = 0,
                                                                           unsigned flags = 0) {
  (void)flags;
  return cudaOccupancyMaxPotentialBlockSizeVariableSMem(minGridSize, blockSize, func, smemForBlock, blockSizeLimit);
}
/* The kernel's spelling travels with its address, so a launch the rewrite could not take
   the address of still finds the limit raised here. */
#define cudaFuncSetAttribute(...) ::scanlab_emu::func_set_attribute(#__VA_ARGS__, __VA_ARGS__)
/// @endcond

#endif /* SCANLAB_EMU_DEVICE_H */
