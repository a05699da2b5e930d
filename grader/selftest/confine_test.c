/**
 * @file confine_test.c
 * @brief The driver's call-thread confinement (grader/trusted/driver/confine.c), tried system call by
 *        system call: what the student's code may not do fails with EPERM on the confined
 *        thread and on a thread it starts, what a lab needs still works, and the unconfined
 *        main thread still speaks on the control descriptor.
 *
 * Built and run by `make check` (grader/selftest/run.py). Prints one line per surprise and
 * ends with `confine: N checks, N surprises`; exits 1 on any surprise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "driver.h"
#include "hx_proto.h"

static int checks = 0, surprises = 0;

/* @p rc from a call that must fail with EPERM (or ENOSYS where @p nosys). */
static void refused(const char *what, long rc, int nosys) {
  checks++;
  const int want = nosys ? ENOSYS : EPERM;
  if (rc != -1 || errno != want) {
    surprises++;
    printf("%s: expected %s, got %ld (%s)\n", what, nosys ? "ENOSYS" : "EPERM", rc, rc == -1 ? strerror(errno) : "no error");
  }
}

static void allowed(const char *what, long rc) {
  checks++;
  if (rc < 0) {
    surprises++;
    printf("%s: should work, failed: %s\n", what, strerror(errno));
  }
}

static void *child_thread(void *arg) {
  (void)arg;
  refused("write(control) from a thread the confined thread started", write(HXP_CONTROL_FD, "x", 1), 0);
  return NULL;
}

static void *confined(void *arg) {
  (void)arg;
  char err[200];
  checks++;
  if (drv_confine(err, sizeof err) != 0) {
    surprises++;
    printf("drv_confine: %s\n", err);
    return NULL;
  }
  const char msg[] = "forged";
  struct iovec iov = {(void *)msg, sizeof msg};
  refused("write(control)", write(HXP_CONTROL_FD, msg, sizeof msg), 0);
  refused("writev(control)", writev(HXP_CONTROL_FD, &iov, 1), 0);
  refused("pwrite(control)", pwrite(HXP_CONTROL_FD, msg, sizeof msg, 0), 0);
  refused("send(control)", send(HXP_CONTROL_FD, msg, sizeof msg, 0), 0);
  refused("write(control) with high bits in the descriptor",
          syscall(SYS_write, (long)HXP_CONTROL_FD | (1L << 32), msg, sizeof msg), 0);
  refused("read(control)", read(HXP_CONTROL_FD, err, 1), 0);
  refused("close(control)", close(HXP_CONTROL_FD), 0);
  refused("dup(control)", dup(HXP_CONTROL_FD), 0);
  refused("dup2(control, 10)", dup2(HXP_CONTROL_FD, 10), 0);
  refused("dup3(control, 10)", dup3(HXP_CONTROL_FD, 10, 0), 0);
  refused("fcntl(control, F_DUPFD)", fcntl(HXP_CONTROL_FD, F_DUPFD, 10), 0);
  refused("fcntl(1, F_DUPFD_CLOEXEC)", fcntl(1, F_DUPFD_CLOEXEC, 10), 0);
  refused("socket(AF_INET)", socket(AF_INET, SOCK_STREAM, 0), 0);
  refused("socket(AF_UNIX)", socket(AF_UNIX, SOCK_DGRAM, 0), 0);
  int sv[2];
  refused("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  refused("fork", fork(), 0);
  char *const argv[] = {(char *)"/bin/true", NULL};
  refused("execve", execve("/bin/true", argv, NULL), 0);
  refused("ptrace", syscall(SYS_ptrace, 0, 0, 0, 0), 0);
  refused("shmget", shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600), 0);
  refused("msgget", msgget(IPC_PRIVATE, IPC_CREAT | 0600), 0);
  refused("io_uring_setup", syscall(SYS_io_uring_setup, 1, NULL), 0);
  refused("sendfile", syscall(SYS_sendfile, HXP_CONTROL_FD, 0, NULL, 1), 0);
  refused("unshare", syscall(SYS_unshare, 0), 0);
#ifdef SYS_clone3
  refused("clone3", syscall(SYS_clone3, NULL, 0), 1);
#endif
  /* what a lab's code and the runtimes need */
  allowed("write(1)", write(1, "", 0));
  void *p = malloc(1 << 20);
  allowed("malloc", p ? 0 : -1);
  free(p);
  const int fd = open("/dev/null", O_RDONLY);
  allowed("open /dev/null", fd);
  if (fd >= 0) allowed("close(another descriptor)", close(fd));
  allowed("fcntl(1, F_GETFL)", fcntl(1, F_GETFL));
  pthread_t t;
  allowed("pthread_create", pthread_create(&t, NULL, child_thread, NULL) == 0 ? 0 : -1);
  pthread_join(t, NULL);
  allowed("sched_yield", sched_yield());
  return NULL;
}

int main(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0 || dup2(sv[0], HXP_CONTROL_FD) < 0) {
    perror("confine_test: socketpair");
    return 2;
  }
  pthread_t t;
  if (pthread_create(&t, NULL, confined, NULL) != 0) return 2;
  pthread_join(t, NULL);
  allowed("write(control) from the unconfined main thread", write(HXP_CONTROL_FD, "ok", 2));
  char buf[16];
  ssize_t got;
  int extra = 0;
  while ((got = recv(sv[1], buf, sizeof buf, MSG_DONTWAIT)) > 0) extra += memcmp(buf, "ok", 2) != 0;
  checks++;
  if (extra) {
    surprises++;
    printf("the control socket received %d message(s) from the confined thread\n", extra);
  }
  printf("confine: %d checks, %d surprises\n", checks, surprises);
  return surprises ? 1 : 0;
}
