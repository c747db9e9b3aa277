#define _GNU_SOURCE
#include "CTrace.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
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

pid_t ctrace_spawn_gated(const char *path, char *const argv[], char *const envp[],
                         const ctrace_spawn_options *options, ctrace_gate *gate) {
    int report[2], go[2];
    if (pipe2(report, O_CLOEXEC) != 0) return -errno;
    if (pipe2(go, O_CLOEXEC) != 0) {
        int e = errno;
        close(report[0]);
        close(report[1]);
        return -e;
    }
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(report[0]);
        close(report[1]);
        close(go[0]);
        close(go[1]);
        return -e;
    }
    if (pid == 0) {
        // Child: only async-signal-safe calls from here to exec.
        setpgid(0, 0);
        // If the measurer dies, even by SIGKILL, the target dies too.
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, 0);
        if (options->cpu >= 0) pin(0, options->cpu);
        if (options->stdinFD >= 0) dup2(options->stdinFD, 0);
        if (options->stdoutFD >= 0) dup2(options->stdoutFD, 1);
        if (options->stderrFD >= 0) dup2(options->stderrFD, 2);
        if (options->traceme) ptrace(PTRACE_TRACEME, 0, 0, 0);
        close(go[1]);
        char byte;
        ssize_t got;
        do {
            got = read(go[0], &byte, 1);
        } while (got < 0 && errno == EINTR);
        if (got != 1) _exit(126);
        execve(path, argv, envp);
        int e = errno;
        ssize_t ignored = write(report[1], &e, sizeof e);
        (void)ignored;
        _exit(127);
    }
    close(report[1]);
    close(go[0]);
    setpgid(pid, pid);  // Also from the parent, so the group exists before anyone signals it.
    gate->goFD = go[1];
    gate->reportFD = report[0];
    return pid;
}

int ctrace_release(ctrace_gate *gate) {
    char byte = 1;
    ssize_t put;
    do {
        put = write(gate->goFD, &byte, 1);
    } while (put < 0 && errno == EINTR);
    close(gate->goFD);
    int childErrno = 0;
    ssize_t n;
    do {
        n = read(gate->reportFD, &childErrno, sizeof childErrno);
    } while (n < 0 && errno == EINTR);
    close(gate->reportFD);
    gate->goFD = gate->reportFD = -1;
    if (put != 1) return -EPIPE;
    return n == (ssize_t)sizeof childErrno ? -childErrno : 0;
}

pid_t ctrace_spawn(const char *path, char *const argv[], char *const envp[],
                   const ctrace_spawn_options *options) {
    ctrace_gate gate;
    pid_t pid = ctrace_spawn_gated(path, argv, envp, options, &gate);
    if (pid < 0) return pid;
    int result = ctrace_release(&gate);
    if (result < 0) {
        // exec failed: reap the child, which has exited with 127.
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        return result;
    }
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
