/* samples/common/selftime.h: self-timing helpers shared by the C and C++ samples.
 *
 * Built: header only, included by cxx-static-init, faults and pairs (see scripts/build-samples).
 * Shows: nothing by itself. It defines the self-timing protocol the samples follow:
 *   - cost of initializer NAME in ms = getenv("PREMAIN_SAMPLE_COST_<NAME>_MS") (decimal integer,
 *     0 allowed), else the compiled-in default;
 *   - the cost is a busy-wait on clock_gettime(CLOCK_MONOTONIC), so it is real CPU time;
 *   - when PREMAIN_SAMPLE_LOG names a file, one line is appended per initializer:
 *       "<id> <start_ns> <end_ns> <duration_ms>\n"
 *     CLOCK_MONOTONIC nanoseconds, duration = (end-start)/1e6 with exactly 3 decimals,
 *     written with one open(O_WRONLY|O_APPEND|O_CREAT)+write(2) per line (no stdio buffering);
 *   - main writes "main <ns> <ns> 0.000" (start == end) as its first statement.
 */
#ifndef PREMAIN_SAMPLE_SELFTIME_H
#define PREMAIN_SAMPLE_SELFTIME_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t premain_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Returns the cost in ms for NAME: PREMAIN_SAMPLE_COST_<NAME>_MS when set to a number, else def. */
static inline long premain_cost_ms(const char *name, long def)
{
    char var[128];
    snprintf(var, sizeof var, "PREMAIN_SAMPLE_COST_%s_MS", name);
    const char *v = getenv(var);
    if (v == NULL || *v == '\0')
        return def;
    char *end = NULL;
    long ms = strtol(v, &end, 10);
    return (end != NULL && *end == '\0' && ms >= 0) ? ms : def;
}

static inline void premain_busy_wait_ms(long ms)
{
    uint64_t until = premain_now_ns() + (uint64_t)ms * 1000000ull;
    while (premain_now_ns() < until) {
    }
}

/* Appends "<id> <start> <end> <ms>" to $PREMAIN_SAMPLE_LOG; does nothing when it is unset. */
static inline void premain_log(const char *id, uint64_t start, uint64_t end)
{
    const char *path = getenv("PREMAIN_SAMPLE_LOG");
    if (path == NULL || *path == '\0')
        return;
    uint64_t us = (end - start) / 1000u;
    char line[256];
    int n = snprintf(line, sizeof line, "%s %llu %llu %llu.%03llu\n", id,
                     (unsigned long long)start, (unsigned long long)end,
                     (unsigned long long)(us / 1000u), (unsigned long long)(us % 1000u));
    if (n <= 0 || (size_t)n >= sizeof line)
        return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    ssize_t ignored = write(fd, line, (size_t)n);
    (void)ignored;
    close(fd);
}

/* One self-timed initializer: busy-waits its configured cost and logs it under id. */
static inline void premain_timed_init(const char *id, const char *cost_name, long default_ms)
{
    uint64_t start = premain_now_ns();
    premain_busy_wait_ms(premain_cost_ms(cost_name, default_ms));
    premain_log(id, start, premain_now_ns());
}

/* The first statement of every sample main: logs "main <ns> <ns> 0.000". */
static inline void premain_log_main(void)
{
    uint64_t now = premain_now_ns();
    premain_log("main", now, now);
}

#endif
