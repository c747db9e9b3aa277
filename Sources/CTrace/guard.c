#define _GNU_SOURCE
#include "CTraceGuard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GUARD_SLOTS 64
#define GUARD_PATH 4096
#define GUARD_ARGS 8

static volatile sig_atomic_t guard_groups[GUARD_SLOTS];
static volatile sig_atomic_t guard_installed;
static volatile sig_atomic_t guard_paths_valid;
static char guard_folder[GUARD_PATH], guard_cgroup[GUARD_PATH], guard_temporary[GUARD_PATH];
static volatile sig_atomic_t guard_temporary_valid;
static int watchdog_fd = -1;
static pid_t watchdog_pid;
static volatile sig_atomic_t cleanup_registered;
extern char **environ;

static void copy_path(char *to, const char *from) {
    size_t i = 0;
    if (from)
        for (; from[i] && i < GUARD_PATH - 1; i++) to[i] = from[i];
    to[i] = 0;
}

static size_t length(const char *text) {
    size_t n = 0;
    while (text[n]) n++;
    return n;
}

// Appends `from` to `to` (capacity GUARD_PATH); async-signal-safe.
static void append(char *to, const char *from) {
    size_t at = length(to);
    for (size_t i = 0; from[i] && at < GUARD_PATH - 1; i++) to[at++] = from[i];
    to[at] = 0;
}

// Tells the watchdog (when there is one) one line: a kind letter and a value. Async-signal-safe.
static void tell(char kind, const char *value) {
    if (watchdog_fd < 0) return;
    char line[GUARD_PATH + 2];
    size_t n = 0;
    line[n++] = kind;
    for (size_t i = 0; value && value[i] && n < GUARD_PATH; i++) line[n++] = value[i];
    line[n++] = '\n';
    ssize_t put;
    // send with MSG_NOSIGNAL: a watchdog that is gone must not kill premain with SIGPIPE.
    do {
        put = send(watchdog_fd, line, n, MSG_NOSIGNAL);
    } while (put < 0 && errno == EINTR);
}

static void tell_number(char kind, long value) {
    char digits[24], text[24];
    int count = 0, n = 0;
    if (value < 0) value = 0;
    do {
        digits[count++] = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0 && count < 23);
    while (count > 0) text[n++] = digits[--count];
    text[n] = 0;
    tell(kind, text);
}

// Deletes every entry of a flat folder (raw getdents64: async-signal-safe), then the folder.
static void remove_folder(const char *folder) {
    if (!folder[0]) return;
    int fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        char buffer[4096];
        long got;
        while ((got = syscall(SYS_getdents64, fd, buffer, sizeof buffer)) > 0) {
            for (long at = 0; at < got;) {
                struct dirent64 *entry = (struct dirent64 *)(buffer + at);
                at += entry->d_reclen;
                const char *name = entry->d_name;
                if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
                unlinkat(fd, name, 0);
            }
        }
        close(fd);
    }
    rmdir(folder);
}

// Kills every process of a cgroup v2 (cgroup.kill) and removes it once empty (up to ~2 s).
static void kill_cgroup(const char *cgroup, int removeIt) {
    if (!cgroup[0]) return;
    char path[GUARD_PATH];
    copy_path(path, cgroup);
    append(path, "/cgroup.kill");
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t ignored = write(fd, "1", 1);
        (void)ignored;
        close(fd);
    }
    if (!removeIt) return;
    for (int attempt = 0; attempt < 200 && rmdir(cgroup) != 0 && errno == EBUSY; attempt++) {
        struct timespec pause = {0, 10 * 1000 * 1000};
        nanosleep(&pause, 0);
    }
}

int ctrace_guard_add(pid_t pgid) {
    if (pgid <= 0) return -1;
    for (int i = 0; i < GUARD_SLOTS; i++) {
        if (guard_groups[i] == 0) {
            guard_groups[i] = pgid;
            tell_number('G', pgid);
            return 0;
        }
    }
    return -1;
}

void ctrace_guard_remove(pid_t pgid) {
    for (int i = 0; i < GUARD_SLOTS; i++)
        if (guard_groups[i] == pgid) guard_groups[i] = 0;
    tell_number('g', pgid);
}

void ctrace_guard_folder(const char *folder) {
    guard_paths_valid = 0;
    copy_path(guard_folder, folder);
    guard_paths_valid = folder != 0;
    tell('F', folder ? folder : "");
}

void ctrace_guard_temporary(const char *path) {
    guard_temporary_valid = 0;
    copy_path(guard_temporary, path);
    guard_temporary_valid = path != 0 && path[0] != 0;
    // The watchdog reads lines: a path holding a newline is left to the handler alone.
    int newline = 0;
    for (size_t i = 0; path && path[i]; i++) newline |= path[i] == '\n';
    tell('T', path && !newline ? path : "");
}

void ctrace_guard_cgroup(const char *cgroup) {
    copy_path(guard_cgroup, cgroup);
    tell('C', cgroup ? cgroup : "");
}

int ctrace_guard_cleanup(const char *const *argv, int count) {
    if (count < 0 || count > GUARD_ARGS || (count > 0 && watchdog_fd < 0)) return -1;
    for (int i = 0; i < count; i++) {
        size_t n = 0;
        for (; argv[i][n]; n++)
            if (argv[i][n] == '\n') return -1;
        if (n >= GUARD_PATH - 1) return -1;
    }
    cleanup_registered = 0;
    tell('x', "");
    for (int i = 0; i < count; i++) tell('X', argv[i]);
    cleanup_registered = count > 0;
    return 0;
}

static void guard_handler(int sig) {
    for (int i = 0; i < GUARD_SLOTS; i++) {
        pid_t pgid = guard_groups[i];
        if (pgid > 0) kill(-pgid, SIGKILL);
    }
    kill_cgroup(guard_cgroup, 0);
    if (guard_paths_valid) remove_folder(guard_folder);
    if (guard_temporary_valid) unlink(guard_temporary);
    // A cleanup command is the watchdog's to run once premain is gone: let it go now and wait
    // for it (at most ~30 s), so that premain ends with nothing of its left behind.
    if (cleanup_registered && watchdog_fd >= 0) {
        close(watchdog_fd);
        watchdog_fd = -1;
        for (int i = 0; i < 3000 && waitpid(watchdog_pid, 0, WNOHANG) == 0; i++) {
            struct timespec pause = {0, 10 * 1000 * 1000};
            nanosleep(&pause, 0);
        }
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

int ctrace_guard_install(void) {
    if (guard_installed) return 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = guard_handler;
    sigemptyset(&action.sa_mask);
    int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    sigset_t unblock;
    sigemptyset(&unblock);
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        if (sigaction(signals[i], &action, 0) != 0) return -errno;
        sigaddset(&unblock, signals[i]);
    }
    guard_installed = 1;
    // A parent may have started premain with these blocked (Foundation's Process does): the
    // calling thread takes them, so an interrupted premain still cleans up.
    int result = pthread_sigmask(SIG_UNBLOCK, &unblock, 0);
    return result == 0 ? 0 : -result;
}

// The watchdog process: reads what premain registers until premain is gone (end of file, even
// after SIGKILL), then kills and removes whatever is still registered. Async-signal-safe only:
// it is forked from a multithreaded process and never execs.
static void watchdog_main(int readFD) {
    setsid();  // out of the terminal's process group: a Ctrl-C for premain is not for it
    struct sigaction ignore;
    memset(&ignore, 0, sizeof ignore);
    ignore.sa_handler = SIG_IGN;
    int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) sigaction(signals[i], &ignore, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, 0);
    // Keep only the pipe: a copy of premain's stdout or of the pipe's write end would keep
    // premain's readers (and this watchdog) waiting.
    int input = fcntl(readFD, F_DUPFD, 10);
    int null = open("/dev/null", O_RDWR);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
    }
    dup2(input, 3);
    syscall(SYS_close_range, 4u, ~0u, 0u);

    static pid_t groups[GUARD_SLOTS];
    static char folder[GUARD_PATH], cgroup[GUARD_PATH], temporary[GUARD_PATH], line[GUARD_PATH + 2];
    static char cleanup[GUARD_ARGS][GUARD_PATH];
    int cleanupCount = 0;
    size_t used = 0;
    char byte;
    for (;;) {
        ssize_t got = read(3, &byte, 1);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) break;
        if (byte != '\n') {
            if (used < sizeof line - 1) line[used++] = byte;
            continue;
        }
        line[used] = 0;
        used = 0;
        char kind = line[0];
        const char *value = line + 1;
        if (kind == 'G' || kind == 'g') {
            long pgid = 0;
            for (const char *c = value; *c >= '0' && *c <= '9'; c++) pgid = pgid * 10 + (*c - '0');
            for (int i = 0; i < GUARD_SLOTS; i++) {
                if (kind == 'g' && groups[i] == pgid) groups[i] = 0;
                if (kind == 'G' && groups[i] == 0) {
                    groups[i] = (pid_t)pgid;
                    break;
                }
            }
        } else if (kind == 'F') {
            copy_path(folder, value);
        } else if (kind == 'C') {
            copy_path(cgroup, value);
        } else if (kind == 'T') {
            copy_path(temporary, value);
        } else if (kind == 'x') {
            cleanupCount = 0;
        } else if (kind == 'X' && cleanupCount < GUARD_ARGS) {
            copy_path(cleanup[cleanupCount++], value);
        }
    }
    for (int i = 0; i < GUARD_SLOTS; i++)
        if (groups[i] > 0) kill(-groups[i], SIGKILL);
    kill_cgroup(cgroup, 1);
    remove_folder(folder);
    if (temporary[0]) unlink(temporary);
    // The registered cleanup command (pr's worktrees), run to its end: execve is
    // async-signal-safe, and argv[0] is an absolute path.
    if (cleanupCount > 0) {
        char *argv[GUARD_ARGS + 1];
        for (int i = 0; i < cleanupCount; i++) argv[i] = cleanup[i];
        argv[cleanupCount] = 0;
        pid_t child = fork();
        if (child == 0) {
            execve(argv[0], argv, environ);
            _exit(127);
        }
        while (child > 0 && waitpid(child, 0, 0) < 0 && errno == EINTR) {}
    }
    _exit(0);
}

int ctrace_guard_watchdog_start(void) {
    if (watchdog_fd >= 0) return 0;
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return -errno;
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        return -e;
    }
    if (pid == 0) {
        close(fds[1]);
        watchdog_main(fds[0]);
    }
    close(fds[0]);
    watchdog_fd = fds[1];
    watchdog_pid = pid;
    // Tell it what is registered already.
    for (int i = 0; i < GUARD_SLOTS; i++)
        if (guard_groups[i] > 0) tell_number('G', guard_groups[i]);
    if (guard_folder[0]) tell('F', guard_folder);
    if (guard_cgroup[0]) tell('C', guard_cgroup);
    if (guard_temporary_valid && !strchr(guard_temporary, '\n')) tell('T', guard_temporary);
    return pid;
}
