/* recorder-driver ROUNDS PROGRAM EMPTY_AUDITOR RECORDER SPOOL: scripts/bench-recorder's driver.
 *
 * Each round launches PROGRAM five ways, plain (no LD_AUDIT), under EMPTY_AUDITOR, under
 * RECORDER (PREMAIN_FIELD_DIR=SPOOL), under RECORDER with PREMAIN_FIELD_HOST (the machine ID, as
 * `premain field env` sets it up: no file to read), and with PREMAIN_T0 stamped just before the
 * spawn too (as `premain field run` does: no birth estimate to make), in an order rotated each round; each
 * launch is timed from
 * before posix_spawn to waitpid's return. Prints the median of the paired differences against
 * plain with a distribution-free 95 % interval, and the bytes the program wrote to its stdout
 * and stderr in each way. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define WAYS 5

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int compare(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

/* Launches `program` with `envp`, its stdout and stderr appended to `out`; returns the
 * nanoseconds from before the spawn to waitpid's return, or -1. */
static long long launch(const char *program, char **envp, int out) {
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out, 1);
    posix_spawn_file_actions_adddup2(&actions, out, 2);
    char *argv[] = {(char *)program, NULL};
    long long start = now_ns();
    pid_t pid;
    if (posix_spawn(&pid, program, &actions, NULL, argv, envp) != 0) return -1;
    int status;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) return -1;
    long long elapsed = now_ns() - start;
    posix_spawn_file_actions_destroy(&actions);
    return elapsed;
}

/* The environment without any LD_AUDIT, plus `extra` (NULL-terminated). */
static char **environment(char **extra) {
    size_t n = 0, k = 0;
    while (environ[n]) n++;
    char **envp = calloc(n + 8, sizeof *envp);
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "LD_AUDIT=", 9) != 0 && strncmp(environ[i], "PREMAIN_", 8) != 0) envp[k++] = environ[i];
    for (size_t i = 0; extra && extra[i]; i++) envp[k++] = extra[i];
    envp[k] = NULL;
    return envp;
}

static void summary(const char *name, long long *d, int n) {
    qsort(d, n, sizeof *d, compare);
    /* Ranks of a 95 % interval for the median: n/2 -/+ 1.96 sqrt(n)/2. */
    double half = 1.96 * 0.5 * sqrt((double)n);
    int lo = (int)(n / 2.0 - half), hi = (int)(n / 2.0 + half + 1);
    if (lo < 0) lo = 0;
    if (hi > n - 1) hi = n - 1;
    printf("| %s | %.1f | %.1f … %.1f |\n", name, d[n / 2] / 1000.0, d[lo] / 1000.0, d[hi] / 1000.0);
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: recorder-driver ROUNDS PROGRAM EMPTY_AUDITOR RECORDER SPOOL\n");
        return 64;
    }
    int rounds = atoi(argv[1]);
    const char *program = argv[2];
    char empty[4200], recorder[4200], spool[4200];
    snprintf(empty, sizeof empty, "LD_AUDIT=%s", argv[3]);
    snprintf(recorder, sizeof recorder, "LD_AUDIT=%s", argv[4]);
    snprintf(spool, sizeof spool, "PREMAIN_FIELD_DIR=%s", argv[5]);
    static char stamp[64] = "PREMAIN_T0=0";
    /* The machine ID as `premain field env` and `field run` pass it (PREMAIN_FIELD_HOST). */
    char host[64] = "PREMAIN_FIELD_HOST=";
    FILE *id = fopen("/etc/machine-id", "r");
    if (id != NULL) {
        if (fgets(host + 19, 40, id) != NULL) host[strcspn(host, "\n")] = 0;
        fclose(id);
    }
    char *empty_extra[] = {empty, NULL}, *recorder_extra[] = {recorder, spool, NULL};
    char *hosted_extra[] = {recorder, spool, host, NULL};
    char *stamped_extra[] = {recorder, spool, host, stamp, NULL};
    char **envs[WAYS] = {environment(NULL), environment(empty_extra), environment(recorder_extra),
                         environment(hosted_extra), environment(stamped_extra)};
    const char *names[WAYS] = {"plain", "empty", "recorder", "hosted", "stamped"};
    int outs[WAYS];
    for (int w = 0; w < WAYS; w++) {
        char path[4300];
        snprintf(path, sizeof path, "%s/../out-%s", argv[5], names[w]);
        outs[w] = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0600);
        if (outs[w] < 0) { perror(path); return 70; }
    }
    long long *times[WAYS];
    for (int w = 0; w < WAYS; w++) times[w] = calloc(rounds, sizeof(long long));
    for (int w = 0; w < WAYS; w++) /* warm-up */
        for (int i = 0; i < 20; i++) launch(program, envs[w], outs[w]);
    for (int w = 0; w < WAYS; w++)
        if (ftruncate(outs[w], 0) != 0) return 70;
    for (int r = 0; r < rounds; r++) {
        for (int j = 0; j < WAYS; j++) {
            int w = (r + j) % WAYS;
            snprintf(stamp, sizeof stamp, "PREMAIN_T0=%lld", now_ns());
            long long t = launch(program, envs[w], outs[w]);
            if (t < 0) { fprintf(stderr, "recorder-driver: %s launch %d failed\n", names[w], r); return 70; }
            times[w][r] = t;
        }
    }
    long long *diff[WAYS];
    for (int w = 1; w < WAYS; w++) {
        diff[w] = calloc(rounds, sizeof(long long));
        for (int r = 0; r < rounds; r++) diff[w][r] = times[w][r] - times[0][r];
    }
    printf("| per launch, %d paired rounds | median µs | 95 %% interval µs |\n|---|---|---|\n", rounds);
    summary("plain launch (exec to exit)", times[0], rounds);
    summary("empty auditor - plain", diff[1], rounds);
    summary("recorder - plain", diff[2], rounds);
    summary("recorder, PREMAIN_FIELD_HOST set (field env) - plain", diff[3], rounds);
    summary("recorder, PREMAIN_FIELD_HOST and PREMAIN_T0 set (field run) - plain", diff[4], rounds);
    struct stat st[WAYS];
    for (int w = 0; w < WAYS; w++) fstat(outs[w], &st[w]);
    printf("\nbytes the program wrote to stdout+stderr: plain %lld, empty auditor %lld, recorder %lld, "
           "with PREMAIN_FIELD_HOST %lld, with PREMAIN_FIELD_HOST and PREMAIN_T0 %lld (recorder - plain: %lld)\n",
           (long long)st[0].st_size, (long long)st[1].st_size, (long long)st[2].st_size, (long long)st[3].st_size,
           (long long)st[4].st_size, (long long)(st[2].st_size + st[3].st_size + st[4].st_size - 3 * st[0].st_size));
    return 0;
}
