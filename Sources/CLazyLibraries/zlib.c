// zlib's functions ELFKit calls (ELFInflatingSection), forwarded to libz.so.1 loaded on first
// use under premain_* names (see include/CLazyLibraries.h). A function added to ELFKit needs
// its line here (CELF's module map links no zlib).
#include <zlib.h>
#include "CLazyLibraries.h"
#include "lazy.h"

#define ZLIB_FUNCTIONS(F)                                                                                        \
    F(int, inflateInit_, (struct z_stream_s * stream, const char *version, int size), (stream, version, size)) \
    F(int, inflate, (struct z_stream_s * stream, int flush), (stream, flush))                                  \
    F(int, inflateEnd, (struct z_stream_s * stream), (stream))                                                 \
    F(const char *, zlibVersion, (void), ())

#define FORWARD(ret, name, params, args) PREMAIN_FORWARD_AS(premain_zlib_symbol, ret, premain_##name, name, params, args)
ZLIB_FUNCTIONS(FORWARD)

#define NAME(ret, name, params, args) #name,
const char *const premain_zlib_functions[] = {ZLIB_FUNCTIONS(NAME) NULL};
