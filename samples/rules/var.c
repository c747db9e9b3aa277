/* rules/libvar.so (-fPIC): exports the data object premain_var_table (64 ints). Built
 * normally it has no TEXTREL. */
int premain_var_table[64] = {1, 2, 3};

int premain_var_sum(void) {
    int sum = 0;
    for (int i = 0; i < 64; i++) sum += premain_var_table[i];
    return sum;
}
