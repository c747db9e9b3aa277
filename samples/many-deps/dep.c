/* many-deps / dep.c: template for the 30 tiny libraries libdep00.so .. libdep29.so.
 *
 * Built: for NN in 00..29:
 *          gcc -O1 -g -fPIC -shared -DDEP_ID=NN dep.c -Wl,-soname,libdepNN.so
 *              -o DIR/many-deps/lib/libdepNN.so
 * Shows: each library defines and exports exactly one function, `premain_depNN`
 *        (returns 1), with no constructor and no DT_NEEDED at all (Debian's gcc links with
 *        --as-needed by default and the function uses nothing from libc).
 */
#define PASTE2(a, b) a##b
#define PASTE(a, b) PASTE2(a, b)

int PASTE(premain_dep, DEP_ID)(void)
{
    return 1; /* DEP_ID (00..29) is only used in the name: 08 and 09 are not octal literals */
}
