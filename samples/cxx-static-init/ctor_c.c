/* cxx-static-init / ctor_c.c: part of libinit.so, a C constructor function.
 *
 * Built: gcc -O1 -g -fPIC -c, linked into DIR/cxx-static-init/libinit.so (see registry.cpp).
 * Shows: `__attribute__((constructor))` function `premain_lib_ctor_c` (global symbol, no
 *        priority, so it is in .init_array after the two C++ TU initializers) that busy-waits
 *        10 ms (env PREMAIN_SAMPLE_COST_CTOR_C_MS), logged as "lib:ctor_c".
 */
#include "selftime.h"

__attribute__((constructor)) void premain_lib_ctor_c(void)
{
    premain_timed_init("lib:ctor_c", "CTOR_C", 10);
}

int premain_lib_value(void)
{
    return 42;
}
