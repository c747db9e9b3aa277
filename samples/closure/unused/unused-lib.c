/* closure/unused / unused-lib.c: libunused.so, a dependency nobody calls.
 *
 * Built: gcc -O1 -g -fPIC -shared unused-lib.c -Wl,-soname,libunused.so
 *            -o DIR/closure/unused/libunused.so
 * Shows: exports `premain_unused` (never referenced by unused-deps).
 */
int premain_unused(void)
{
    return 0;
}
