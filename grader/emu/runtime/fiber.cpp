/**
 * @file fiber.cpp
 * @brief Fiber stacks and the context switch: hand-written on x86-64, `ucontext` elsewhere.
 *
 * A switch on x86-64 saves the callee-saved registers (rbp, rbx, r12-r15) on the current
 * stack, stores the stack pointer, loads the other fiber's stack pointer and pops its
 * registers: about a dozen instructions, against a system call for `swapcontext`.
 */
/// @cond EMU_INTERNAL
#include "emu_internal.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#ifdef SCANLAB_EMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

#ifndef SCANLAB_EMU_UCONTEXT
extern "C" void scanlab_emu_swap(void **save_sp, void *load_sp);
asm(R"(
    .text
    .globl scanlab_emu_swap
    .hidden scanlab_emu_swap
    .type scanlab_emu_swap, @function
    .p2align 4
scanlab_emu_swap:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size scanlab_emu_swap, .-scanlab_emu_swap
)");
#endif

namespace scanlab_emu {

/* Each stack's top is set 0 to 15 pages below its mapping's end, a different number for
 * consecutive stacks (never touched, never backed: MAP_NORESERVE). Stacks of one size, mapped
 * one after another, otherwise put every thread's hot top frames at one stride, and at 512 KiB
 * (emu-nvcc's size) a block's switches at barriers ran 1.3 to 1.6 times slower than at 520 KiB or
 * with this stagger (the CUDA samples' scan shape, 256 threads a block, 17 barriers each). */
static size_t stack_stagger_pages() {
  static std::atomic<unsigned> n{0};
  return (n.fetch_add(1, std::memory_order_relaxed) * 5u) % 16u;
}

bool stack_alloc(Stack *s, size_t bytes) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  bytes = (bytes + page - 1) / page * page;
  const size_t stagger = stack_stagger_pages() * page;
  size_t total = bytes + page + stagger;
  void *m = mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return false;
  /* the lowest page is the guard: a stack overflow faults instead of corrupting memory */
  mprotect(m, page, PROT_NONE);
  s->map = (char *)m;
  s->mapped = total;
  s->lo = (char *)m + page;
  s->hi = s->lo + bytes;
  return true;
}

void fiber_prepare(Worker *w, Fiber *f, void (*entry)()) {
  (void)w;
#ifdef SCANLAB_EMU_ASAN
  __asan_unpoison_memory_region(f->stack.lo, (size_t)(f->stack.hi - f->stack.lo));
#endif
#ifdef SCANLAB_EMU_UCONTEXT
  getcontext(&f->uc);
  f->uc.uc_stack.ss_sp = f->stack.lo;
  f->uc.uc_stack.ss_size = (size_t)(f->stack.hi - f->stack.lo);
  f->uc.uc_link = nullptr;
  makecontext(&f->uc, entry, 0);
#else
  uintptr_t top = (uintptr_t)f->stack.hi & ~(uintptr_t)15;
  void **sp = (void **)top;
  *--sp = nullptr;              /* fake return address of entry: it never returns */
  *--sp = (void *)entry;        /* popped by `ret` in scanlab_emu_swap */
  for (int i = 0; i < 6; i++) *--sp = nullptr; /* rbp rbx r12 r13 r14 r15 */
  f->sp = sp;
#endif
}

void switch_to(Worker *w, void **save_sp, Fiber *from, Fiber *to) {
#ifdef SCANLAB_EMU_ASAN
  void *fake = nullptr;
  const void *bottom = to ? (const void *)to->stack.lo : w->sched_stack_lo;
  size_t size = to ? (size_t)(to->stack.hi - to->stack.lo) : w->sched_stack_size;
  __sanitizer_start_switch_fiber((from && from->state == F_EXITED) ? nullptr : &fake, bottom, size);
#endif
#ifdef SCANLAB_EMU_UCONTEXT
  (void)save_sp;
  ucontext_t *a = from ? &from->uc : &w->sched_uc;
  ucontext_t *b = to ? &to->uc : &w->sched_uc;
  swapcontext(a, b);
#else
  (void)from;
  scanlab_emu_swap(save_sp, to ? to->sp : w->sched_sp);
#endif
#ifdef SCANLAB_EMU_ASAN
  const void *old_bottom;
  size_t old_size;
  __sanitizer_finish_switch_fiber(fake, &old_bottom, &old_size);
#else
  (void)w;
#endif
}

}  // namespace scanlab_emu
/// @endcond
