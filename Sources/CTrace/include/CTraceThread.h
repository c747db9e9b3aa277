// CTraceThread: the tracer thread's own id and CPU affinity (glibc hides gettid without
// _GNU_SOURCE, and cpu_set_t is macros).
#ifndef CTRACE_THREAD_H
#define CTRACE_THREAD_H

#include <sys/types.h>

/// The calling thread's id (gettid).
pid_t ctrace_thread_id(void);

/// Lets the calling thread run on every CPU again (after `ctrace_pin_self`). Returns 0 or -errno.
int ctrace_unpin_self(void);

/// Sends `signal` to thread `tid` of thread group `tgid` (tgkill). Returns 0 or -errno.
int ctrace_tgkill(pid_t tgid, pid_t tid, int signal);

#endif
