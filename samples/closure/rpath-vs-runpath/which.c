/* closure/rpath-vs-runpath / which.c: two different copies of libwhich.so.
 *
 * Built: gcc -O1 -g -fPIC -shared -DWHICH_ID=a which.c -Wl,-soname,libwhich.so
 *            -o DIR/closure/rpath-vs-runpath/a/libwhich.so
 *        gcc ... -DWHICH_ID=b ... -o DIR/closure/rpath-vs-runpath/b/libwhich.so
 * Shows: both have DT_SONAME "libwhich.so" and export `premain_which` (returns "a" or "b");
 *        copy a also exports the marker `premain_which_marker_a`, copy b exports
 *        `premain_which_marker_b`, so a reader can tell which copy it resolved.
 */
#define STR2(x) #x
#define STR(x) STR2(x)
#define PASTE2(a, b) a##b
#define PASTE(a, b) PASTE2(a, b)

int PASTE(premain_which_marker_, WHICH_ID)(void)
{
    return 1;
}

const char *premain_which(void)
{
    return STR(WHICH_ID);
}
