#define _GNU_SOURCE
#include "CTraceGuard.h"

#include <pthread.h>
#include <signal.h>
#include <string.h>

#define GUARD_SLOTS 64

static volatile sig_atomic_t guard_groups[GUARD_SLOTS];
static volatile sig_atomic_t guard_installed;

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

static void guard_handler(int sig) {
    for (int i = 0; i < GUARD_SLOTS; i++) {
        pid_t pgid = guard_groups[i];
        if (pgid > 0) kill(-pgid, SIGKILL);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

void ctrace_guard_install(void) {
    if (guard_installed) return;
    guard_installed = 1;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = guard_handler;
    sigemptyset(&action.sa_mask);
    int signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    sigset_t unblock;
    sigemptyset(&unblock);
    for (unsigned i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        sigaction(signals[i], &action, 0);
        sigaddset(&unblock, signals[i]);
    }
    // A parent may have started premain with these blocked (Foundation's Process does): the
    // calling thread takes them, so an interrupted premain still cleans up.
    pthread_sigmask(SIG_UNBLOCK, &unblock, 0);
}
