/* pairs / extra.c: libextra.so, the constructor library only head depends on.
 *
 * Built: gcc -O1 -g -fPIC -shared extra.c -Wl,-soname,libextra.so -o DIR/pairs/head/lib/libextra.so
 * Shows: constructor `premain_extra_ctor` busy-waits 1 ms (env PREMAIN_SAMPLE_COST_EXTRA_MS),
 *        logged "lib:extra.c"; exports `premain_extra`.
 */
#include "selftime.h"

__attribute__((constructor)) void premain_extra_ctor(void)
{
    premain_timed_init("lib:extra.c", "EXTRA", 1);
}

int premain_extra(void)
{
    return 1;
}
