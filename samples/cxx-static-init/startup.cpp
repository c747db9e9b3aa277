// cxx-static-init / startup.cpp: a program whose one C++ unit GCC names after a function.
//
// Built: g++ -O1 -g startup.cpp -o DIR/cxx-static-init/cxx-units, and
//        clang++ -O1 -g startup.cpp -o DIR/cxx-static-init/cxx-units-clang (the Swift toolchain's).
// Shows: g++ names this unit's initializer after its first global function, Fatal(const char*,
//        ...): `_GLOBAL__sub_I__Z5FatalPKcz`, which says nothing of the global it constructs,
//        `startupAliases` (defined at line 38: a table of 2,000 entries filled by
//        StartupAliases::StartupAliases(), inlined there, its destructor registered right after;
//        busy-waits 4 ms, env PREMAIN_SAMPLE_COST_STARTUP_MS, logged "exe:startup.cpp"). Clang names it
//        `_GLOBAL__sub_I_startup.cpp`. premain names both by the source file DWARF gives
//        (startup.cpp, relative to the compile folder) and lists `startupAliases` at startup.cpp:38.
//        main logs "main <ns> <ns> 0.000" and exits 0 without output.
#include <cstdarg>
#include <cstdio>

#include "selftime.h"

void Fatal(const char* format, ...)
{
    va_list arguments;
    va_start(arguments, format);
    std::vfprintf(stderr, format, arguments);
    va_end(arguments);
}

namespace {

struct StartupAliases {
    StartupAliases()
    {
        for (unsigned i = 0; i < 2000; ++i) table[i] = (i * 2654435761u) >> 7;
        premain_timed_init("exe:startup.cpp", "STARTUP", 4);
    }
    ~StartupAliases() { table[0] = 0; }  // registered with __cxa_atexit right after construction
    unsigned table[2000];
};

StartupAliases startupAliases;

} // namespace

int main(int argc, char**)
{
    premain_log_main();
    if (argc > 1) Fatal("unexpected argument (alias %u)\n", startupAliases.table[argc]);
    return 0;
}
