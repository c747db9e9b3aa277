/* closure/rpath-vs-runpath / use-which.c: DT_RPATH versus DT_RUNPATH against LD_LIBRARY_PATH.
 *
 * Built (linked against a/libwhich.so, DT_NEEDED "libwhich.so"):
 *   gcc -O1 -g use-which.c -La -lwhich -Wl,--disable-new-dtags,-rpath,'$ORIGIN/a' -o DIR/.../use-rpath
 *   gcc -O1 -g use-which.c -La -lwhich -Wl,--enable-new-dtags,-rpath,'$ORIGIN/a'  -o DIR/.../use-runpath
 * Shows: prints "libwhich: a" or "libwhich: b" and exits 0.
 *   use-rpath   has DT_RPATH "$ORIGIN/a" (no DT_RUNPATH): always prints "libwhich: a",
 *               even with LD_LIBRARY_PATH=DIR/closure/rpath-vs-runpath/b (RPATH wins).
 *   use-runpath has DT_RUNPATH "$ORIGIN/a" (no DT_RPATH): prints "libwhich: a" normally and
 *               "libwhich: b" with LD_LIBRARY_PATH=.../b (LD_LIBRARY_PATH beats RUNPATH).
 */
#include <stdio.h>

const char *premain_which(void);

int main(void)
{
    printf("libwhich: %s\n", premain_which());
    return 0;
}
