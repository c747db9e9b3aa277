/* closure/rpath-vs-runpath / use-indirect.c: RPATH of the loader chain applies to indirect deps.
 *
 * Built (in DIR/closure/rpath-vs-runpath/indirect/):
 *   gcc -O1 -g use-indirect.c -Lmid -lmid -Wl,-rpath-link,leaf
 *       -Wl,--disable-new-dtags,-rpath,'$ORIGIN/mid:$ORIGIN/leaf' -o use-indirect
 *   gcc ... -Wl,--enable-new-dtags,-rpath,'$ORIGIN/mid:$ORIGIN/leaf' -o use-indirect-runpath
 * Shows: DT_NEEDED [libmid.so, libc.so.6]; libmid.so needs libleaf.so.
 *   use-indirect (DT_RPATH "$ORIGIN/mid:$ORIGIN/leaf"): libleaf.so resolves to leaf/libleaf.so
 *     through the executable's DT_RPATH; prints "use-indirect: 8" and exits 0.
 *   use-indirect-runpath (DT_RUNPATH, same value): DT_RUNPATH only serves the executable's own
 *     DT_NEEDED, so libleaf.so is NOT found; the loader fails with "libleaf.so: cannot open
 *     shared object file" and exit status 127.
 */
#include <stdio.h>

int premain_mid(void);

int main(void)
{
    printf("use-indirect: %d\n", premain_mid());
    return 0;
}
