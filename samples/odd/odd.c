/* odd/odd.c — the library every odd file of samples/odd is made from (scripts/build-samples):
 *   gcc -O1 -shared -fPIC -Wl,-soname,libodd.so -o libodd.so odd.c -lm
 * then samples/odd/make-odd patches copies of it (see there). Shows: DT_NEEDED [libm.so.6]
 * (cos lives in libm; --as-needed drops libc); .init_array: frame_dummy and odd_ctor;
 * exports odd_ctor, odd_table, odd_value, odd_cos; relocations: 3 relative, 7 symbolic, 1 PLT
 * slot (cos). */
#include <math.h>

int odd_value;
double (*odd_table[2])(double) = { cos, 0 };

__attribute__((constructor)) void odd_ctor(void) { odd_value = 42; }

double odd_cos(double x) { return cos(x) + odd_value; }
