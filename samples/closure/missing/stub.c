/* closure/missing / stub.c: the link-time stub for libdoesnotexist.so (deleted after linking).
 *
 * Built: gcc -fPIC -shared stub.c -Wl,-soname,libdoesnotexist.so -o $TMP/libdoesnotexist.so
 * Shows: nothing; it never reaches DIR.
 */
int premain_does_not_exist(void)
{
    return 0;
}
