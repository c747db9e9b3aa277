// cxx-static-init / main.cpp: the executable, linked to libinit.so.
//
// Built: g++ -O1 -g main.cpp -L. -linit -Wl,-rpath,'$ORIGIN' -Wl,--enable-new-dtags
//        -o DIR/cxx-static-init/cxx-static-init   (DT_RUNPATH "$ORIGIN", DT_NEEDED libinit.so)
// Shows: a global object constructor busy-waiting 3 ms (env PREMAIN_SAMPLE_COST_MAIN_CPP_MS,
//        logged "exe:main.cpp", run by the local symbol `_GLOBAL__sub_I_main`, named after the
//        function main, not the file) and a static
//        `__attribute__((constructor(101)))` function `premain_exe_ctor_101` busy-waiting 2 ms
//        (env PREMAIN_SAMPLE_COST_CTOR_101_MS, logged "exe:ctor_101"; runs before
//        exe:main.cpp because prioritized entries sort first in .init_array).
//        main logs "main <ns> <ns> 0.000", prints "cxx-static-init: main reached" and exits 0.
#include <cstdio>

#include "selftime.h"

extern "C" int premain_registry_size();
extern "C" int premain_plugins_count();
extern "C" int premain_lib_value();

namespace {

struct AppState {
    AppState() { premain_timed_init("exe:main.cpp", "MAIN_CPP", 3); }
};

AppState appState;

} // namespace

extern "C" {
// static: g++ 12 names a TU initializer after the first global symbol it has noticed, else after
// the file. Here that is `main` (_GLOBAL__sub_I_main); were this function global, it would be
// _GLOBAL__sub_I_premain_exe_ctor_101. (registry.cpp and plugins.cpp get the file name.)
__attribute__((constructor(101))) static void premain_exe_ctor_101()
{
    premain_timed_init("exe:ctor_101", "CTOR_101", 2);
}
}

int main()
{
    premain_log_main();
    int total = premain_registry_size() + premain_plugins_count() + premain_lib_value();
    std::printf("cxx-static-init: main reached (%d)\n", total);
    return 0;
}
