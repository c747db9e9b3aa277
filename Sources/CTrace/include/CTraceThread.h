// CTraceThread: the tracer thread's own id, and signals to one thread (glibc hides gettid and
// tgkill without _GNU_SOURCE).
#ifndef CTRACE_THREAD_H
#define CTRACE_THREAD_H

#include <sys/types.h>

/// The calling thread's id (gettid).
pid_t ctrace_thread_id(void);

/// Sends `signal` to thread `tid` of thread group `tgid` (tgkill). Returns 0 or -errno.
int ctrace_tgkill(pid_t tgid, pid_t tid, int signal);

#endif
