// CTrace: the few things Swift cannot call directly. Kept tiny on purpose; the logic is Swift.
#ifndef CTRACE_H
#define CTRACE_H

#include <gnu/libc-version.h>  // gnu_get_libc_version(), which the Glibc module does not export
#include <sys/types.h>

#include "CTraceGuard.h"   // interrupt guard: kill traced process groups when premain is interrupted
#include "CTraceThread.h"  // tracer thread id, tgkill
#include "CTraceField.h"   // field run as a parent: spawn with PREMAIN_T0, signals, the ready mark

/// How the child is set up between vfork and exec.
typedef struct {
    int cpu;          ///< CPU to pin the child to, or -1 for no pinning.
    int traceme;      ///< Non-zero: PTRACE_TRACEME before exec (the child stops at exec).
    int stdinFD;      ///< Descriptor to dup onto 0, or -1 to keep.
    int stdoutFD;     ///< Descriptor to dup onto 1, or -1 to keep.
    int stderrFD;     ///< Descriptor to dup onto 2, or -1 to keep.
    const char *fifoPrefix;  ///< Non-NULL: the child makes the FIFO `fifoPrefix` + its pid (mode 0600)
                             ///< before execve, so glibc's LD_DEBUG_OUTPUT.PID is a FIFO.
    int cgroupProcsFD;  ///< A cgroup v2 `cgroup.procs` open for writing, or -1: the child joins
                        ///< that cgroup before execve.
    int cwdFD;          ///< A folder open for fchdir before execve, or -1 to keep premain's.
} ctrace_spawn_options;

/// What a spawn did.
typedef struct {
    unsigned long long birthNs;  ///< CLOCK_MONOTONIC (ns) the child read just before execve, its
                                 ///< set-up done: process birth (0 when it never got there).
    int execErrno;               ///< 0 when execve succeeded; else its errno (the child exited 127).
    int fifoErrno;               ///< 0, or the errno of mkfifo (the child exited 126 without exec).
} ctrace_spawn_result;

/// vfork + execve, the way posix_spawn does it: the child shares our memory until it execs, so
/// nothing of this (possibly large) process is copied or torn down inside the measured time.
/// The child becomes leader of its own process group, gets SIGKILL when its parent thread dies
/// (PR_SET_PDEATHSIG), resets every caught signal to its default, applies `options` and execs.
/// Returns once the child has exec'd (or failed): its pid, with `result` filled in; or -errno
/// when vfork itself failed. A child with `execErrno` or `fifoErrno` set has exited; reap it.
pid_t ctrace_spawn(const char *path, char *const argv[], char *const envp[],
                   const ctrace_spawn_options *options, ctrace_spawn_result *result);

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

/// memfd_create(name, MFD_CLOEXEC): an anonymous in-memory file (the GNU declaration Swift's
/// Glibc module leaves out). Returns the descriptor or -errno.
int ctrace_memfd(const char *name);

#endif
