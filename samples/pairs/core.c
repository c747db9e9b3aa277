/* pairs / core.c: libcore.so of the C diff pair (base, head, and the A/A pair).
 *
 * Built: base (also aa-1, aa-2): gcc -O1 -g -fPIC -shared core.c -Wl,-soname,libcore.so
 *                                    -o DIR/pairs/<base|aa-1|aa-2>/lib/libcore.so
 *        head:                   the same plus -DPREMAIN_HEAD -o DIR/pairs/head/lib/libcore.so
 * Shows: constructor `premain_core_ctor` busy-waits 2 ms (env PREMAIN_SAMPLE_COST_CORE_MS),
 *        logged "lib:core.c", in both. Exports premain_core_00 .. premain_core_09 (10 functions)
 *        in base; head adds premain_core_10 .. premain_core_29 (30 functions in total).
 *        premain_core_ctor is global too, so .dynsym has 11 (base) / 31 (head) defined symbols.
 */
#include "selftime.h"

__attribute__((constructor)) void premain_core_ctor(void)
{
    premain_timed_init("lib:core.c", "CORE", 2);
}

#define F(n) int premain_core_##n(void) { return 1; }
#define F10(p) F(p##0) F(p##1) F(p##2) F(p##3) F(p##4) F(p##5) F(p##6) F(p##7) F(p##8) F(p##9)

F10(0)
#ifdef PREMAIN_HEAD
F10(1) F10(2)
#endif
