/*
 * One 8-byte pread(2) at a fixed offset, timed: the cost per call of reading a register through
 * the simulated /dev/cpu tree (hwtool sim mount: FUSE, direct_io, libfuse, the simulator) against
 * the same pread of a tmpfs file. Usage: devcpu_pread FILE OFFSET CALLS ROUNDS; prints
 * "best_ns median_ns" per call over ROUNDS rounds of CALLS calls (CLOCK_MONOTONIC).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b) {
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s FILE OFFSET CALLS ROUNDS\n", argv[0]);
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }
    off_t off = (off_t) strtoull(argv[2], 0, 0);
    long calls = atol(argv[3]);
    int rounds = atoi(argv[4]);
    double *ns = calloc((size_t) rounds, sizeof *ns);
    uint64_t v;
    for (int r = 0; r < rounds; r++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (long i = 0; i < calls; i++) {
            if (pread(fd, &v, 8, off) != 8) {
                perror("pread");
                return 1;
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        ns[r] = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (double) calls;
    }
    qsort(ns, (size_t) rounds, sizeof *ns, cmp);
    printf("%.0f %.0f\n", ns[0], ns[rounds / 2]);
    return 0;
}
