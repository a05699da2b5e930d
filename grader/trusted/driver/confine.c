/**
 * @file confine.c
 * @brief drv_confine(): the seccomp filter the driver's call thread (its main thread) puts on
 *        itself before the student's code first runs there.
 *
 * A filter set without SECCOMP_FILTER_FLAG_TSYNC binds the calling thread and every thread it
 * starts later (the emu's workers, any thread of the student's), not the driver's answering
 * thread, started before it, which alone answers the test (driver.c).
 * Refused with EPERM, so the student's code sees an ordinary error:
 *  - any system call on the control descriptor (HXP_CONTROL_FD): read, write and their vector
 *    and positional forms, ioctl, fcntl, close;
 *  - copying a descriptor (dup, dup2, dup3, fcntl F_DUPFD), which would give the control socket
 *    another number, and closing descriptors in ranges;
 *  - sockets of any kind (create, connect, send, receive), and moving data between descriptors
 *    in the kernel (sendfile, splice, tee, vmsplice, copy_file_range), io_uring;
 *  - new processes (fork, vfork, clone without CLONE_THREAD) and programs (execve, execveat);
 *    clone3 answers ENOSYS, so the C library falls back to clone, whose flags the filter reads;
 *  - tracing and reaching into other processes (ptrace, process_vm_readv/writev, pidfd_*),
 *    namespaces and mounts, BPF, perf events, keys, userfaultfd, SysV and POSIX message queues,
 *    SysV shared memory and semaphores (they would outlive the test).
 * A system call of another architecture (x86-64's 32-bit and x32 entry points) ends the
 * process. Everything else is allowed: what a lab's code needs (memory, futexes, the GPU's
 * ioctls, printing to standard output) and what the CUDA runtime and the emu do for it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "driver.h"
#include "hx_proto.h"

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef ARCH

/* Refused outright. */
static const int DENY[] = {
    __NR_socket, __NR_socketpair, __NR_connect, __NR_bind, __NR_listen, __NR_accept, __NR_accept4,
    __NR_sendto, __NR_sendmsg, __NR_sendmmsg, __NR_recvfrom, __NR_recvmsg, __NR_recvmmsg, __NR_shutdown,
    __NR_sendfile, __NR_splice, __NR_tee, __NR_vmsplice, __NR_copy_file_range,
    __NR_io_uring_setup, __NR_io_uring_enter, __NR_io_uring_register,
    __NR_execve, __NR_execveat, __NR_ptrace, __NR_process_vm_readv, __NR_process_vm_writev,
    __NR_pidfd_open, __NR_pidfd_getfd, __NR_pidfd_send_signal,
    __NR_dup, __NR_dup3, __NR_close_range,
    __NR_unshare, __NR_setns, __NR_mount, __NR_umount2, __NR_pivot_root, __NR_chroot,
    __NR_bpf, __NR_perf_event_open, __NR_userfaultfd, __NR_add_key, __NR_request_key, __NR_keyctl,
    __NR_open_by_handle_at, __NR_name_to_handle_at,
    __NR_msgget, __NR_msgsnd, __NR_msgrcv, __NR_msgctl, __NR_shmget, __NR_shmat, __NR_shmctl, __NR_semget,
    __NR_semop, __NR_semctl, __NR_mq_open, __NR_mq_timedsend, __NR_mq_timedreceive,
#if defined(__x86_64__)
    __NR_fork, __NR_vfork, __NR_dup2,
#endif
};

/* Refused when their first argument is the control descriptor. */
static const int ON_CONTROL[] = {
    __NR_read, __NR_write, __NR_readv, __NR_writev, __NR_pread64, __NR_pwrite64, __NR_preadv, __NR_pwritev,
    __NR_preadv2, __NR_pwritev2, __NR_ioctl, __NR_close, __NR_fcntl, __NR_getsockopt, __NR_setsockopt,
    __NR_getsockname, __NR_getpeername,
};

#define MAX_INSNS 200
#define MAX_FIX 160

enum { L_DENY, L_NOSYS, L_FD, L_CLONE, LABELS };

/* A filter under construction: jumps name labels, placed later (BPF jumps only forward). */
typedef struct {
  struct sock_filter f[MAX_INSNS];
  int n;
  int label[LABELS];
  struct {
    int at, label, on_true;
  } fix[MAX_FIX];
  int nfix;
} prog;

static void emit(prog *p, struct sock_filter insn) {
  if (p->n < MAX_INSNS) p->f[p->n++] = insn;
}
static void stmt(prog *p, unsigned short code, unsigned k) { emit(p, (struct sock_filter)BPF_STMT(code, k)); }
static void load(prog *p, unsigned offset) { stmt(p, BPF_LD | BPF_W | BPF_ABS, offset); }
static void ret(prog *p, unsigned v) { stmt(p, BPF_RET | BPF_K, v); }

/* if (A op k) goto label (on_true) else fall through, or the other way round */
static void jump(prog *p, unsigned short op, unsigned k, int label, int on_true) {
  emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | op | BPF_K, k, 0, 0));
  if (p->nfix < MAX_FIX) {
    p->fix[p->nfix].at = p->n - 1;
    p->fix[p->nfix].label = label;
    p->fix[p->nfix].on_true = on_true;
    p->nfix++;
  }
}

static int build(prog *p) {
  memset(p, 0, sizeof *p);
  load(p, offsetof(struct seccomp_data, arch));
  emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0));
  ret(p, SECCOMP_RET_KILL_PROCESS);
  load(p, offsetof(struct seccomp_data, nr));
#if defined(__x86_64__)
  /* x32 system calls have bit 30 set */
  emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1));
  ret(p, SECCOMP_RET_KILL_PROCESS);
#endif
  for (size_t i = 0; i < sizeof DENY / sizeof DENY[0]; i++) jump(p, BPF_JEQ, (unsigned)DENY[i], L_DENY, 1);
  for (size_t i = 0; i < sizeof ON_CONTROL / sizeof ON_CONTROL[0]; i++) jump(p, BPF_JEQ, (unsigned)ON_CONTROL[i], L_FD, 1);
  jump(p, BPF_JEQ, __NR_clone, L_CLONE, 1);
#ifdef __NR_clone3
  jump(p, BPF_JEQ, __NR_clone3, L_NOSYS, 1);
#endif
  ret(p, SECCOMP_RET_ALLOW);
  /* the first argument is the control descriptor (its low 32 bits: the kernel reads an int);
   * fcntl's command is also checked for a copy of any descriptor */
  p->label[L_FD] = p->n;
  load(p, offsetof(struct seccomp_data, args[0]));
  jump(p, BPF_JEQ, HXP_CONTROL_FD, L_DENY, 1);
  load(p, offsetof(struct seccomp_data, nr));
  emit(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fcntl, 0, 4));
  load(p, offsetof(struct seccomp_data, args[1]));
  jump(p, BPF_JEQ, F_DUPFD, L_DENY, 1);
  jump(p, BPF_JEQ, F_DUPFD_CLOEXEC, L_DENY, 1);
  ret(p, SECCOMP_RET_ALLOW);
  ret(p, SECCOMP_RET_ALLOW);
  /* clone: threads only */
  p->label[L_CLONE] = p->n;
  load(p, offsetof(struct seccomp_data, args[0]));
  jump(p, BPF_JSET, CLONE_THREAD, L_DENY, 0);
  ret(p, SECCOMP_RET_ALLOW);
  p->label[L_DENY] = p->n;
  ret(p, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
  p->label[L_NOSYS] = p->n;
  ret(p, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
  if (p->n >= MAX_INSNS || p->nfix >= MAX_FIX) return -1;
  for (int i = 0; i < p->nfix; i++) {
    const int at = p->fix[i].at, off = p->label[p->fix[i].label] - at - 1;
    if (off <= 0 || off > 255) return -1; /* forward jumps of 8 bits only */
    if (p->fix[i].on_true) p->f[at].jt = (unsigned char)off;
    else p->f[at].jf = (unsigned char)off;
  }
  return 0;
}

int drv_confine(char *err, size_t cap) {
  static prog p;
  if (build(&p) != 0) {
    snprintf(err, cap, "the seccomp filter does not fit");
    return -1;
  }
  struct sock_fprog fp = {(unsigned short)p.n, p.f};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    snprintf(err, cap, "prctl(PR_SET_NO_NEW_PRIVS): %s", strerror(errno));
    return -1;
  }
  if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fp) != 0) {
    snprintf(err, cap, "seccomp: %s", strerror(errno));
    return -1;
  }
  return 0;
}

#else

int drv_confine(char *err, size_t cap) {
  snprintf(err, cap, "no seccomp filter for this architecture");
  return -1;
}

#endif
