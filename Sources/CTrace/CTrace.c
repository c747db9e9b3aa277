#define _GNU_SOURCE
#include "CTrace.h"
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int pin(pid_t pid, int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(pid, sizeof set, &set) == 0 ? 0 : -errno;
}

pid_t ctrace_spawn(const char *path, char *const argv[], char *const envp[],
                   const ctrace_spawn_options *options, ctrace_spawn_result *result) {
    // The child shares our memory until it execs (vfork): it writes its errors here.
    volatile int execErrno = 0, fifoErrno = 0;
    volatile unsigned long long birthNs = 0;
    char fifoPath[4096];
    size_t prefixLength = 0;
    if (options->fifoPrefix) {
        while (options->fifoPrefix[prefixLength] && prefixLength < sizeof fifoPath - 24) {
            fifoPath[prefixLength] = options->fifoPrefix[prefixLength];
            prefixLength++;
        }
    }
    // No handler of ours may run in the child while it shares our memory.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pid_t pid = vfork();
    if (pid == 0) {
        // Child, on our memory: system calls only, no allocation, no lock.
        ctrace_child_default_signals();
        setpgid(0, 0);
        if (options->cgroupProcsFD >= 0) {
            ssize_t joined = write(options->cgroupProcsFD, "0", 1);
            (void)joined;  // without the cgroup, process groups still end the run
        }
        // If the measuring thread dies, even by SIGKILL, the target dies too.
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        if (options->cpu >= 0) pin(0, options->cpu);
        if (options->stdinFD >= 0) dup2(options->stdinFD, 0);
        if (options->stdoutFD >= 0) dup2(options->stdoutFD, 1);
        if (options->stderrFD >= 0) dup2(options->stderrFD, 2);
        if (options->cwdFD >= 0 && fchdir(options->cwdFD) != 0) {
            execErrno = errno;
            _exit(127);
        }
        if (options->fifoPrefix) {
            // glibc's loader opens LD_DEBUG_OUTPUT.PID: it must be our FIFO, not a new file.
            char *end = ctrace_append_decimal(fifoPath + prefixLength, fifoPath + sizeof fifoPath - 1, (long)getpid());
            *end = 0;
            if (mkfifo(fifoPath, 0600) != 0) {
                fifoErrno = errno;
                _exit(126);
            }
        }
        if (options->traceme) ptrace(PTRACE_TRACEME, 0, 0, 0);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, 0);
        // Process birth: set-up done (pinning, cgroup, FIFO), nothing but execve left.
        struct timespec birth;
        clock_gettime(CLOCK_MONOTONIC, &birth);
        birthNs = (unsigned long long)birth.tv_sec * 1000000000ull + (unsigned long long)birth.tv_nsec;
        execve(path, argv, envp);
        execErrno = errno;
        _exit(127);
    }
    int forkErrno = errno;
    pthread_sigmask(SIG_SETMASK, &old, 0);
    if (pid < 0) return -forkErrno;
    setpgid(pid, pid);  // Also from the parent, so the group exists before anyone signals it.
    result->birthNs = birthNs;
    result->execErrno = execErrno;
    result->fifoErrno = fifoErrno;
    return pid;
}

long ctrace_ptrace(int request, pid_t pid, unsigned long addr, unsigned long data) {
    errno = 0;
    return ptrace((enum __ptrace_request)request, pid, (void *)addr, (void *)data);
}

int ctrace_pin_self(int cpu) { return pin(0, cpu); }

int ctrace_allowed_cpu_list(int *cpus, int capacity) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return -errno;
    int count = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && count < capacity; cpu++)
        if (CPU_ISSET(cpu, &set)) cpus[count++] = cpu;
    return count;
}

int ctrace_set_cpus_self(const int *cpus, int count) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int i = 0; i < count; i++)
        if (cpus[i] >= 0 && cpus[i] < CPU_SETSIZE) CPU_SET(cpus[i], &set);
    return sched_setaffinity(0, sizeof set, &set) == 0 ? 0 : -errno;
}

int ctrace_pidfd_open(pid_t pid) {
    long fd = syscall(SYS_pidfd_open, pid, 0);
    return fd < 0 ? -errno : (int)fd;
}

int ctrace_set_child_subreaper(void) {
    return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0 ? 0 : -errno;
}

int ctrace_memfd(const char *name) {
    int fd = memfd_create(name, MFD_CLOEXEC);
    return fd < 0 ? -errno : fd;
}
