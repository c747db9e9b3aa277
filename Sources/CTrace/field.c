#define _GNU_SOURCE
#include "CTraceField.h"
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PREMAIN_SYS_OPEN(path, flags, mode) ((long)open((path), (flags), (mode)))
#define PREMAIN_SYS_READ(fd, buffer, count) ((long)read((fd), (buffer), (count)))
#define PREMAIN_SYS_WRITE(fd, buffer, count) ((long)write((fd), (buffer), (count)))
#define PREMAIN_SYS_FSTAT(fd, status) (fstat((fd), (status)))
#define PREMAIN_SYS_CLOSE(fd) ((void)close(fd))
#include "../PremainRecord/include/premain_spool.h"

pid_t ctrace_field_spawn(const char *path, char *const argv[], char *const envp[], char *t0Value,
                         int t0Capacity, int *execErrno) {
    volatile int failed = 0;
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = vfork();
    if (pid == 0) {
        // On our memory until execve: system calls only.
        ctrace_child_default_signals();
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, 0);
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (t0Value && t0Capacity > 1) {
            char *end = t0Value + t0Capacity - 1;
            char *at = ctrace_append_decimal(t0Value, end, (unsigned long long)now.tv_sec * 1000000000ull +
                                                     (unsigned long long)now.tv_nsec);
            if (at < end) *at++ = ':';
            at = ctrace_append_decimal(at, end, (unsigned long long)getpid());
            *at = 0;
        }
        execve(path, argv, envp);
        failed = errno;
        _exit(127);
    }
    int forkErrno = errno;
    pthread_sigmask(SIG_SETMASK, &old, 0);
    if (pid < 0) return -forkErrno;
    *execErrno = failed;
    return pid;
}

static volatile pid_t forward_to = 0;

static void forward(int sig) {
    int saved = errno;
    if (forward_to > 0) kill(forward_to, sig);
    errno = saved;
}

int ctrace_field_forward_signals(pid_t child) {
    forward_to = child;
    const int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2};
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = forward;
        action.sa_flags = SA_RESTART;
        sigemptyset(&action.sa_mask);
        if (sigaction(signals[i], &action, 0) != 0) return -errno;
    }
    return 0;
}

int ctrace_field_mark(const char *dir, pid_t pid, const char *name, unsigned long long t) {
    if (dir == NULL || dir[0] == 0 || name == NULL) return 0;
    struct timespec realtime = {0, 0}, boottime = {0, 0};
    (void)clock_gettime(CLOCK_REALTIME, &realtime);
    (void)clock_gettime(CLOCK_BOOTTIME, &boottime);
    char bytes[512];
    premain_line line = {bytes, 0, sizeof bytes, 0};
    premain_put(&line, "premain-record/1 kind=mark");
    premain_put_key(&line, "pid");
    premain_put_u64(&line, (uint64_t)pid);
    premain_put_key(&line, "boot");
    premain_put_hex64(&line, premain_boot_hash(
                                 (uint64_t)realtime.tv_sec * 1000000000ULL + (uint64_t)realtime.tv_nsec,
                                 (uint64_t)boottime.tv_sec * 1000000000ULL + (uint64_t)boottime.tv_nsec));
    premain_put_key(&line, "t");
    premain_put_u64(&line, t);
    premain_put_key(&line, "name");
    premain_put_escaped(&line, name, premain_strlen(name, PREMAIN_MARK_NAME_MAX));
    premain_put_bytes(&line, "\n", 1);
    uint64_t max_bytes = PREMAIN_DEFAULT_MAX_BYTES;
    const char *max_text = getenv("PREMAIN_FIELD_MAX_BYTES");
    if (max_text != NULL) (void)premain_parse_u64(max_text, premain_strlen(max_text, 32), &max_bytes);
    uint32_t uid = (uint32_t)getuid();
    uint64_t size = 0;
    long fd = premain_spool_begin(dir, uid, &size);
    if (fd < 0) return 0;
    return premain_spool_finish(dir, uid, max_bytes, fd, size, &line);
}
