/**
 * @file hostile.c
 * @brief The self-test's hostile program: run inside the sandbox as a student's driver would
 *        be, it tries one way out (given as argv[1]) and prints what happened, one line:
 *        `blocked: ...` or `ESCAPED: ...`. The self-test checks the line and the world after.
 *
 *     hostile MODE [ARG...]
 *
 * Modes: read-mem PID, signal PID, write FILE, read FILE, tmp-fill, orphan MARKER,
 * fork-bomb, memory MB, cpu, output MB, stop-self, connect-tcp PORT (a listener on the host's
 * loopback), connect-abstract NAME (an abstract unix socket), sysv KEY (SysV shared memory and
 * a message queue, left behind).
 * It is kit code written to misbehave; it is built only by the self-test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static int say(int escaped, const char *fmt, const char *detail) {
  printf("%s: ", escaped ? "ESCAPED" : "blocked");
  printf(fmt, detail);
  printf("\n");
  fflush(stdout);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) return 2;
  const char *mode = argv[1], *arg = argc > 2 ? argv[2] : "";
  char path[512];
  if (strcmp(mode, "read-mem") == 0) { /* another process's memory (the test's, the grader's) */
    snprintf(path, sizeof path, "/proc/%s/mem", arg);
    int fd = open(path, O_RDONLY);
    char buf[16];
    if (fd >= 0 && pread(fd, buf, sizeof buf, 0x400000) >= 0) return say(1, "read %s", path);
    if (fd >= 0) return say(0, "opened but could not read %s", path);
    return say(0, "cannot open %s", path);
  }
  if (strcmp(mode, "signal") == 0) { /* stop or kill another process */
    if (kill(atoi(arg), SIGSTOP) == 0) return say(1, "stopped process %s", arg);
    return say(0, "cannot signal process %s", arg);
  }
  if (strcmp(mode, "write") == 0) { /* append to a file of the kit or of another student */
    int fd = open(arg, O_WRONLY | O_APPEND);
    if (fd >= 0 && write(fd, "\n/* hostile */\n", 15) == 15) return say(1, "wrote to %s", arg);
    return say(0, "cannot write %s", arg);
  }
  if (strcmp(mode, "read") == 0) { /* read the solutions */
    int fd = open(arg, O_RDONLY);
    char buf[64];
    if (fd >= 0 && read(fd, buf, sizeof buf) > 0) return say(1, "read %s", arg);
    return say(0, "cannot read %s", arg);
  }
  if (strcmp(mode, "tmp-fill") == 0) { /* leave a large file behind in /tmp */
    int fd = open("/tmp/scanlab-hostile-fill", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    static char block[1 << 20];
    memset(block, 'x', sizeof block);
    signal(SIGXFSZ, SIG_IGN);
    long written = 0;
    while (fd >= 0 && written < 1024 && write(fd, block, sizeof block) == (ssize_t)sizeof block) written++;
    snprintf(path, sizeof path, "%ld MiB", written);
    return say(written >= 1024, "wrote %s to /tmp", path);
  }
  if (strcmp(mode, "orphan") == 0) { /* a child in a session of its own that outlives us */
    pid_t p = fork();
    if (p == 0) {
      setsid();
      if (fork() == 0) { /* this program's own argv carries the marker */
        for (int i = 0; i < 600; i++) usleep(100000);
        _exit(0);
      }
      _exit(0);
    }
    waitpid(p, NULL, 0);
    return say(0, "left a sleeper with marker %s (the self-test looks for it)", arg);
  }
  if (strcmp(mode, "fork-bomb") == 0) {
    int made = 0;
    for (int i = 0; i < 5000; i++) {
      pid_t p = fork();
      if (p == 0) {
        pause();
        _exit(0);
      }
      if (p < 0) break;
      made++;
    }
    snprintf(path, sizeof path, "%d", made);
    return say(made >= 5000, "made %s processes", path);
  }
  if (strcmp(mode, "memory") == 0) { /* take far more memory than a test may */
    /* The sandbox limits address space (RLIMIT_AS, or RLIMIT_DATA beside a CUDA runtime), which
     * an allocation meets whether or not its pages are touched; one page of each MiB is written,
     * so the check does not spend its time in a virtual machine's page faults (all 4 GiB of them
     * took 18 s of system time on a 2-core build machine). */
    long mb = atol(arg), got = 0;
    for (; got < mb; got++) {
      char *p = (char *)malloc(1 << 20);
      if (!p) break;
      memset(p, 1, 4096);
    }
    snprintf(path, sizeof path, "%ld of %ld MiB", got, mb);
    return say(got >= mb, "took %s", path);
  }
  if (strcmp(mode, "output") == 0) { /* one endless line */
    long mb = atol(arg);
    static char block[1 << 20];
    memset(block, 'A', sizeof block);
    block[100] = '\033';
    for (long i = 0; i < mb; i++) fwrite(block, 1, sizeof block, stdout);
    printf("\n");
    return say(0, "printed %s MiB", arg);
  }
  if (strcmp(mode, "connect-tcp") == 0) { /* a listener on the host's loopback */
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((unsigned short)atoi(arg));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) == 0) return say(1, "connected to 127.0.0.1:%s", arg);
    return say(0, "cannot connect to 127.0.0.1:%s", arg);
  }
  if (strcmp(mode, "connect-abstract") == 0) { /* an abstract unix socket (no file: no mount hides it) */
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    size_t len = strlen(arg) < sizeof a.sun_path - 1 ? strlen(arg) : sizeof a.sun_path - 1;
    memcpy(a.sun_path + 1, arg, len);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (struct sockaddr *)&a, (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len)) == 0)
      return say(1, "connected to the abstract socket @%s", arg);
    return say(0, "cannot connect to the abstract socket @%s", arg);
  }
  if (strcmp(mode, "sysv") == 0) { /* SysV IPC that would outlive the test */
    key_t key = (key_t)strtol(arg, NULL, 0);
    int shm = shmget(key, 4096, IPC_CREAT | 0666), msg = msgget(key, IPC_CREAT | 0666);
    snprintf(path, sizeof path, "shm %d, msg %d", shm, msg);
    return say(0, "made %s (the self-test looks for them afterwards)", path);
  }
  if (strcmp(mode, "stop-self") == 0) {
    raise(SIGSTOP);
    return say(1, "%s", "came back from SIGSTOP");
  }
  fprintf(stderr, "hostile: unknown mode %s\n", mode);
  return 2;
}
