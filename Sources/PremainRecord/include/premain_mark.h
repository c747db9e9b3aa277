/* premain_mark(NAME): marks the moment a program is ready (its own end of start-up, the analogue
 * of Android's reportFullyDrawn) in the launch record of libpremain-record.so. Header-only:
 * include it and call premain_mark("ready") once, after main has started.
 *
 * It writes one `kind=mark` record (docs/field-record.md) to the spool the recorder uses, but
 * only when the recorder is active in this process (LD_AUDIT names libpremain-record); it is a
 * no-op otherwise. It never blocks (O_NONBLOCK, no lock), never fails the program (every error
 * drops the mark; a drop that can be counted is counted in DIR/<uid>.drops), touches only a
 * descriptor it opens and closes itself, and leaves errno as it found it. Thread-safe: it keeps
 * no state. */
#ifndef PREMAIN_MARK_H
#define PREMAIN_MARK_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef PREMAIN_SYS_OPEN
#define PREMAIN_SYS_OPEN(path, flags, mode) ((long)open((path), (flags), (mode)))
#define PREMAIN_SYS_READ(fd, buffer, count) ((long)read((fd), (buffer), (count)))
#define PREMAIN_SYS_WRITE(fd, buffer, count) ((long)write((fd), (buffer), (count)))
#define PREMAIN_SYS_FSTAT(fd, status) (fstat((fd), (status)))
#define PREMAIN_SYS_CLOSE(fd) ((void)close(fd))
#endif
#include "premain_spool.h"

/* Writes a `kind=mark` record named `name` (at most 64 bytes are kept) when the recorder is
 * active; does nothing otherwise, and nothing when `name` is NULL. */
static inline void premain_mark(const char *name) {
    const char *audit = getenv("LD_AUDIT");
    if (name == NULL || audit == NULL || strstr(audit, "premain-record") == NULL) return;
    int saved_errno = errno;
    struct timespec now = {0, 0};
    if (clock_gettime(CLOCK_MONOTONIC, &now) == 0) {
        const char *dir = getenv("PREMAIN_FIELD_DIR");
        if (dir == NULL || dir[0] == 0) dir = PREMAIN_DEFAULT_DIR;
        uint64_t max_bytes = PREMAIN_DEFAULT_MAX_BYTES;
        const char *max_text = getenv("PREMAIN_FIELD_MAX_BYTES");
        if (max_text != NULL)
            (void)premain_parse_u64(max_text, premain_strlen(max_text, 32), &max_bytes);
        char bytes[512];
        premain_line line = {bytes, 0, sizeof bytes, 0};
        premain_put(&line, "premain-record/1 kind=mark");
        premain_put_key(&line, "pid");
        premain_put_u64(&line, (uint64_t)getpid());
        premain_put_key(&line, "boot");
        struct timespec realtime = {0, 0}, boottime = {0, 0};
        (void)clock_gettime(CLOCK_REALTIME, &realtime);
        (void)clock_gettime(CLOCK_BOOTTIME, &boottime);
        premain_put_hex64(&line, premain_boot_hash(
                                     (uint64_t)realtime.tv_sec * 1000000000ULL + (uint64_t)realtime.tv_nsec,
                                     (uint64_t)boottime.tv_sec * 1000000000ULL + (uint64_t)boottime.tv_nsec));
        premain_put_key(&line, "t");
        premain_put_u64(&line, (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec);
        premain_put_key(&line, "name");
        premain_put_escaped(&line, name, premain_strlen(name, PREMAIN_MARK_NAME_MAX));
        premain_put_bytes(&line, "\n", 1);
        uint32_t uid = (uint32_t)getuid();
        uint64_t size = 0;
        long fd = premain_spool_begin(dir, uid, &size);
        if (fd >= 0) (void)premain_spool_finish(dir, uid, max_bytes, fd, size, &line);
    }
    errno = saved_errno;
}

#endif
