// CTrace: the few things Swift cannot call directly. Kept tiny on purpose; the logic is Swift.
#ifndef CTRACE_H
#define CTRACE_H

#include <gnu/libc-version.h>  // gnu_get_libc_version(), which the Glibc module does not export
#include <sys/types.h>

#include "CTraceGuard.h"   // interrupt guard: kill traced process groups when premain is interrupted
#include "CTraceThread.h"  // tracer thread id, tgkill

/// How the child is set up between fork and exec.
typedef struct {
    int cpu;          ///< CPU to pin the child to, or -1 for no pinning.
    int traceme;      ///< Non-zero: PTRACE_TRACEME before exec (the child stops at exec).
    int stdinFD;      ///< Descriptor to dup onto 0, or -1 to keep.
    int stdoutFD;     ///< Descriptor to dup onto 1, or -1 to keep.
    int stderrFD;     ///< Descriptor to dup onto 2, or -1 to keep.
} ctrace_spawn_options;

/// The parent's ends of a gated child's two pipes.
typedef struct {
    int goFD;         ///< Write end: one byte lets the child call execve.
    int reportFD;     ///< Read end: receives the child's errno when execve fails.
} ctrace_gate;

/// Forks; the child becomes leader of its own process group, gets SIGKILL when its parent
/// thread dies (PR_SET_PDEATHSIG), applies `options`, and execs
/// `path` with `argv` and `envp`. Returns the child's pid, or -errno when fork failed or the
/// exec failed (the child's errno is passed back through a close-on-exec pipe).
pid_t ctrace_spawn(const char *path, char *const argv[], char *const envp[],
                   const ctrace_spawn_options *options);

/// Like `ctrace_spawn`, but the set-up child then blocks, before execve, until
/// `ctrace_release(gate)`: the parent learns the pid first (to prepare files named after it)
/// and can read the clock just before the child execs. Returns the pid or -errno (fork).
pid_t ctrace_spawn_gated(const char *path, char *const argv[], char *const envp[],
                         const ctrace_spawn_options *options, ctrace_gate *gate);

/// Lets a gated child exec and closes the gate. Returns 0 when execve succeeded, or -errno
/// when it failed (the child then exits with 127; the caller reaps it). Without a byte (gate
/// closed unreleased) the child exits with 126.
int ctrace_release(ctrace_gate *gate);

/// ptrace(2) without varargs. Architecture-neutral, like everything here: the request numbers
/// and the register layout (x86-64 only) are the Swift caller's.
long ctrace_ptrace(int request, pid_t pid, unsigned long addr, unsigned long data);

/// Pins the calling thread to one CPU. Returns 0 or -errno.
int ctrace_pin_self(int cpu);

/// Writes the CPUs the calling thread may run on into `cpus`, ascending, at most `capacity`.
/// Returns how many, or -errno.
int ctrace_allowed_cpu_list(int *cpus, int capacity);

/// Lets the calling thread run on exactly the `count` CPUs listed in `cpus`. Returns 0 or -errno.
int ctrace_set_cpus_self(const int *cpus, int count);

/// pidfd_open(2): a descriptor that polls readable when `pid` exits. Returns it or -errno.
int ctrace_pidfd_open(pid_t pid);

/// prctl(PR_SET_CHILD_SUBREAPER, 1): orphans of our children are re-parented to us, so we can
/// reap a whole process group. Returns 0 or -errno.
int ctrace_set_child_subreaper(void);

#endif
