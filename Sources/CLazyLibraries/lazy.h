// Internal: symbol look-up and the forwarder macro shared by the forwarder files.
#ifndef PREMAIN_LAZY_INTERNAL_H
#define PREMAIN_LAZY_INTERNAL_H

#include <stddef.h>

void *premain_libdw_symbol(const char *symbol);
void *premain_sqlite_symbol(const char *symbol);
void *premain_zlib_symbol(const char *symbol);

/// The functions premain calls of each library, NULL-terminated (the forwarder files).
extern const char *const premain_libdw_functions[];
extern const char *const premain_sqlite_functions[];
extern const char *const premain_zlib_functions[];

/// Defines `name` with the declared signature: the library's function is looked up on the
/// first call (a benign race: every thread stores the same address) and called.
#define PREMAIN_FORWARD(lookup, ret, name, params, args) PREMAIN_FORWARD_AS(lookup, ret, name, name, params, args)

/// The same, defining `as` as the forwarder of the library's `name`.
#define PREMAIN_FORWARD_AS(lookup, ret, as, name, params, args)                            \
    ret as params {                                                                         \
        static ret(*volatile target) params;                                                \
        ret(*fn) params = __atomic_load_n(&target, __ATOMIC_ACQUIRE);                       \
        if (fn == NULL) {                                                                   \
            fn = (ret(*) params)lookup(#name);                                              \
            __atomic_store_n(&target, fn, __ATOMIC_RELEASE);                                \
        }                                                                                   \
        return fn args;                                                                     \
    }

#endif
