#define _GNU_SOURCE
#include "CTraceGuard.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#define GUARD_SLOTS 64

static volatile sig_atomic_t guard_groups[GUARD_SLOTS];
static volatile sig_atomic_t guard_installed;
static volatile sig_atomic_t guard_paths_valid;
static char guard_fifo[4096], guard_folder[4096];

int ctrace_guard_add(pid_t pgid) {
    if (pgid <= 0) return -1;
    for (int i = 0; i < GUARD_SLOTS; i++) {
        if (guard_groups[i] == 0) {
            guard_groups[i] = pgid;
            return 0;
        }
    }
    return -1;
}

void ctrace_guard_remove(pid_t pgid) {
    for (int i = 0; i < GUARD_SLOTS; i++)
        if (guard_groups[i] == pgid) guard_groups[i] = 0;
}

static void copy_path(char *to, const char *from) {
    size_t i = 0;
    if (from)
        for (; from[i] && i < 4095; i++) to[i] = from[i];
    to[i] = 0;
}

void ctrace_guard_paths(const char *fifo, const char *folder) {
    guard_paths_valid = 0;
    copy_path(guard_fifo, fifo);
    copy_path(guard_folder, folder);
    guard_paths_valid = fifo || folder;
}

static void guard_handler(int sig) {
    for (int i = 0; i < GUARD_SLOTS; i++) {
        pid_t pgid = guard_groups[i];
        if (pgid > 0) kill(-pgid, SIGKILL);
    }
    if (guard_paths_valid) {
        if (guard_fifo[0]) unlink(guard_fifo);
        if (guard_folder[0]) rmdir(guard_folder);
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
