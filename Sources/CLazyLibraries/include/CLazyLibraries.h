// Libraries only some commands need, loaded with dlopen on first use: libdw (source lines),
// libsqlite3 (history) and zlib (compressed DWARF read in part). premain does not link them, so the loader neither maps them nor
// binds their symbols at every start (`premain --version` included). Their functions are
// defined here as forwarders that load the library and look the symbol up on first call.
#ifndef PREMAIN_LAZY_LIBRARIES_H
#define PREMAIN_LAZY_LIBRARIES_H

/// Loads libdw.so.1 once per process: NULL when it is loaded and has every function premain
/// calls, else a one-line reason, dlopen's ("libdw.so.1: cannot open shared object file: ...")
/// or the first function missing ("/x/libdw.so.1: undefined symbol: dwarf_begin_elf"), valid
/// for the life of the process. A library that is not usable is closed and never called.
const char *premain_libdw_load(void);

/// The same for libsqlite3.so.0.
const char *premain_sqlite_load(void);

/// The same for libz.so.1 (which libelf has loaded already): ELFKit inflates sections in part
/// through the forwarders below, named `premain_*` because a definition named `inflate` in
/// premain would be exported to libelf, which calls zlib itself.
const char *premain_zlib_load(void);

struct z_stream_s;
int premain_inflateInit_(struct z_stream_s *stream, const char *version, int size);
int premain_inflate(struct z_stream_s *stream, int flush);
int premain_inflateEnd(struct z_stream_s *stream);
const char *premain_zlibVersion(void);

/// Why libdw.so.1 could not be used, when something asked for it (`premain_libdw_load`) in
/// this process; NULL when it loaded or nothing has asked for it yet.
const char *premain_libdw_failure(void);

#endif
