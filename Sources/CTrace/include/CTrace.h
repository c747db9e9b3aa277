// CTrace: the few things Swift cannot call directly. Kept tiny on purpose; the logic is Swift.
#ifndef CTRACE_H
#define CTRACE_H

#include <sys/types.h>

#include "CTraceGuard.h"   // interrupt guard: kill traced process groups when premain is interrupted
#include "CTraceThread.h"  // tracer thread id and affinity

/// How the child is set up between fork and exec.
typedef struct {
    int cpu;          ///< CPU to pin the child to, or -1 for no pinning.
    int traceme;      ///< Non-zero: PTRACE_TRACEME before exec (the child stops at exec).
    int stdinFD;      ///< Descriptor to dup onto 0, or -1 to keep.
    int stdoutFD;     ///< Descriptor to dup onto 1, or -1 to keep.
    int stderrFD;     ///< Descriptor to dup onto 2, or -1 to keep.
} ctrace_spawn_options;

/// Forks; the child becomes leader of its own process group, applies `options`, and execs
/// `path` with `argv` and `envp`. Returns the child's pid, or -errno when fork failed or the
/// exec failed (the child's errno is passed back through a close-on-exec pipe).
pid_t ctrace_spawn(const char *path, char *const argv[], char *const envp[],
                   const ctrace_spawn_options *options);

/// ptrace(2) without varargs.
long ctrace_ptrace(int request, pid_t pid, unsigned long addr, unsigned long data);

/// Pins the calling thread to one CPU. Returns 0 or -errno.
int ctrace_pin_self(int cpu);

/// Number of CPUs the calling thread may run on, or -1.
int ctrace_allowed_cpus(void);

#endif
