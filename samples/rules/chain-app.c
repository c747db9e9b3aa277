/* rules/chain-app: needs only libchain1.so (DT_RUNPATH $ORIGIN/chain); prints `chain-app: 6`. */
#include <stdio.h>

int premain_chain_1(void);

int main(void) {
    printf("chain-app: %d\n", premain_chain_1());
    return 0;
}
