/* closure/rpath-vs-runpath / leaf.c: libleaf.so, reached only through libmid.so.
 *
 * Built: gcc -O1 -g -fPIC -shared leaf.c -Wl,-soname,libleaf.so
 *            -o DIR/closure/rpath-vs-runpath/indirect/leaf/libleaf.so
 * Shows: exports `premain_leaf`; no DT_RPATH, no DT_RUNPATH.
 */
int premain_leaf(void)
{
    return 7;
}
