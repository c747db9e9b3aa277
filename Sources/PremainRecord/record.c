/* libpremain-record.so: the always-on launch recorder (issue 33), loaded by the dynamic loader
 * through rtld-audit (LD_AUDIT). docs/recorder.md says how it works; docs/field-record.md is the
 * record it writes.
 *
 * Built without libc (-nostdlib -ffreestanding): a libc-linked auditor makes ld.so load a second
 * libc into the audit namespace (+196 us per launch). System calls are made directly, the clock
 * is read through the vDSO. Only la_version, la_objopen, la_activity and la_preinit are defined:
 * la_pltenter/la_pltexit would switch every PLT call to the profiling trampoline, and la_objopen
 * returns 0 so that no symbol binding is audited.
 *
 * Never harms the program: it touches only descriptors it opened and closes them before a hook
 * returns, opens with O_NONBLOCK, checks every system call, keeps every buffer bounded, leaves
 * errno alone (it has none), and writes one record with one O_APPEND write. */
#define _GNU_SOURCE 1 /* link.h's audit interface */
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))

/* --- raw system calls --------------------------------------------------------------------- */

#if defined(__x86_64__)
static long sys4(long n, long a, long b, long c, long d) {
    register long r10 __asm__("r10") = d;
    long result;
    __asm__ volatile("syscall"
                     : "=a"(result)
                     : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
                     : "rcx", "r11", "memory");
    return result;
}
#define VDSO_CLOCK_GETTIME "__vdso_clock_gettime"
#elif defined(__aarch64__)
static long sys4(long n, long a, long b, long c, long d) {
    register long x8 __asm__("x8") = n;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    return x0;
}
#define VDSO_CLOCK_GETTIME "__kernel_clock_gettime"
#else
#error "libpremain-record: x86_64 and aarch64 only"
#endif

#define AT_FDCWD_ (-100)

static long sys_open(const char *path, int flags, int mode) {
    return sys4(SYS_openat, AT_FDCWD_, (long)path, flags, mode);
}
static long sys_read(int fd, void *buffer, uint32_t count) {
    return sys4(SYS_read, fd, (long)buffer, count, 0);
}
static long sys_write(int fd, const void *buffer, uint32_t count) {
    return sys4(SYS_write, fd, (long)buffer, count, 0);
}
static long sys_fstat(int fd, struct stat *status) { return sys4(SYS_fstat, fd, (long)status, 0, 0); }
static void sys_close(int fd) { (void)sys4(SYS_close, fd, 0, 0, 0); }

#define PREMAIN_SYS_OPEN sys_open
#define PREMAIN_SYS_READ sys_read
#define PREMAIN_SYS_WRITE sys_write
#define PREMAIN_SYS_FSTAT sys_fstat
#define PREMAIN_SYS_CLOSE sys_close
#include "include/premain_spool.h"

/* The compiler may emit calls to these for copies and zeroing; there is no libc to provide them. */
__attribute__((visibility("hidden"))) void *memcpy(void *to, const void *from, unsigned long n) {
    char *d = to;
    const char *s = from;
    while (n--) *d++ = *s++;
    return to;
}
__attribute__((visibility("hidden"))) void *memset(void *to, int byte, unsigned long n) {
    char *d = to;
    while (n--) *d++ = (char)byte;
    return to;
}

/* --- the clock ------------------------------------------------------------------------------ */

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);
static clock_gettime_fn vdso_clock_gettime;

/* A clock in nanoseconds through the vDSO (a system call when it has none); 0 when unreadable. */
static uint64_t clock_ns(clockid_t clock) {
    struct timespec ts = {0, 0};
    if (vdso_clock_gettime == 0 || vdso_clock_gettime(clock, &ts) != 0) {
        if (sys4(SYS_clock_gettime, clock, (long)&ts, 0, 0) != 0) return 0;
    }
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static uint64_t now(void) { return clock_ns(CLOCK_MONOTONIC); }

static int same_string(const char *a, const char *b) {
    while (*a && *a == *b) a++, b++;
    return *a == *b;
}

/* --- symbols of objects already in memory (the vDSO, ld.so) ------------------------------- */

/* A dynamic-section address: ld.so relocates the entries of writable dynamic sections in place
 * (absolute, at or above the bias); read-only ones (the vDSO's) keep their link-time value. */
static uintptr_t dynamic_address(uintptr_t bias, ElfW(Addr) value) {
    return value < bias ? bias + value : value;
}

/* The defined symbol `name` of an object (its bias and dynamic section), through DT_GNU_HASH,
 * else DT_HASH; 0 when absent. Symbol versions are not looked at (the symbols looked up here
 * have one). */
static const ElfW(Sym) *find_symbol(uintptr_t bias, const ElfW(Dyn) *dynamic, const char *name) {
    const ElfW(Sym) *symbols = 0;
    const char *strings = 0;
    const uint32_t *gnu_hash = 0;
    const ElfW(Word) *hash = 0;
    for (int i = 0; dynamic[i].d_tag != DT_NULL && i < 256; i++) {
        uintptr_t at = dynamic_address(bias, dynamic[i].d_un.d_ptr);
        switch (dynamic[i].d_tag) {
        case DT_SYMTAB: symbols = (const ElfW(Sym) *)at; break;
        case DT_STRTAB: strings = (const char *)at; break;
        case DT_GNU_HASH: gnu_hash = (const uint32_t *)at; break;
        case DT_HASH: hash = (const ElfW(Word) *)at; break;
        }
    }
    if (symbols == 0 || strings == 0) return 0;
    if (gnu_hash != 0) {
        uint32_t h = 5381;
        for (const unsigned char *c = (const unsigned char *)name; *c; c++) h = h * 33 + *c;
        uint32_t buckets_count = gnu_hash[0], first = gnu_hash[1], bloom_words = gnu_hash[2];
        if (buckets_count == 0) return 0;
        const uint32_t *buckets = (const uint32_t *)((const ElfW(Addr) *)(gnu_hash + 4) + bloom_words);
        const uint32_t *chain = buckets + buckets_count;
        uint32_t index = buckets[h % buckets_count];
        if (index < first) return 0;
        for (uint32_t steps = 0; steps < 65536; steps++, index++) {
            uint32_t value = chain[index - first];
            const ElfW(Sym) *symbol = &symbols[index];
            if ((value | 1) == (h | 1) && symbol->st_shndx != SHN_UNDEF &&
                same_string(strings + symbol->st_name, name))
                return symbol;
            if (value & 1) break;
        }
        return 0;
    }
    if (hash == 0) return 0;
    for (ElfW(Word) i = 0; i < hash[1] && i < 65536; i++) /* nchain: one per symbol */
        if (symbols[i].st_shndx != SHN_UNDEF && same_string(strings + symbols[i].st_name, name))
            return &symbols[i];
    return 0;
}

/* Points the clock at the vDSO's clock_gettime; leaves the raw system call in place when
 * anything is missing. */
static void find_vdso_clock(uintptr_t base) {
    if (base == 0) return;
    const ElfW(Ehdr) *header = (const ElfW(Ehdr) *)base;
    if (header->e_ident[EI_MAG0] != ELFMAG0 || header->e_ident[EI_MAG1] != ELFMAG1 ||
        header->e_phentsize != sizeof(ElfW(Phdr)))
        return;
    const ElfW(Phdr) *phdrs = (const ElfW(Phdr) *)(base + header->e_phoff);
    uintptr_t bias = 0;
    const ElfW(Dyn) *dynamic = 0;
    int have_load = 0;
    for (int i = 0; i < header->e_phnum; i++) {
        if (phdrs[i].p_type == PT_LOAD && !have_load) {
            bias = base + phdrs[i].p_offset - phdrs[i].p_vaddr;
            have_load = 1;
        } else if (phdrs[i].p_type == PT_DYNAMIC) {
            dynamic = (const ElfW(Dyn) *)(base + phdrs[i].p_offset);
        }
    }
    if (!have_load || dynamic == 0) return;
    const ElfW(Sym) *symbol = find_symbol(bias, dynamic, VDSO_CLOCK_GETTIME);
    if (symbol != 0 && ELF64_ST_TYPE(symbol->st_info) == STT_FUNC)
        vdso_clock_gettime = (clock_gettime_fn)(bias + symbol->st_value);
}

/* --- what the hooks collect --------------------------------------------------------------- */

/* Objects whose mapping time is kept: a record holds at most 4096 bytes, about 80 of them
 * (" o=TIME,PATH" each); the rest are counted (objects=) and said omitted. Small, so the state the
 * hooks write fits in one page (each page the recorder touches is a page fault of 1-3 us). */
#define OBJECTS_MAX 96
#define ARG_MAX_KEPT 256

static struct {
    int setup;    /* the process's inputs were read (from memory, else from /proc) */
    int ready;    /* ... and nothing forbids recording */
    int done;     /* la_preinit ran: later hooks (dlopen after main) record nothing */
    uint64_t version, consistent, t0;
    const char *t0src;
    int env0;
    long pid;
    uintptr_t phdr, phnum, main_bias;
    const char *execfn; /* AT_EXECFN: the path execve was given */
    int have_main_bias;
    uint32_t objects;
    uint64_t object_time[OBJECTS_MAX];
    const char *object_name[OBJECTS_MAX];
    const char *dir; /* the spool folder, NUL-terminated: in the environment's own memory */
    uint64_t max_bytes;
    uint32_t args; /* arguments kept (at most 2), in argv's own memory */
    uint32_t arg_length[2];
    const char *arg[2];
    int have_host; /* PREMAIN_FIELD_HOST gave the machine ID: /etc/machine-id is not read */
    uint64_t host;
} state;

/* Copies of the spool folder and the arguments when they were read from /proc (a buffer that is
 * reused); from the initial stack the record points at the strings themselves, so a launch
 * touches no page for them. */
static char dir_copy[PREMAIN_PATH_MAX + 1];
static char arg_copy[2][ARG_MAX_KEPT];

static int has_prefix(const char *text, uint32_t length, const char *prefix, uint32_t *skip) {
    uint32_t n = premain_strlen(prefix, 64);
    if (length < n) return 0;
    for (uint32_t i = 0; i < n; i++)
        if (text[i] != prefix[i]) return 0;
    *skip = n;
    return 1;
}

struct environment {
    int have_t0;
    char t0[64];
    uint32_t t0_length;
};

/* One environment entry; `stable` when `text` is the process's own NUL-terminated string. */
static void environment_entry(const char *text, uint32_t length, int cut, struct environment *env, int stable) {
    uint32_t skip;
    if (has_prefix(text, length, "PREMAIN_FIELD_DIR=", &skip)) {
        if (cut || length - skip == 0 || length - skip > PREMAIN_PATH_MAX) return;
        if (stable) {
            state.dir = text + skip;
            return;
        }
        for (uint32_t i = skip; i < length; i++) dir_copy[i - skip] = text[i];
        dir_copy[length - skip] = 0;
        state.dir = dir_copy;
    } else if (has_prefix(text, length, "PREMAIN_FIELD_MAX_BYTES=", &skip)) {
        uint64_t value;
        if (!cut && premain_parse_u64(text + skip, length - skip, &value)) state.max_bytes = value;
    } else if (has_prefix(text, length, "PREMAIN_FIELD_HOST=", &skip)) {
        state.have_host = !cut && premain_host_hash_text(text + skip, length - skip, &state.host);
    } else if (has_prefix(text, length, "PREMAIN_T0=", &skip)) {
        env->have_t0 = 1;
        env->t0_length = 0;
        if (cut || length - skip >= sizeof env->t0) {
            env->t0_length = UINT32_MAX; /* malformed */
            return;
        }
        for (uint32_t i = skip; i < length; i++) env->t0[i - skip] = text[i];
        env->t0_length = length - skip;
    }
}

static void argument_entry(const char *text, uint32_t length, int stable) {
    if (state.args >= 2) return;
    uint32_t kept = length < ARG_MAX_KEPT ? length : ARG_MAX_KEPT;
    if (stable) {
        state.arg[state.args] = text;
    } else {
        for (uint32_t i = 0; i < kept; i++) arg_copy[state.args][i] = text[i];
        state.arg[state.args] = arg_copy[state.args];
    }
    state.arg_length[state.args++] = kept;
}

/* PREMAIN_T0 is NS or NS:PID; with :PID only in that process, without it only when earlier than
 * la_version by less than 60 s. Returns 1 and sets state.t0 when accepted. */
static int accept_t0(const struct environment *env) {
    if (env->t0_length == UINT32_MAX) return 0;
    uint32_t colon = 0;
    while (colon < env->t0_length && env->t0[colon] != ':') colon++;
    uint64_t t0;
    if (!premain_parse_u64(env->t0, colon, &t0)) return 0;
    if (t0 > state.version) return 0;
    if (colon < env->t0_length) {
        uint64_t pid;
        if (!premain_parse_u64(env->t0 + colon + 1, env->t0_length - colon - 1, &pid)) return 0;
        if ((long)pid != state.pid) return 0;
    } else if (state.version - t0 >= 60ULL * 1000000000ULL) {
        return 0;
    }
    state.t0 = t0;
    return 1;
}

/* The time this thread has existed for the scheduler: its CPU time (CLOCK_THREAD_CPUTIME_ID,
 * current to the moment) plus the wait of /proc/self/schedstat ("run wait slices"); 0 when
 * unreadable. schedstat's own run time is not used: the kernel adds the running slice to it
 * only at scheduler events, so a process that has run since its fork without one reads 0. */
static uint64_t scheduled_time(void) {
    char text[128];
    uint32_t count = premain_read_small("/proc/self/schedstat", text, sizeof text - 1);
    uint32_t i = 0;
    while (i < count && text[i] >= '0' && text[i] <= '9') i++; /* run, not used */
    while (i < count && text[i] == ' ') i++;
    uint32_t start = i;
    while (i < count && text[i] >= '0' && text[i] <= '9') i++;
    uint64_t wait;
    if (!premain_parse_u64(text + start, i - start, &wait)) return 0;
    struct timespec cpu = {0, 0};
    if (sys4(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, (long)&cpu, 0, 0) != 0) return 0;
    return wait + (uint64_t)cpu.tv_sec * 1000000000ULL + (uint64_t)cpu.tv_nsec;
}

/* One entry of the auxiliary vector. Returns 0 when it says the process is in secure mode. */
static int auxv_entry(const ElfW(auxv_t) *entry) {
    switch (entry->a_type) {
    case AT_SYSINFO_EHDR: find_vdso_clock(entry->a_un.a_val); break;
    case AT_PHDR: state.phdr = entry->a_un.a_val; break;
    case AT_PHNUM: state.phnum = entry->a_un.a_val; break;
    case AT_EXECFN: state.execfn = (const char *)entry->a_un.a_val; break;
    case AT_SECURE: return entry->a_un.a_val == 0;
    }
    return 1;
}

/* The process's inputs from the initial stack ld.so exports as __libc_stack_end (argc, argv,
 * envp, the auxiliary vector): no system call. Returns 0 when the layout does not check out. */
static int read_stack(uintptr_t stack_end, struct environment *env, int *secure) {
    const long *top = (const long *)stack_end;
    long argc = top[0];
    if (argc < 0 || argc > (1 << 20)) return 0;
    char *const *argv = (char *const *)(top + 1);
    if (argv[argc] != 0) return 0;
    char *const *envp = argv + argc + 1;
    uint32_t count = 0;
    while (envp[count] != 0)
        if (++count > (1 << 20)) return 0;
    const ElfW(auxv_t) *auxv = (const ElfW(auxv_t) *)(envp + count + 1);
    for (long i = 0; i < argc && i < 2; i++) argument_entry(argv[i], premain_strlen(argv[i], ARG_MAX_KEPT), 1);
    for (uint32_t i = 0; i < count; i++) {
        const char *entry = envp[i];
        if (entry[0] != 'P' || entry[1] != 'R') continue; /* PREMAIN_... only */
        uint32_t length = premain_strlen(entry, PREMAIN_PATH_MAX + 64);
        environment_entry(entry, length, length == PREMAIN_PATH_MAX + 64, env, 1);
    }
    for (int i = 0; auxv[i].a_type != AT_NULL && i < 256; i++)
        if (!auxv_entry(&auxv[i])) *secure = 1;
    return 1;
}

/* The same inputs from /proc/self (auxv, environ, cmdline) when ld.so exports no stack end. */
static char entry_buffer[PREMAIN_PATH_MAX + 64];
static char read_buffer[4096];

/* Calls `each` for every NUL-terminated entry of a /proc file (environ, cmdline), read in
 * pieces; an entry longer than the buffer is passed cut. Returns 0 when unreadable. */
static int each_entry(const char *path, struct environment *env) {
    long fd = sys_open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK, 0);
    if (fd < 0) return 0;
    uint32_t length = 0;
    int cut = 0;
    for (;;) {
        long got = sys_read((int)fd, read_buffer, sizeof read_buffer);
        if (got <= 0) break;
        for (long i = 0; i <= got; i++) {
            if (i < got && read_buffer[i] != 0) {
                if (length < sizeof entry_buffer) entry_buffer[length++] = read_buffer[i];
                else cut = 1;
                continue;
            }
            if (i == got) break;
            if (env != 0) environment_entry(entry_buffer, length, cut, env, 0);
            else argument_entry(entry_buffer, length, 0);
            length = 0;
            cut = 0;
        }
    }
    sys_close((int)fd);
    return 1;
}

static int read_proc(struct environment *env, int *secure) {
    ElfW(auxv_t) vector[64];
    uint32_t count = premain_read_small("/proc/self/auxv", (char *)vector, sizeof vector);
    if (count == 0) return 0;
    for (uint32_t i = 0; i < count / sizeof vector[0] && vector[i].a_type != AT_NULL; i++)
        if (!auxv_entry(&vector[i])) *secure = 1;
    return each_entry("/proc/self/environ", env) && each_entry("/proc/self/cmdline", 0);
}

/* Reads the process's inputs once, from the stack when `stack_end` is known, else from /proc,
 * and decides whether to record and which birth clock to use. */
static void setup(uintptr_t stack_end) {
    state.setup = 1;
    state.max_bytes = PREMAIN_DEFAULT_MAX_BYTES;
    struct environment env = {0, {0}, 0};
    int secure = 0;
    if (!(stack_end != 0 ? read_stack(stack_end, &env, &secure) : read_proc(&env, &secure)) || secure) return;
    if (state.dir == 0) state.dir = PREMAIN_DEFAULT_DIR;
    if (env.have_t0 && accept_t0(&env)) {
        state.t0src = "env";
    } else {
        state.env0 = env.have_t0;
        uint64_t scheduled = scheduled_time();
        uint64_t sampled = now();
        if (scheduled != 0 && scheduled < sampled) {
            /* Never later than la_version (it was sampled after it). */
            state.t0 = sampled - scheduled < state.version ? sampled - scheduled : state.version;
            state.t0src = "schedstat";
        } else {
            state.t0src = "none";
        }
    }
    state.ready = 1;
}

/* --- the hooks --------------------------------------------------------------------------------- */

EXPORT unsigned int la_version(unsigned int version) {
    /* Written before any read: a first read of a zero page maps the shared zero page and the
     * first write then faults a second time. */
    state.setup = 0;
    /* The version glibc passes is the highest it supports; answer it when it is older than ours,
     * else ours (glibc ignores an auditor that answers 0 or a higher version). */
    unsigned int answer = version < LAV_CURRENT ? version : LAV_CURRENT;
    state.version = now();
    state.pid = sys4(SYS_getpid, 0, 0, 0, 0);
    return answer;
}

EXPORT unsigned int la_objopen(struct link_map *map, Lmid_t lmid, uintptr_t *cookie) {
    (void)lmid;
    (void)cookie;
    if (state.done) return 0;
    uint64_t t = now();
    if (state.objects == 0) {
        state.main_bias = map->l_addr;
        state.have_main_bias = 1;
    }
    if (state.objects < OBJECTS_MAX) {
        state.object_time[state.objects] = t;
        state.object_name[state.objects] = map->l_name;
    }
    state.objects++;
    /* ld.so (the second object) exports the initial stack: the inputs are read from memory. */
    if (!state.setup && state.objects >= 2 && map->l_ld != 0) {
        const ElfW(Sym) *end = find_symbol(map->l_addr, map->l_ld, "__libc_stack_end");
        if (end != 0 && ELF64_ST_TYPE(end->st_info) == STT_OBJECT) {
            uintptr_t stack_end = *(const uintptr_t *)(map->l_addr + end->st_value);
            if (stack_end != 0) setup(stack_end);
        }
    }
    return 0; /* no LA_FLG_BINDTO / LA_FLG_BINDFROM: no symbol binding is audited */
}

EXPORT void la_activity(uintptr_t *cookie, unsigned int flag) {
    (void)cookie;
    if (state.done || flag != LA_ACT_CONSISTENT || state.consistent != 0) return;
    state.consistent = now();
    if (!state.setup) setup(0);
}

/* --- the record, at main ------------------------------------------------------------------ */


static void put_build_id(premain_line *line) {
    if (state.phdr == 0 || state.phnum == 0 || state.phnum > 256) return;
    const ElfW(Phdr) *phdrs = (const ElfW(Phdr) *)state.phdr;
    uintptr_t bias = state.main_bias;
    int have_bias = state.have_main_bias;
    for (uintptr_t i = 0; i < state.phnum; i++)
        if (phdrs[i].p_type == PT_PHDR) {
            bias = state.phdr - phdrs[i].p_vaddr;
            have_bias = 1;
        }
    if (!have_bias) return;
    for (uintptr_t i = 0; i < state.phnum; i++) {
        if (phdrs[i].p_type != PT_NOTE) continue;
        uintptr_t align = phdrs[i].p_align == 8 ? 8 : 4;
        const unsigned char *note = (const unsigned char *)(bias + phdrs[i].p_vaddr);
        uintptr_t size = phdrs[i].p_memsz, at = 0;
        while (size - at >= sizeof(ElfW(Nhdr))) {
            const ElfW(Nhdr) *header = (const ElfW(Nhdr) *)(note + at);
            uintptr_t name_at = at + sizeof(ElfW(Nhdr));
            uintptr_t desc_at = (name_at + header->n_namesz + align - 1) & ~(align - 1);
            uintptr_t next = (desc_at + header->n_descsz + align - 1) & ~(align - 1);
            if (header->n_namesz > size || header->n_descsz > size || next > size) break;
            if (header->n_type == NT_GNU_BUILD_ID && header->n_namesz == 4 &&
                same_string((const char *)note + name_at, "GNU") && header->n_descsz <= 64 &&
                header->n_descsz > 0) {
                premain_put_key(line, "buildid");
                for (uint32_t b = 0; b < header->n_descsz; b++) {
                    unsigned char c = note[desc_at + b];
                    char hex[2] = {"0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15]};
                    premain_put_bytes(line, hex, 2);
                }
                return;
            }
            at = next;
        }
    }
}

/* `exe=`: the path execve was given (AT_EXECFN), made absolute with the working folder when it
 * is relative (no /proc access: the first one of a new process costs about 10 us); a script
 * is named as it was run, not as its interpreter. /proc/self/exe when there is no AT_EXECFN. */

static void put_executable(premain_line *line) {
    char exe_buffer[PREMAIN_PATH_MAX]; /* touched only for a relative path or without AT_EXECFN */
    premain_put_key(line, "exe");
    const char *given = state.execfn;
    uint32_t length = given ? premain_strlen(given, PREMAIN_PATH_MAX) : 0;
    if (length > 0 && given[0] == '/') {
        premain_put_escaped(line, given, length);
        return;
    }
    if (length > 0) {
        long folder = sys4(SYS_getcwd, (long)exe_buffer, sizeof exe_buffer, 0, 0);
        if (folder > 1 && exe_buffer[0] == '/') {
            uint32_t at = 0;
            while (at + 1 < length && given[at] == '.' && given[at + 1] == '/') at += 2;
            /* getcwd's length counts the NUL; "/" alone needs no second slash. */
            premain_put_escaped(line, exe_buffer, (uint32_t)folder - 1);
            if (folder > 2) premain_put_bytes(line, "/", 1);
            premain_put_escaped(line, given + at, length - at);
            return;
        }
    }
    long exe_length = sys4(SYS_readlinkat, AT_FDCWD_, (long)"/proc/self/exe", (long)exe_buffer, sizeof exe_buffer);
    if (exe_length > 0) premain_put_escaped(line, exe_buffer, (uint32_t)exe_length);
}

EXPORT void la_preinit(uintptr_t *cookie) {
    (void)cookie;
    if (state.done) return;
    uint64_t main_time = now();
    if (!state.setup) setup(0);
    state.done = 1;
    if (!state.ready) return;
    uint32_t uid = (uint32_t)sys4(SYS_getuid, 0, 0, 0, 0);
    /* The spool first: a missing folder or a full spool costs no more work. */
    uint64_t size = 0;
    long fd = premain_spool_begin(state.dir, uid, &size);
    if (fd < 0) return;
    if (size >= state.max_bytes) {
        sys_close((int)fd);
        premain_count_drop(state.dir, uid);
        return;
    }
    /* On the stack, whose pages the process has already touched: a buffer in .bss costs a page
     * fault or two (1-3 us each) at every launch. */
    char line_buffer[PREMAIN_LINE_MAX];
    premain_line line = {line_buffer, 0, PREMAIN_LINE_MAX, 0};
    premain_put(&line, "premain-record/1 kind=launch");
    premain_put_key(&line, "pid");
    premain_put_u64(&line, (uint64_t)state.pid);
    premain_put_key(&line, "uid");
    premain_put_u64(&line, uid);
    premain_put_key(&line, "host");
    /* The machine ID from PREMAIN_FIELD_HOST when `premain field env`'s lines (or field run)
     * gave it, else from /etc/machine-id: the same hash, without the file's 5-10 us in a new
     * process (scripts/bench-recorder). */
    premain_put_hex64(&line, state.have_host ? state.host : premain_hash_file(PREMAIN_MACHINE_ID_PATH));
    premain_put_key(&line, "boot");
    premain_put_hex64(&line, premain_boot_hash(clock_ns(CLOCK_REALTIME), clock_ns(CLOCK_BOOTTIME)));
    put_executable(&line);
    put_build_id(&line);
    for (uint32_t i = 0; i < state.args; i++) {
        premain_put_key(&line, i == 0 ? "arg0" : "arg1");
        premain_put_escaped(&line, state.arg[i], state.arg_length[i]);
    }
    premain_put_key(&line, "t0src");
    premain_put(&line, state.t0src);
    if (state.t0src[0] != 'n') {
        premain_put_key(&line, "t0");
        premain_put_u64(&line, state.t0);
    }
    premain_put_key(&line, "version");
    premain_put_u64(&line, state.version);
    premain_put_key(&line, "consistent");
    premain_put_u64(&line, state.consistent);
    premain_put_key(&line, "main");
    premain_put_u64(&line, main_time);
    premain_put_key(&line, "objects");
    premain_put_u64(&line, state.objects);
    struct rusage usage;
    if (sys4(SYS_getrusage, RUSAGE_SELF, (long)&usage, 0, 0) == 0) {
        /* ru_inblock is /proc/self/io's read_bytes in 512-byte units (task_io_get_inblock). */
        premain_put_key(&line, "rbytes");
        premain_put_u64(&line, (uint64_t)usage.ru_inblock * 512);
        premain_put_key(&line, "majflt");
        premain_put_u64(&line, (uint64_t)usage.ru_majflt);
        premain_put_key(&line, "minflt");
        premain_put_u64(&line, (uint64_t)usage.ru_minflt);
    } else {
        line.full = 1; /* required keys missing: drop rather than write a record a reader skips */
    }
    if (state.env0) premain_put(&line, " env0=1");
    /* Objects while the line has room, keeping room for " omitted=NNNNN\n". */
    const uint32_t reserve = 24;
    uint32_t written = 0;
    uint32_t known = state.objects < OBJECTS_MAX ? state.objects : OBJECTS_MAX;
    for (uint32_t i = 0; i < known && !line.full && line.length + reserve < line.capacity; i++) {
        premain_line trial = line;
        trial.capacity = line.capacity - reserve;
        premain_put_key(&trial, "o");
        premain_put_u64(&trial, state.object_time[i]);
        premain_put_bytes(&trial, ",", 1);
        const char *name = state.object_name[i] ? state.object_name[i] : "";
        premain_put_escaped(&trial, name, premain_strlen(name, PREMAIN_PATH_MAX));
        if (trial.full) break;
        line.length = trial.length;
        written++;
    }
    if (written < state.objects) {
        premain_put_key(&line, "omitted");
        premain_put_u64(&line, state.objects - written);
    }
    premain_put_bytes(&line, "\n", 1);
    (void)premain_spool_finish(state.dir, uid, state.max_bytes, fd, size, &line);
}
