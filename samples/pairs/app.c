/* pairs / app.c: the executable of the C diff pair.
 *
 * Built: base (also aa-1, aa-2, byte-for-byte the same command in another folder):
 *          gcc -O1 -g app.c -Llib -lcore -Wl,--enable-new-dtags,-rpath,'$ORIGIN/lib'
 *              -o DIR/pairs/<base|aa-1|aa-2>/app
 *        head: gcc -O1 -g -DPREMAIN_HEAD app.c -Llib -lcore -lextra -lm
 *              -Wl,--enable-new-dtags,-rpath,'$ORIGIN/lib' -o DIR/pairs/head/app
 * Shows: base DT_NEEDED [libcore.so, libc.so.6];
 *        head DT_NEEDED [libcore.so, libextra.so, libm.so.6, libc.so.6]
 *        (new dependencies libextra.so, with a 1 ms constructor, and libm.so.6, really used).
 *        main logs "main", prints "app: base" or "app: head" and exits 0.
 */
#include <stdio.h>

#include "selftime.h"

int premain_core_00(void);
#ifdef PREMAIN_HEAD
#include <math.h>
int premain_core_29(void);
int premain_extra(void);
static volatile double premain_angle = 0.0;
#endif

int main(void)
{
    premain_log_main();
#ifdef PREMAIN_HEAD
    int total = premain_core_00() + premain_core_29() + premain_extra() + (int)cos(premain_angle);
    printf("app: head (%d)\n", total);
#else
    printf("app: base (%d)\n", premain_core_00());
#endif
    return 0;
}
