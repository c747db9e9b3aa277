#define _GNU_SOURCE
#include "CTraceThread.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

pid_t ctrace_thread_id(void) { return gettid(); }

int ctrace_tgkill(pid_t tgid, pid_t tid, int signal) { return tgkill(tgid, tid, signal) == 0 ? 0 : -errno; }
