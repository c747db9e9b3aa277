/* The spool rules and line encoding of docs/field-record.md, declared once for both writers:
 * the rtld-audit recorder (libpremain-record.so, raw system calls, no libc) and premain_mark()
 * (premain_mark.h, in the program, through libc).
 *
 * The includer first defines how to make five system calls, each returning a negative value
 * on failure and never touching errno of the program:
 *   PREMAIN_SYS_OPEN(path, flags, mode) -> descriptor
 *   PREMAIN_SYS_READ(fd, buffer, count) -> bytes read
 *   PREMAIN_SYS_WRITE(fd, buffer, count) -> bytes written
 *   PREMAIN_SYS_FSTAT(fd, struct stat *) -> 0
 *   PREMAIN_SYS_CLOSE(fd)
 * Nothing here allocates, locks or blocks; every buffer is bounded. */
#ifndef PREMAIN_SPOOL_H
#define PREMAIN_SPOOL_H

#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>

/* One line is one write(2) of at most PIPE_BUF bytes, so concurrent records never interleave. */
#define PREMAIN_LINE_MAX 4096
#define PREMAIN_PATH_MAX 4096
#define PREMAIN_DEFAULT_DIR "/var/tmp/premain-field"
#define PREMAIN_DEFAULT_MAX_BYTES ((uint64_t)64 << 20)
#define PREMAIN_DROPS_MAX_BYTES ((uint64_t)1 << 20)
#define PREMAIN_MARK_NAME_MAX 64
#define PREMAIN_OPEN_FLAGS (O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)

/* A line being built in a caller's buffer; `full` is set once something did not fit, and the
 * line is then never written (a cut record would be misread). */
typedef struct {
    char *bytes;
    uint32_t length;
    uint32_t capacity;
    int full;
} premain_line;

static inline void premain_put_bytes(premain_line *line, const char *bytes, uint32_t count) {
    if (line->full || count > line->capacity - line->length) {
        line->full = 1;
        return;
    }
    for (uint32_t i = 0; i < count; i++) line->bytes[line->length + i] = bytes[i];
    line->length += count;
}

static inline uint32_t premain_strlen(const char *text, uint32_t limit) {
    uint32_t n = 0;
    while (n < limit && text[n] != 0) n++;
    return n;
}

static inline void premain_put(premain_line *line, const char *text) {
    premain_put_bytes(line, text, premain_strlen(text, PREMAIN_LINE_MAX));
}

static inline void premain_put_u64(premain_line *line, uint64_t value) {
    char digits[20];
    uint32_t n = 0;
    do {
        digits[sizeof digits - 1 - n] = (char)('0' + value % 10);
        value /= 10;
        n++;
    } while (value != 0);
    premain_put_bytes(line, digits + sizeof digits - n, n);
}

/* 16 lowercase hex digits. */
static inline void premain_put_hex64(premain_line *line, uint64_t value) {
    char digits[16];
    for (int i = 15; i >= 0; i--) {
        digits[i] = "0123456789abcdef"[value & 15];
        value >>= 4;
    }
    premain_put_bytes(line, digits, 16);
}

/* Every byte <= 0x20, '%' and every byte >= 0x7F as %XX (uppercase); nothing else. */
static inline void premain_put_escaped(premain_line *line, const char *bytes, uint32_t count) {
    for (uint32_t i = 0; i < count && !line->full; i++) {
        unsigned char c = (unsigned char)bytes[i];
        if (c <= 0x20 || c == '%' || c >= 0x7F) {
            char escaped[3] = {'%', "0123456789ABCDEF"[c >> 4], "0123456789ABCDEF"[c & 15]};
            premain_put_bytes(line, escaped, 3);
        } else {
            premain_put_bytes(line, (const char *)&bytes[i], 1);
        }
    }
}

/* " key=" */
static inline void premain_put_key(premain_line *line, const char *key) {
    premain_put_bytes(line, " ", 1);
    premain_put(line, key);
    premain_put_bytes(line, "=", 1);
}

/* FNV-1a 64 of the bytes with leading and trailing whitespace trimmed. */
static inline uint64_t premain_fnv1a_trimmed(const char *bytes, uint32_t count) {
    uint32_t start = 0;
    while (start < count && (bytes[start] == ' ' || bytes[start] == '\n' || bytes[start] == '\t' ||
                             bytes[start] == '\r'))
        start++;
    while (count > start && (bytes[count - 1] == ' ' || bytes[count - 1] == '\n' ||
                             bytes[count - 1] == '\t' || bytes[count - 1] == '\r'))
        count--;
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (uint32_t i = start; i < count; i++) {
        hash ^= (unsigned char)bytes[i];
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

/* Reads at most `capacity` bytes of a small file with one read (the /proc and /etc files read
 * here are a few hundred bytes: one read returns them whole); returns the count, 0 when
 * unreadable. */
static inline uint32_t premain_read_small(const char *path, char *buffer, uint32_t capacity) {
    long fd = PREMAIN_SYS_OPEN(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
    if (fd < 0) return 0;
    long got = PREMAIN_SYS_READ((int)fd, buffer, capacity);
    PREMAIN_SYS_CLOSE((int)fd);
    return got > 0 ? (uint32_t)got : 0;
}

/* The boot's identity without reading a file: the wall-clock time the machine booted, in whole
 * seconds (CLOCK_REALTIME - CLOCK_BOOTTIME, rounded; both clocks move together except when the
 * wall clock is stepped), as FNV-1a 64 of its 8 bytes. The recorder and premain_mark compute
 * it alike, so a mark joins its launch; 0 when either clock is unreadable (0). */
static inline uint64_t premain_boot_hash(uint64_t realtime_ns, uint64_t boottime_ns) {
    if (realtime_ns == 0 || boottime_ns == 0 || realtime_ns < boottime_ns) return 0;
    uint64_t seconds = (realtime_ns - boottime_ns + 500000000ULL) / 1000000000ULL;
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (int i = 0; i < 8; i++) {
        hash ^= (seconds >> (8 * i)) & 0xff;
        hash *= 0x100000001b3ULL;
    }
    return hash;
}

/* The hash of a small identity file (/etc/machine-id, boot_id); 0 when unreadable. */
static inline uint64_t premain_hash_file(const char *path) {
    char buffer[128];
    uint32_t count = premain_read_small(path, buffer, sizeof buffer);
    return count == 0 ? 0 : premain_fnv1a_trimmed(buffer, count);
}

#define PREMAIN_MACHINE_ID_PATH "/etc/machine-id"

/* The host's hash from PREMAIN_FIELD_HOST's value: the 32 lowercase hex digits of
 * /etc/machine-id (systemd's %m), hashed as the file's text is. Returns 0 and leaves *hash alone
 * for anything else (the caller then reads the file). */
static inline int premain_host_hash_text(const char *text, uint32_t count, uint64_t *hash) {
    if (count != 32) return 0;
    for (uint32_t i = 0; i < count; i++)
        if (!((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f'))) return 0;
    *hash = premain_fnv1a_trimmed(text, count);
    return 1;
}

/* Opens DIR/<uid><suffix> by the spool's rules: a regular file owned by `uid`, else -1. Its
 * size goes to *size. */
static inline long premain_spool_open(const char *dir, uint32_t uid, const char *suffix,
                                      uint64_t *size) {
    char path[PREMAIN_PATH_MAX + 32];
    premain_line name = {path, 0, sizeof path - 1, 0};
    premain_put(&name, dir);
    premain_put_bytes(&name, "/", 1);
    premain_put_u64(&name, uid);
    premain_put(&name, suffix);
    if (name.full) return -1;
    path[name.length] = 0;
    long fd = PREMAIN_SYS_OPEN(path, PREMAIN_OPEN_FLAGS, 0600);
    if (fd < 0) return -1;
    struct stat status;
    if (PREMAIN_SYS_FSTAT((int)fd, &status) != 0 || !S_ISREG(status.st_mode) || status.st_uid != uid) {
        PREMAIN_SYS_CLOSE((int)fd);
        return -1;
    }
    *size = (uint64_t)status.st_size;
    return fd;
}

/* Counts one dropped record: one byte appended to DIR/<uid>.drops, below 1 MiB. */
static inline void premain_count_drop(const char *dir, uint32_t uid) {
    uint64_t size = 0;
    long fd = premain_spool_open(dir, uid, ".drops", &size);
    if (fd < 0) return;
    if (size < PREMAIN_DROPS_MAX_BYTES) (void)PREMAIN_SYS_WRITE((int)fd, "\n", 1);
    PREMAIN_SYS_CLOSE((int)fd);
}

/* Writes one whole line (ending in '\n', at most PREMAIN_LINE_MAX bytes) to an open
 * DIR/<uid>.records of `size` bytes with one write, or drops it; closes the descriptor. A spool
 * at its bound, a line that did not fit and a short or failed write are counted in
 * DIR/<uid>.drops. Returns 1 when written. */
static inline int premain_spool_finish(const char *dir, uint32_t uid, uint64_t max_bytes, long fd,
                                       uint64_t size, const premain_line *line) {
    int written = 0;
    if (!line->full && line->length > 0 && line->length <= PREMAIN_LINE_MAX && size < max_bytes)
        written = PREMAIN_SYS_WRITE((int)fd, line->bytes, line->length) == (long)line->length;
    PREMAIN_SYS_CLOSE((int)fd);
    if (!written) premain_count_drop(dir, uid);
    return written;
}

/* Opens DIR/<uid>.records, or counts the drop when the file is not the user's regular file (a
 * missing folder cannot be counted: the drops file would be in it). Returns -1 when dropped. */
static inline long premain_spool_begin(const char *dir, uint32_t uid, uint64_t *size) {
    long fd = premain_spool_open(dir, uid, ".records", size);
    if (fd < 0) premain_count_drop(dir, uid); /* fails as well when the folder is missing */
    return fd;
}

/* Parses a decimal of at most 19 digits; returns 0 on anything malformed (empty, sign, other
 * byte, too long) and leaves *value alone. */
static inline int premain_parse_u64(const char *text, uint32_t count, uint64_t *value) {
    if (count == 0 || count > 19) return 0;
    uint64_t result = 0;
    for (uint32_t i = 0; i < count; i++) {
        if (text[i] < '0' || text[i] > '9') return 0;
        result = result * 10 + (uint64_t)(text[i] - '0');
    }
    *value = result;
    return 1;
}

#endif
