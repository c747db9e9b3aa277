/* rules/libtextrel.so: compiled WITHOUT -fPIC (with -mcmodel=large, so the code holds a 64-bit absolute address) and linked with -Wl,-z,notext, so the absolute
 * address of premain_textrel_target is patched into code at load time: DT_TEXTREL (flag
 * TEXTREL in DT_FLAGS). Evidence for the `textrel` rule. */
int premain_textrel_target = 42;

int *premain_textrel_address(void) { return &premain_textrel_target; }
