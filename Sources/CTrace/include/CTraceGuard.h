// CTraceGuard: kills registered process groups and the target cgroup (and empties and removes a
// registered folder) when premain itself is interrupted, and, through a watchdog process, when
// premain is killed outright (SIGKILL runs no handler). Shared by `measure`, `trace` and `pr`.
// Async-signal-safe by construction: fixed arrays, kill(2), getdents64, unlink(2), rmdir(2),
// waitpid(2), and fork(2) + execve(2) for pr's cleanup command.
#ifndef CTRACE_GUARD_H
#define CTRACE_GUARD_H

#include <sys/types.h>

/// Registers process group `pgid` (> 0) to be SIGKILLed if premain gets SIGINT, SIGTERM,
/// SIGHUP or SIGQUIT. Returns 0, or -1 when the table (64 groups) is full.
int ctrace_guard_add(pid_t pgid);

/// Forgets `pgid`; no effect when it is not registered.
void ctrace_guard_remove(pid_t pgid);

/// A flat folder (the launch's LD_DEBUG FIFO, null device, children's files) that those signals
/// must also empty and remove; NULL forgets it. The string is copied (at most 4095 bytes).
void ctrace_guard_folder(const char *folder);

/// The temporary file an output is being written to (in the output's folder, renamed over it
/// once complete): those signals, and the watchdog once premain is gone, unlink it; NULL or ""
/// forgets it. The string is copied (at most 4095 bytes). One at a time: outputs are written one
/// after the other.
void ctrace_guard_temporary(const char *path);

/// A cgroup v2 folder holding the targets: on those signals its `cgroup.kill` is written; the
/// watchdog also removes it once empty. NULL forgets it.
void ctrace_guard_cgroup(const char *cgroup);

/// Forks the watchdog once (later calls return 0): a process that outlives premain, learns
/// through a socket what is registered here, and when premain is gone (the socket's end of
/// file, which SIGKILL also gives) kills the registered groups and cgroup and removes the folders.
/// Returns its pid, 0 when already running, or -errno.
int ctrace_guard_watchdog_start(void);

/// A command (argv[0] an absolute path; at most 8 arguments, each without a newline and
/// shorter than 4095 bytes) that the watchdog runs to its end once premain is gone, after the
/// groups are killed: `pr --commits` removes its worktrees with it. The handler then lets the
/// watchdog go and waits for it (up to ~30 s) before re-raising. `count` 0 forgets it. Returns 0,
/// or -1 when there is no watchdog or an argument does not fit.
int ctrace_guard_cleanup(const char *const *argv, int count);

/// Installs the handlers once (later calls do nothing and return 0) and unblocks those signals
/// in the calling thread. The handler kills every registered group, removes the paths, restores
/// the default action and re-raises the signal, so premain still dies of it. Returns 0 or -errno.
int ctrace_guard_install(void);

#endif
