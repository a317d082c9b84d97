/* The attacker's tool of the mount-race tests (SPEC §3 "Every mount source is pinned"): run inside a sandbox, it
 * swaps two names atomically (renameat2 RENAME_EXCHANGE) as fast as it can for a while, so that a directory and a
 * symbolic link to a host folder take turns under one name while the app starts new containers.
 *   renameswap A B SECONDS
 * Static, so it runs in any image. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: renameswap A B SECONDS\n");
        return 2;
    }
    const time_t end = time(NULL) + atoi(argv[3]);
    unsigned long swaps = 0;
    while (time(NULL) < end) {
        for (int i = 0; i < 10000; ++i) {
            if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) == 0) {
                ++swaps;
            }
        }
    }
    printf("swaps=%lu\n", swaps);
    return 0;
}
