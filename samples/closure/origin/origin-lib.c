/* closure/origin / origin-lib.c: liborigin.so in DIR/closure/origin/lib/.
 *
 * Built: gcc -O1 -g -fPIC -shared origin-lib.c -Wl,-soname,liborigin.so
 *            -o DIR/closure/origin/lib/liborigin.so
 * Shows: exports `premain_origin`.
 */
int premain_origin(void)
{
    return 1;
}
