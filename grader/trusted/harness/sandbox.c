/**
 * @file sandbox.c
 * @brief `scanlab-sandbox`: runs a command (a student's build, or the driver that runs a
 *        student's code) fenced off from the grader, the kit and other students.
 *
 *     scanlab-sandbox [options] -- PROGRAM [ARGS...]
 *     scanlab-sandbox --probe          # prints which protections this machine allows
 *
 * What it does, as far as the machine allows (each step is skipped, not fatal, where the
 * kernel or the user's rights refuse it; `--probe` says which work):
 *  - **a user of its own**: as root, the command runs under an unused uid and gid (no
 *    account needed: 2000000000 + the sandbox's pid), so it can write nothing of the kit's,
 *    the grader's or another test's, and cannot signal, trace or read them;
 *  - **namespaces**: a PID namespace (the command is process 1 of it: when it ends, the kernel
 *    kills everything it started, `setsid` or not) with a fresh /proc, so other processes are
 *    not even visible; a network namespace of its own (no interface but a loopback that is
 *    down: no connection to anything, the host's loopback listeners and abstract unix sockets
 *    included; `--loopback` brings its own loopback up, for a tool that talks to itself); an
 *    IPC namespace of its own (SysV shared memory, semaphores and message queues, POSIX
 *    message queues: none of the host's, and none outlives the command); a mount namespace with
 *    private tmpfs on /tmp, /var/tmp and /dev/shm (size-capped), the paths of `--ro` read-only
 *    and those of `--hide` covered by an empty directory. With `--view`, the command sees a root
 *    of its own instead: only the `--view-ro` paths (read-only), the `--ro` and `--rw` paths, the
 *    `--view-dev` device nodes, /dev/null, /dev/zero, /dev/full, /dev/random and /dev/urandom,
 *    a fresh /proc and private /tmp, /var/tmp and /dev/shm; paths that do not exist are left
 *    out. Without root, a user namespace makes the same possible where the kernel allows
 *    unprivileged user namespaces;
 *  - **limits**: CPU seconds, memory (address space, or the data segment where a CUDA runtime
 *    needs large address reservations), file size, processes, open files, no core dumps;
 *  - **cleanup**: the parent waits, then kills whatever the command's uid still runs and
 *    removes what it left in the shared temporary directories and the SysV IPC objects it made
 *    (where no namespace did that), and gives the `--own` paths back to their owner.
 * The sandbox ends the way the command ended (the same exit code, or the same signal), so
 * the caller can report a crash by its signal.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_LIST 32
#define MAX_VIEW 256
#define UID_BASE 2000000000u

static struct {
  double cpu_s;
  long long mem_mb;
  int mem_data; /* 1: RLIMIT_DATA instead of RLIMIT_AS */
  long long fsize_mb, tmp_mb;
  int nproc, nofile;
  int want_uid, want_ns, view, loopback;
  const char *ro[MAX_LIST], *hide[MAX_LIST], *rw[MAX_LIST], *own[MAX_LIST], *env[MAX_LIST];
  int nro, nhide, nrw, nown, nenv;
  const char *view_ro[MAX_VIEW], *view_dev[MAX_VIEW];
  int nview_ro, nview_dev;
  int keep[MAX_LIST], nkeep;
  const char *chdir_to;
  const char *status_file;
} opt = {.cpu_s = 0, .mem_mb = 0, .fsize_mb = 64, .tmp_mb = 64, .nproc = 64, .nofile = 256,
         .want_uid = 1, .want_ns = 1};

/* What was achieved, reported with --status-file. */
static struct {
  int uid, pidns, mountns, userns, netns, ipcns, view;
  uid_t run_uid;
} got;

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "sandbox: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  _exit(125);
}

static int write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t len = (ssize_t)strlen(text), w = write(fd, text, (size_t)len);
  close(fd);
  return w == len ? 0 : -1;
}

/* ---- the mount namespace ------------------------------------------------------------------ */

static int mount_tmp(const char *path, long long mb, const char *mode) {
  struct stat st;
  if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) return 0; /* nothing to cover */
  char data[64];
  snprintf(data, sizeof data, "size=%lldm,mode=%s", mb, mode);
  return mount("scanlab-tmp", path, "tmpfs", MS_NOSUID | MS_NODEV, data);
}

/* Temporary folders that hold a path the command needs (a kit unpacked under /tmp) are left
 * shared; what the command leaves there is removed afterwards by its uid (tmp_shared). */
static int tmp_shared = 0;

static int needed_below(const char *dir) {
  const size_t len = strlen(dir);
  const char *lists[] = {opt.chdir_to};
  for (int i = 0; i < opt.nro + opt.nrw + 1; i++) {
    const char *p = i < opt.nro ? opt.ro[i] : i < opt.nro + opt.nrw ? opt.rw[i - opt.nro] : lists[0];
    if (p && strncmp(p, dir, len) == 0 && (p[len] == '/' || p[len] == '\0')) return 1;
  }
  return 0;
}

static int setup_mounts(void) {
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return -1;
  const char *tmps[] = {"/tmp", "/var/tmp", "/dev/shm"};
  for (int i = 0; i < 3; i++) {
    if (needed_below(tmps[i])) {
      tmp_shared = 1;
      continue;
    }
    if (mount_tmp(tmps[i], opt.tmp_mb, "1777") != 0) return -1;
  }
  /* Bind the read-only trees, mount the writable folders inside them, then make the trees
   * (and only them: a remount is not recursive) read-only. */
  for (int i = 0; i < opt.nro; i++)
    if (mount(opt.ro[i], opt.ro[i], NULL, MS_BIND | MS_REC, NULL) != 0) return -1;
  for (int i = 0; i < opt.nrw; i++)
    if (mount(opt.rw[i], opt.rw[i], NULL, MS_BIND, NULL) != 0) return -1;
  for (int i = 0; i < opt.nro; i++)
    if (mount(NULL, opt.ro[i], NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID, NULL) != 0) return -1;
  for (int i = 0; i < opt.nhide; i++)
    if (mount_tmp(opt.hide[i], 1, "0555") != 0) return -1;
  return 0;
}

/* ---- a root of its own (--view) -------------------------------------------------------------- */

/* mkdir -p for the folders above @p path (not @p path itself). */
static int make_parents(const char *path) {
  char buf[PATH_MAX];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  return 0;
}

/* What the view shows: each path as the command names it, and the file it is (its links
 * resolved in the host's root, before the old root moves to /oldroot, where an absolute link
 * would point elsewhere). */
struct shown {
  const char *path;
  char real[PATH_MAX];
  int rw, dev, exists;
};
static struct shown shown[MAX_VIEW + 2 * MAX_LIST + 8];
static int nshown;

static void show(const char *path, int rw, int dev) {
  if (nshown == (int)(sizeof shown / sizeof shown[0])) die("too many paths in the view");
  struct shown *s = &shown[nshown++];
  s->path = path;
  s->rw = rw;
  s->dev = dev;
  s->exists = path[0] == '/' && realpath(path, s->real) != NULL;
}

/* Binds one path of the old root (at /oldroot) to the same path in the new one (at /newroot),
 * read-only unless rw; device nodes only where dev. A path that does not exist is left out
 * (the GPU's files differ from one machine to the next). */
static int bind_into_view(const struct shown *s) {
  char src[PATH_MAX], dst[PATH_MAX];
  struct stat st;
  const int rw = s->rw, dev = s->dev;
  if (!s->exists) return 0;
  if (snprintf(src, sizeof src, "/oldroot%s", s->real) >= (int)sizeof src ||
      snprintf(dst, sizeof dst, "/newroot%s", s->path) >= (int)sizeof dst)
    return -1;
  if (stat(src, &st) != 0) return 0;
  if (make_parents(dst) != 0) return -1;
  if (S_ISDIR(st.st_mode)) {
    if (mkdir(dst, 0755) != 0 && errno != EEXIST) return -1;
  } else {
    int fd = open(dst, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return -1;
    close(fd);
  }
  if (mount(src, dst, NULL, MS_BIND | MS_REC, NULL) != 0) return -1;
  /* A remount may add flags but not drop those the mount already has (a user namespace locks
   * them): keep them, add read-only, nosuid and (but for devices) nodev. */
  struct statvfs sv;
  unsigned long keep = 0;
  if (statvfs(dst, &sv) == 0) {
    if (sv.f_flag & ST_NOEXEC) keep |= MS_NOEXEC;
    if (sv.f_flag & ST_NODEV) keep |= MS_NODEV;
    if (sv.f_flag & ST_NOATIME) keep |= MS_NOATIME;
    if (sv.f_flag & ST_NODIRATIME) keep |= MS_NODIRATIME;
    if (sv.f_flag & ST_RELATIME) keep |= MS_RELATIME;
    if (sv.f_flag & ST_RDONLY) keep |= MS_RDONLY;
  }
  unsigned long flags = MS_BIND | MS_REMOUNT | MS_NOSUID | keep | (rw ? 0 : MS_RDONLY) | (dev ? 0 : MS_NODEV);
  return mount(NULL, dst, NULL, flags, NULL);
}

/* The command's root: a tmpfs holding only what the options name (the file header says what). */
static int setup_view(void) {
  const char *devs[] = {"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"};
  nshown = 0;
  for (size_t i = 0; i < sizeof devs / sizeof devs[0]; i++) show(devs[i], 1, 1);
  for (int i = 0; i < opt.nview_dev; i++) show(opt.view_dev[i], 1, 1);
  for (int i = 0; i < opt.nview_ro; i++) show(opt.view_ro[i], 0, 0);
  for (int i = 0; i < opt.nro; i++) show(opt.ro[i], 0, 0);
  for (int i = 0; i < opt.nrw; i++) show(opt.rw[i], 1, 0);
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) return -1;
  /* Pivot into a scratch tmpfs that keeps the old root at /oldroot, build the new root at
   * /newroot from it, then pivot again and let the old root go. */
  if (mount("scanlab-view", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") != 0) return -1;
  if (mkdir("/tmp/oldroot", 0755) != 0 || mkdir("/tmp/newroot", 0755) != 0) return -1;
  if (syscall(SYS_pivot_root, "/tmp", "/tmp/oldroot") != 0 || chdir("/") != 0) return -1;
  if (mount("scanlab-root", "/newroot", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") != 0) return -1;
  const char *dirs[] = {"/newroot/proc", "/newroot/dev", "/newroot/tmp", "/newroot/var",
                        "/newroot/var/tmp", "/newroot/oldroot"};
  for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
    if (mkdir(dirs[i], 0755) != 0) return -1;
  char data[64];
  snprintf(data, sizeof data, "size=%lldm,mode=1777", opt.tmp_mb);
  if (mount("scanlab-tmp", "/newroot/tmp", "tmpfs", MS_NOSUID | MS_NODEV, data) != 0 ||
      mount("scanlab-tmp", "/newroot/var/tmp", "tmpfs", MS_NOSUID | MS_NODEV, data) != 0 ||
      mount("scanlab-dev", "/newroot/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=0755") != 0 ||
      mkdir("/newroot/dev/shm", 01777) != 0 ||
      mount("scanlab-tmp", "/newroot/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, data) != 0)
    return -1;
  for (int i = 0; i < nshown; i++)
    if (bind_into_view(&shown[i]) != 0) return -1;
  if (mount(NULL, "/newroot", NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0 &&
      mount(NULL, "/newroot", NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0)
    return -1;
  if (umount2("/oldroot", MNT_DETACH) != 0) return -1;
  if (syscall(SYS_pivot_root, "/newroot", "/newroot/oldroot") != 0 || chdir("/") != 0) return -1;
  if (umount2("/oldroot", MNT_DETACH) != 0) return -1;
  return 0;
}

/* ---- the network namespace's loopback ----------------------------------------------------- */

static int loopback_up(void) {
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return -1;
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
  int ok = ioctl(s, SIOCGIFFLAGS, &ifr) == 0;
  ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
  ok = ok && ioctl(s, SIOCSIFFLAGS, &ifr) == 0;
  close(s);
  return ok ? 0 : -1;
}

/* ---- ownership of --own paths --------------------------------------------------------------- */

static uid_t chown_uid;
static gid_t chown_gid;
static int chown_one(const char *path, const struct stat *st, int flag, struct FTW *f) {
  (void)st;
  (void)flag;
  (void)f;
  if (lchown(path, chown_uid, chown_gid) != 0) return 0;
  return 0;
}
static void chown_tree(const char *path, uid_t uid, gid_t gid) {
  chown_uid = uid;
  chown_gid = gid;
  nftw(path, chown_one, 32, FTW_PHYS);
}

/* ---- cleanup without namespaces ------------------------------------------------------------- */

static uid_t clean_uid;
static int remove_owned(const char *path, const struct stat *st, int flag, struct FTW *f) {
  (void)flag;
  if (f->level > 0 && st->st_uid == clean_uid) remove(path);
  return 0;
}

/* Removes the SysV IPC objects @p uid made or owns (where no IPC namespace took them away):
 * /proc/sysvipc lists them, with the owner's and the creator's uid. */
static void clean_sysv(uid_t uid) {
  const char *files[] = {"/proc/sysvipc/shm", "/proc/sysvipc/msg", "/proc/sysvipc/sem"};
  /* the columns of the id, the owner's uid and the creator's uid in each file */
  const int id_col[] = {1, 1, 1}, uid_col[] = {7, 7, 4}, cuid_col[] = {9, 9, 6};
  for (int f = 0; f < 3; f++) {
    FILE *in = fopen(files[f], "r");
    if (!in) continue;
    char line[512];
    if (!fgets(line, sizeof line, in)) line[0] = '\0'; /* the header */
    while (fgets(line, sizeof line, in)) {
      long long col[16] = {0};
      int n = 0;
      for (char *tok = strtok(line, " \t\n"); tok && n < 16; tok = strtok(NULL, " \t\n")) col[n++] = atoll(tok);
      if (n <= cuid_col[f] || ((uid_t)col[uid_col[f]] != uid && (uid_t)col[cuid_col[f]] != uid)) continue;
      int id = (int)col[id_col[f]];
      if (f == 0) shmctl(id, IPC_RMID, NULL);
      else if (f == 1) msgctl(id, IPC_RMID, NULL);
      else semctl(id, 0, IPC_RMID);
    }
    fclose(in);
  }
}

/* Kills every process of @p uid (from a child that takes that uid: kill(-1) reaches exactly
 * the processes a process of that uid may signal) and removes its files from the shared
 * temporary directories and its SysV IPC objects. */
static void clean_uid_leftovers(uid_t uid, int have_pidns, int have_mountns, int have_ipcns) {
  if (!have_pidns) {
    pid_t k = fork();
    if (k == 0) {
      if (setgid(uid) == 0 && setuid(uid) == 0) kill(-1, SIGKILL);
      _exit(0);
    }
    if (k > 0) waitpid(k, NULL, 0);
  }
  if (!have_mountns) {
    clean_uid = uid;
    const char *dirs[] = {"/tmp", "/var/tmp", "/dev/shm"};
    for (int i = 0; i < 3; i++) nftw(dirs[i], remove_owned, 32, FTW_PHYS | FTW_DEPTH);
  }
  if (!have_ipcns) clean_sysv(uid);
}

/* ---- the child ------------------------------------------------------------------------------- */

static void set_limit(int res, rlim_t v) {
  struct rlimit r = {v, v};
  setrlimit(res, &r);
}

static void close_other_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  int fds[1024], count = 0;
  if (d) {
    struct dirent *e;
    while ((e = readdir(d)) && count < 1024) {
      int fd = atoi(e->d_name);
      if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && fd != dirfd(d)) fds[count++] = fd;
    }
    closedir(d);
  } else {
    for (int fd = 0; fd < 1024; fd++) fds[count++] = fd;
  }
  for (int i = 0; i < count; i++) {
    int keep = fds[i] <= 2;
    for (int k = 0; k < opt.nkeep; k++) keep |= fds[i] == opt.keep[k];
    if (!keep) close(fds[i]);
  }
}

/* The program, opened before the mounts, so it runs even where --hide covers its folder. */
static int program_fd = -1;

static void exec_child(char **argv) {
  if (got.uid) {
    gid_t gid = (gid_t)got.run_uid;
    if (setgroups(0, NULL) != 0 || setgid(gid) != 0 || setuid(got.run_uid) != 0)
      die("cannot take uid %u: %s", (unsigned)got.run_uid, strerror(errno));
  }
  prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (opt.cpu_s > 0) {
    struct rlimit r = {(rlim_t)opt.cpu_s, (rlim_t)opt.cpu_s + 1};
    setrlimit(RLIMIT_CPU, &r);
  }
  if (opt.mem_mb > 0) set_limit(opt.mem_data ? RLIMIT_DATA : RLIMIT_AS, (rlim_t)opt.mem_mb << 20);
  if (opt.fsize_mb > 0) set_limit(RLIMIT_FSIZE, (rlim_t)opt.fsize_mb << 20);
  if (got.uid || got.userns) set_limit(RLIMIT_NPROC, (rlim_t)opt.nproc);
  set_limit(RLIMIT_NOFILE, (rlim_t)opt.nofile);
  set_limit(RLIMIT_CORE, 0);
  if (opt.nkeep < MAX_LIST) opt.keep[opt.nkeep++] = program_fd; /* closed by fexecve itself */
  close_other_fds();
  if (opt.chdir_to && chdir(opt.chdir_to) != 0) die("cannot enter %s: %s", opt.chdir_to, strerror(errno));
  if (!opt.chdir_to && chdir("/tmp") != 0 && chdir("/") != 0) die("cannot enter /tmp");
  static char *env[MAX_LIST + 8];
  int ne = 0;
  env[ne++] = "PATH=/usr/local/bin:/usr/bin:/bin";
  env[ne++] = "HOME=/tmp";
  env[ne++] = "TMPDIR=/tmp";
  env[ne++] = "LC_ALL=C";
  for (int i = 0; i < opt.nenv; i++) env[ne++] = (char *)opt.env[i];
  env[ne] = NULL;
  signal(SIGPIPE, SIG_DFL);
  fexecve(program_fd, argv, env);
  die("cannot run %s: %s", argv[0], strerror(errno));
}

/* Ends this process the way the child ended. */
static void mirror(int status) {
  if (WIFEXITED(status)) _exit(WEXITSTATUS(status));
  int sig = WIFSIGNALED(status) ? WTERMSIG(status) : SIGKILL;
  signal(sig, SIG_DFL);
  set_limit(RLIMIT_CORE, 0);
  sigset_t all;
  sigemptyset(&all);
  sigaddset(&all, sig);
  sigprocmask(SIG_UNBLOCK, &all, NULL);
  raise(sig);
  _exit(128 + sig);
}

static void write_status(void) {
  if (!opt.status_file) return;
  FILE *f = fopen(opt.status_file, "w");
  if (!f) return;
  fprintf(f, "{\"uid\": %d, \"run_uid\": %u, \"pid_namespace\": %d, \"mount_namespace\": %d, "
             "\"user_namespace\": %d, \"net_namespace\": %d, \"ipc_namespace\": %d, \"view\": %d}\n",
          got.uid, (unsigned)got.run_uid, got.pidns, got.mountns, got.userns, got.netns, got.ipcns, got.view);
  fclose(f);
}

/* The mounts: a root of its own (--view) or the host's with private temporary folders. */
static int setup_fs(void) {
  if (!opt.view) return setup_mounts();
  got.view = setup_view() == 0;
  return got.view ? 0 : -1;
}

/* The network and IPC namespaces, each where allowed. */
static void enter_net_ipc(int extra_flags) {
  got.netns = unshare(CLONE_NEWNET | extra_flags) == 0;
  if (got.netns && opt.loopback && loopback_up() != 0) die("cannot bring the loopback up: %s", strerror(errno));
  got.ipcns = unshare(CLONE_NEWIPC | extra_flags) == 0;
}

/* Sets up namespaces in this process (the parent of the command) as far as allowed. */
static void enter_namespaces(void) {
  if (!opt.want_ns) return;
  uid_t uid = getuid();
  gid_t gid = getgid();
  if (geteuid() == 0) {
    if (unshare(CLONE_NEWNS) == 0) {
      got.mountns = setup_fs() == 0;
      if (!got.mountns) die("cannot set up the mount namespace: %s", strerror(errno));
    }
    enter_net_ipc(0);
    got.pidns = unshare(CLONE_NEWPID) == 0;
    return;
  }
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) return;
  char map[64];
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
  write_file("/proc/self/setgroups", "deny");
  if (write_file("/proc/self/uid_map", map) != 0) return;
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
  write_file("/proc/self/gid_map", map);
  got.userns = 1;
  got.mountns = setup_fs() == 0;
  if (opt.view && !got.mountns) die("cannot set up the sandbox's own root: %s", strerror(errno));
  enter_net_ipc(0);
  got.pidns = unshare(CLONE_NEWPID) == 0;
}

static int run(char **argv) {
  if (opt.want_uid && geteuid() == 0) {
    got.uid = 1;
    got.run_uid = UID_BASE + (uid_t)getpid();
  }
  /* The --own paths are the command's to write (its build folder). */
  struct stat own_st[MAX_LIST];
  for (int i = 0; i < opt.nown; i++) {
    if (lstat(opt.own[i], &own_st[i]) != 0) die("no such path: %s", opt.own[i]);
    if (got.uid) chown_tree(opt.own[i], got.run_uid, (gid_t)got.run_uid);
  }
  pid_t parent = getpid();
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  program_fd = open(argv[0], O_RDONLY | O_CLOEXEC);
  if (program_fd < 0) die("cannot open %s: %s", argv[0], strerror(errno));
  /* A script's interpreter reopens it through /dev/fd: that descriptor must survive the exec. */
  char magic[2] = {0, 0};
  if (pread(program_fd, magic, 2, 0) == 2 && magic[0] == '#' && magic[1] == '!')
    fcntl(program_fd, F_SETFD, 0);
  enter_namespaces();
  write_status();
  fflush(NULL);
  /* In a PID namespace the first child is its init: the kernel ignores the signals init sends
   * itself, so the command runs as init's child (a raise() or abort() works as anywhere) and
   * init passes its wait status up a pipe. */
  int status_pipe[2] = {-1, -1};
  if (got.pidns && pipe2(status_pipe, O_CLOEXEC) != 0) die("pipe: %s", strerror(errno));
  pid_t child = fork();
  if (child < 0) die("fork: %s", strerror(errno));
  if (child == 0) {
    if (!got.pidns) {
      if (getppid() != parent) _exit(125);
      if (got.view) mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
      exec_child(argv);
    }
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0); /* (getppid() is 0 here: the parent is outside) */
    close(status_pipe[0]);
    if (got.mountns) mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL);
    pid_t cmd = fork();
    if (cmd < 0) _exit(125);
    if (cmd == 0) exec_child(argv);
    int st = 0;
    while (waitpid(cmd, &st, 0) < 0 && errno == EINTR) {
    }
    if (write(status_pipe[1], &st, sizeof st) != (ssize_t)sizeof st) _exit(125);
    _exit(0); /* init ends: the kernel kills whatever the command left in the namespace */
  }
  /* The parent: wait, clean up, end the way the command ended. */
  signal(SIGINT, SIG_IGN);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  if (got.pidns) {
    close(status_pipe[1]);
    int st = 0;
    if (read(status_pipe[0], &st, sizeof st) == (ssize_t)sizeof st) status = st;
    else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) status = SIGKILL; /* init was killed */
  }
  /* The --own paths go back to their owner first, so the cleanup by uid leaves them alone. */
  for (int i = 0; i < opt.nown; i++)
    if (got.uid) chown_tree(opt.own[i], own_st[i].st_uid, own_st[i].st_gid);
  if (got.uid) clean_uid_leftovers(got.run_uid, got.pidns, got.mountns && !tmp_shared, got.ipcns);
  mirror(status);
  return 0;
}

/* ---- --probe ----------------------------------------------------------------------------------- */

static int probe(void) {
  pid_t p = fork();
  if (p == 0) {
    opt.nro = opt.nhide = opt.nrw = opt.nown = opt.nview_ro = opt.nview_dev = 0;
    opt.view = 1; /* tried, not needed: the probe's root is empty */
    if (geteuid() == 0) {
      got.uid = 1;
      got.run_uid = UID_BASE + (uid_t)getpid();
    }
    enter_namespaces();
    printf("{\"root\": %d, \"uid\": %d, \"pid_namespace\": %d, \"mount_namespace\": %d, "
           "\"user_namespace\": %d, \"net_namespace\": %d, \"ipc_namespace\": %d, \"view\": %d}\n",
           geteuid() == 0 || got.userns, got.uid, got.pidns, got.mountns, got.userns, got.netns, got.ipcns,
           got.view);
    fflush(stdout);
    _exit(0);
  }
  int st = 0;
  waitpid(p, &st, 0);
  return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

static long long num(const char *flag, const char *v) {
  char *end;
  errno = 0;
  double x = strtod(v, &end);
  if (errno || end == v || *end || x < 0) die("%s wants a number, not '%s'", flag, v);
  return (long long)x;
}

int main(int argc, char **argv) {
  int i = 1;
  for (; i < argc; i++) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define TAKE(list, count)                                        \
  do {                                                           \
    if (!v) die("%s needs a value", a);                          \
    if (count == MAX_LIST) die("too many %s", a);                \
    list[count++] = v;                                           \
    i++;                                                         \
  } while (0)
    if (strcmp(a, "--") == 0) {
      i++;
      break;
    } else if (strcmp(a, "--probe") == 0) {
      return probe();
    } else if (strcmp(a, "--no-uid") == 0) {
      opt.want_uid = 0;
    } else if (strcmp(a, "--no-namespaces") == 0) {
      opt.want_ns = 0;
    } else if (strcmp(a, "--mem-data") == 0) {
      opt.mem_data = 1;
    } else if (strcmp(a, "--view") == 0) {
      opt.view = 1;
    } else if (strcmp(a, "--loopback") == 0) {
      opt.loopback = 1;
    } else if (!v) {
      die("unknown option or missing value: %s", a);
    } else if (strcmp(a, "--cpu") == 0) {
      opt.cpu_s = (double)num(a, v), i++;
    } else if (strcmp(a, "--mem") == 0) {
      opt.mem_mb = num(a, v), i++;
    } else if (strcmp(a, "--fsize") == 0) {
      opt.fsize_mb = num(a, v), i++;
    } else if (strcmp(a, "--tmp") == 0) {
      opt.tmp_mb = num(a, v), i++;
    } else if (strcmp(a, "--nproc") == 0) {
      opt.nproc = (int)num(a, v), i++;
    } else if (strcmp(a, "--nofile") == 0) {
      opt.nofile = (int)num(a, v), i++;
    } else if (strcmp(a, "--chdir") == 0) {
      opt.chdir_to = v, i++;
    } else if (strcmp(a, "--status-file") == 0) {
      opt.status_file = v, i++;
    } else if (strcmp(a, "--ro") == 0) {
      TAKE(opt.ro, opt.nro);
    } else if (strcmp(a, "--hide") == 0) {
      TAKE(opt.hide, opt.nhide);
    } else if (strcmp(a, "--rw") == 0) {
      TAKE(opt.rw, opt.nrw);
    } else if (strcmp(a, "--own") == 0) {
      TAKE(opt.own, opt.nown);
    } else if (strcmp(a, "--view-ro") == 0) {
      if (opt.nview_ro == MAX_VIEW) die("too many --view-ro");
      opt.view_ro[opt.nview_ro++] = v, i++;
    } else if (strcmp(a, "--view-dev") == 0) {
      if (opt.nview_dev == MAX_VIEW) die("too many --view-dev");
      opt.view_dev[opt.nview_dev++] = v, i++;
    } else if (strcmp(a, "--env") == 0) {
      TAKE(opt.env, opt.nenv);
    } else if (strcmp(a, "--keep-fd") == 0) {
      if (opt.nkeep == MAX_LIST) die("too many --keep-fd");
      opt.keep[opt.nkeep++] = (int)num(a, v), i++;
    } else {
      die("unknown option %s", a);
    }
  }
  if (i >= argc) die("usage: scanlab-sandbox [options] -- PROGRAM [ARGS...]  (or --probe)");
  if (argv[i][0] != '/') die("the program must be an absolute path: %s", argv[i]);
  return run(argv + i);
}
