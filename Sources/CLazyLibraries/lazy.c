// The loader of the lazily loaded libraries (see include/CLazyLibraries.h).
#include "CLazyLibraries.h"
#include "lazy.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct lazy_library {
    const char *name;
    /// The functions premain calls, NULL-terminated: all must be there for the library to be used.
    const char *const *functions;
    pthread_once_t once;
    void *handle;
    /// Set (release) once `open_library` has run and failed.
    int failed;
    char problem[512];
};

static struct lazy_library libdw = {"libdw.so.1", premain_libdw_functions, PTHREAD_ONCE_INIT, NULL, 0, ""};
static struct lazy_library libsqlite = {"libsqlite3.so.0", premain_sqlite_functions, PTHREAD_ONCE_INIT, NULL, 0, ""};
static struct lazy_library libz = {"libz.so.1", premain_zlib_functions, PTHREAD_ONCE_INIT, NULL, 0, ""};

/// Opens the library and checks that it has every function premain calls, so that a file of
/// that name that is another library (or an older one) is refused here, in one line, instead
/// of ending premain at the first call of a missing function.
static void open_library(struct lazy_library *library) {
    void *handle = dlopen(library->name, RTLD_NOW | RTLD_LOCAL);
    const char *reason = handle ? NULL : dlerror();
    for (const char *const *function = library->functions; handle && *function; function++) {
        (void)dlerror();
        if (dlsym(handle, *function) != NULL) continue;
        reason = dlerror();  // "/x/libdw.so.1: undefined symbol: dwarf_begin_elf"
        snprintf(library->problem, sizeof library->problem, "%s: no function %s", library->name, *function);
        if (reason) snprintf(library->problem, sizeof library->problem, "%s", reason);
        reason = library->problem;
        dlclose(handle);
        handle = NULL;
    }
    if (handle == NULL) {
        if (reason != library->problem)
            snprintf(library->problem, sizeof library->problem, "%s", reason ? reason : library->name);
        __atomic_store_n(&library->failed, 1, __ATOMIC_RELEASE);
    }
    library->handle = handle;
}

static void open_libdw(void) { open_library(&libdw); }
static void open_sqlite(void) { open_library(&libsqlite); }
static void open_zlib(void) { open_library(&libz); }

const char *premain_libdw_load(void) {
    pthread_once(&libdw.once, open_libdw);
    return libdw.handle ? NULL : libdw.problem;
}

const char *premain_sqlite_load(void) {
    pthread_once(&libsqlite.once, open_sqlite);
    return libsqlite.handle ? NULL : libsqlite.problem;
}

const char *premain_zlib_load(void) {
    pthread_once(&libz.once, open_zlib);
    return libz.handle ? NULL : libz.problem;
}

const char *premain_libdw_failure(void) {
    return __atomic_load_n(&libdw.failed, __ATOMIC_ACQUIRE) ? libdw.problem : NULL;
}

/// A forwarder called while its library is missing: callers check `premain_*_load` first, so
/// this is a broken invariant, reported in one line before exiting with EX_SOFTWARE.
static void *missing(const char *library, const char *problem, const char *symbol) {
    char line[768];
    int length = snprintf(line, sizeof line, "Error: %s needed by premain cannot be used (%s)\n",
                          symbol, problem && *problem ? problem : library);
    if (length > 0) (void)!write(2, line, (size_t)length < sizeof line ? (size_t)length : sizeof line - 1);
    _exit(70);
}

void *premain_libdw_symbol(const char *symbol) {
    const char *problem = premain_libdw_load();
    void *address = problem ? NULL : dlsym(libdw.handle, symbol);
    return address ? address : missing(libdw.name, problem ? problem : dlerror(), symbol);
}

void *premain_sqlite_symbol(const char *symbol) {
    const char *problem = premain_sqlite_load();
    void *address = problem ? NULL : dlsym(libsqlite.handle, symbol);
    return address ? address : missing(libsqlite.name, problem ? problem : dlerror(), symbol);
}

void *premain_zlib_symbol(const char *symbol) {
    const char *problem = premain_zlib_load();
    void *address = problem ? NULL : dlsym(libz.handle, symbol);
    return address ? address : missing(libz.name, problem ? problem : dlerror(), symbol);
}
