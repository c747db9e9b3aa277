/* odd/odd.c — the library every odd file of samples/odd is made from (scripts/build-samples):
 *   gcc -O1 -shared -fPIC -Wl,-soname,libodd.so -o libodd.so odd.c -lm
 * then samples/odd/make-odd patches copies of it (see there). Shows: DT_NEEDED [libm.so.6,
 * libc.so.6]; one constructor (odd_ctor) in .init_array besides frame_dummy; exports odd_ctor,
 * odd_table, odd_value; imports cos through a PLT slot and the pointer in odd_table through a
 * symbolic relocation. */
#include <math.h>

int odd_value;
double (*odd_table[2])(double) = { cos, 0 };

__attribute__((constructor)) void odd_ctor(void) { odd_value = 42; }

double odd_cos(double x) { return cos(x) + odd_value; }
