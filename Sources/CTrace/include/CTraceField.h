// CTraceField: `premain field run` as a parent, for a service that says READY=1 (sd_notify):
// the command started with its exact birth stamped, signals passed on, the ready mark written
// in the recorder's format (docs/field-record.md).
#ifndef CTRACE_FIELD_H
#define CTRACE_FIELD_H

#include <sys/types.h>

/// vfork + execve of `path`, in premain's process group (a terminal's signals reach both). The
/// child writes `NS:PID` (CLOCK_MONOTONIC just before execve, its own pid) into `t0Value`, which
/// the caller put in `envp` as the value of `PREMAIN_T0=` with `t0Capacity` bytes of room, and
/// resets every caught signal to its default. Returns the pid, or -errno; `*execErrno` is the
/// errno of a failed execve (the child then exited 127), else 0.
pid_t ctrace_field_spawn(const char *path, char *const argv[], char *const envp[], char *t0Value,
                         int t0Capacity, int *execErrno);

/// Passes SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1 and SIGUSR2 on to `child` from now on.
/// Returns 0 or -errno.
int ctrace_field_forward_signals(pid_t child);

/// Appends `premain-record/1 kind=mark pid=PID boot=B t=T name=NAME` to DIR/<uid>.records, as
/// premain_mark() does for its own process (one O_APPEND write; a missing or full spool drops it
/// and counts the drop). Returns 1 when written, else 0.
int ctrace_field_mark(const char *dir, pid_t pid, const char *name, unsigned long long t);

#endif
