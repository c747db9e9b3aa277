/* closure/wrong-class / wc-app.c: the loader must skip a wrong-class candidate.
 *
 * Built: gcc -O1 -g wc-app.c -Llib64 -lwc
 *            -Wl,--enable-new-dtags,-rpath,'$ORIGIN/lib32:$ORIGIN/lib64'
 *            -o DIR/closure/wrong-class/wc-app
 * Shows: DT_RUNPATH "$ORIGIN/lib32:$ORIGIN/lib64"; lib32/libwc.so is ELFCLASS32 (found first,
 *        skipped), lib64/libwc.so is ELFCLASS64 x86-64 (chosen; `ldd` shows
 *        ".../lib64/libwc.so"). Prints "wc-app: 64" and exits 0.
 */
#include <stdio.h>

int premain_wc(void);

int main(void)
{
    printf("wc-app: %d\n", premain_wc());
    return 0;
}
