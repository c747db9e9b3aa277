/* late-load / plugin.c: libplugin.so, loaded by app after main.
 *
 * Built: gcc -O1 -g -fPIC -shared plugin.c -o DIR/late-load/libplugin.so
 * Shows: a constructor of fixed work (no clock, no sleep), so that its initializer takes
 *        measurable time after main.
 */
volatile unsigned long premain_plugin_sink;

__attribute__((constructor)) static void premain_plugin_ctor(void)
{
    unsigned long sum = 0;
    for (unsigned long i = 0; i < 3000000ul; i++)
        sum += i ^ (sum >> 3);
    premain_plugin_sink = sum;
}
