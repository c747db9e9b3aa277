// CTraceGuard: kills registered process groups when premain itself is interrupted.
// Async-signal-safe by construction: a fixed array of pids and kill(2) in the handler.
#ifndef CTRACE_GUARD_H
#define CTRACE_GUARD_H

#include <sys/types.h>

/// Registers process group `pgid` (> 0) to be SIGKILLed if premain gets SIGINT, SIGTERM,
/// SIGHUP or SIGQUIT. Returns 0, or -1 when the table (64 groups) is full.
int ctrace_guard_add(pid_t pgid);

/// Forgets `pgid`; no effect when it is not registered.
void ctrace_guard_remove(pid_t pgid);

/// Installs the handlers once (later calls do nothing). The handler kills every registered
/// group, restores the default action and re-raises the signal, so premain still dies of it.
void ctrace_guard_install(void);

#endif
