/* rules/chain/libchainN.so (N = 1..6): libchainN needs libchain(N+1) and calls it, so the
 * closure of rules/chain-app is 6 levels deep: chain-app → libchain1 → … → libchain6.
 * Built with -DCHAIN_ID=N (and -DCHAIN_LAST for 6). */
#ifndef CHAIN_LAST
int CHAIN_NEXT(void);
#endif

int CHAIN_SELF(void) {
#ifdef CHAIN_LAST
    return 1;
#else
    return CHAIN_NEXT() + 1;
#endif
}
