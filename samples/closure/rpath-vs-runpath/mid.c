/* closure/rpath-vs-runpath / mid.c: libmid.so, which needs libleaf.so but says nowhere where.
 *
 * Built: gcc -O1 -g -fPIC -shared mid.c -Lindirect/leaf -lleaf -Wl,-soname,libmid.so
 *            -o DIR/closure/rpath-vs-runpath/indirect/mid/libmid.so
 * Shows: DT_NEEDED is exactly [libleaf.so] (Debian's gcc links with --as-needed, so no
 *        libc.so.6); no DT_RPATH and no DT_RUNPATH, so libleaf.so is only found through the
 *        DT_RPATH of the executable that loaded libmid.so.
 */
int premain_leaf(void);

int premain_mid(void)
{
    return premain_leaf() + 1;
}
