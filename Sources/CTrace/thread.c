#define _GNU_SOURCE
#include "CTraceThread.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

pid_t ctrace_thread_id(void) { return gettid(); }

int ctrace_unpin_self(void) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++) CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : -errno;
}

int ctrace_tgkill(pid_t tgid, pid_t tid, int signal) { return tgkill(tgid, tid, signal) == 0 ? 0 : -errno; }
