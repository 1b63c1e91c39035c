/*
 * C reference for the hwtool JMH benchmarks: the same operations the Java bindings perform,
 * done directly, timed with clock_gettime(CLOCK_MONOTONIC). benchmarks/run.sh compiles this
 * with gcc -O2 and runs it in the same run as JMH, so the ratios compare like with like.
 *
 * Output: one line per operation,
 *   name <TAB> iterations <TAB> best_ns_per_op <TAB> median_ns_per_op <TAB> ns,ns,... (every run)
 * Each operation gets one untimed warm-up run, then `runs` timed runs of `iterations` calls.
 *
 * usage: cpuid_loop <tmpfile> [scale] [runs]
 *   tmpfile  a file of at least 8 bytes for the pread reference (the Java side reads the same
 *            kind of file: 8 bytes at offset 0 of a file in the temp dir)
 *   scale    multiplies every iteration count (default 1.0)
 *   runs     timed runs per operation (default 5, as JMH's measurement iterations)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* Written by every operation so that the compiler cannot drop the work. */
static volatile uint64_t sink;

static int cpuid_fd = -1;
static int tmp_fd = -1;

/* CPUID as the FFM stub does it (SDM Vol. 2A, CPUID): EAX=leaf, ECX=subleaf. volatile: CPUID
 * is serializing and its result may change (APIC id, OSXSAVE), so it must not be hoisted. */
static inline void cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4]) {
    __asm__ __volatile__("cpuid"
                         : "=a"(out[0]), "=b"(out[1]), "=c"(out[2]), "=d"(out[3])
                         : "a"(leaf), "c"(subleaf));
}

static inline uint64_t rdtsc(void) {
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

static void op_cpuid_leaf0(void) {
    uint32_t r[4];
    cpuid(0, 0, r);
    sink += r[0] ^ r[1];
}

static void op_cpuid_leaf1(void) {
    uint32_t r[4];
    cpuid(1, 0, r);
    sink += r[0] ^ r[2];
}

static void die(const char *what) {
    fprintf(stderr, "cpuid_loop: %s: %s\n", what, strerror(errno));
    exit(1);
}

/* arch/x86/kernel/cpuid.c: the file offset is the leaf (low 32 bits) and subleaf (high 32). */
static void device_pread(uint32_t leaf) {
    uint32_t r[4];
    if (pread(cpuid_fd, r, sizeof r, (off_t)leaf) != (ssize_t)sizeof r) {
        die("pread /dev/cpu/0/cpuid");
    }
    sink += r[0];
}

static void op_device_leaf0(void) { device_pread(0); }
static void op_device_leaf1(void) { device_pread(1); }

static void op_rdtsc(void) { sink += rdtsc(); }

static void op_pread_tmpfile8(void) {
    uint64_t v;
    if (pread(tmp_fd, &v, sizeof v, 0) != (ssize_t)sizeof v) {
        die("pread tmpfile");
    }
    sink += v;
}

static void op_syscall_getpid(void) { sink += (uint64_t)syscall(SYS_getpid); }

struct op {
    const char *name;     /* matches the JMH benchmark method it is the reference for */
    void (*fn)(void);
    long iterations;      /* chosen so that one run takes roughly 0.1-0.4 s on this VM */
    int needs_cpuid_dev;
};

static const struct op OPS[] = {
    {"cpuidLeaf0", op_cpuid_leaf0, 40000, 0},
    {"cpuidLeaf1", op_cpuid_leaf1, 40000, 0},
    {"deviceLeaf0", op_device_leaf0, 40000, 1},
    {"deviceLeaf1", op_device_leaf1, 40000, 1},
    {"rdtsc", op_rdtsc, 20000000, 0},
    {"preadTmpfile8", op_pread_tmpfile8, 800000, 0},
    {"syscallGetpid", op_syscall_getpid, 2000000, 0},
};

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double run_once(const struct op *op, long n) {
    /* Calls through a function pointer, as the Java side calls through a method handle; the
     * indirect call costs about 1 ns, well inside the noise of every operation here. */
    void (*volatile fn)(void) = op->fn;
    int64_t t0 = now_ns();
    for (long i = 0; i < n; i++) {
        fn();
    }
    return (double)(now_ns() - t0) / (double)n;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s <tmpfile> [scale] [runs]\n", argv[0]);
        return 2;
    }
    double scale = argc > 2 ? atof(argv[2]) : 1.0;
    int runs = argc > 3 ? atoi(argv[3]) : 5;
    if (scale <= 0 || runs < 1 || runs > 100) {
        fprintf(stderr, "cpuid_loop: scale must be > 0 and runs in 1..100\n");
        return 2;
    }
    tmp_fd = open(argv[1], O_RDONLY | O_CLOEXEC);
    if (tmp_fd < 0) {
        die(argv[1]);
    }
    cpuid_fd = open("/dev/cpu/0/cpuid", O_RDONLY | O_CLOEXEC);
    if (cpuid_fd < 0) {
        fprintf(stderr, "cpuid_loop: /dev/cpu/0/cpuid: %s (device rows skipped)\n", strerror(errno));
    }

    double samples[100], sorted[100];
    for (size_t k = 0; k < sizeof OPS / sizeof OPS[0]; k++) {
        const struct op *op = &OPS[k];
        if (op->needs_cpuid_dev && cpuid_fd < 0) {
            continue;
        }
        long n = (long)(op->iterations * scale);
        if (n < 1) {
            n = 1;
        }
        run_once(op, n); /* warm-up: page cache, branch predictors, CPU frequency */
        for (int r = 0; r < runs; r++) {
            samples[r] = run_once(op, n);
        }
        memcpy(sorted, samples, sizeof samples[0] * (size_t)runs);
        qsort(sorted, (size_t)runs, sizeof sorted[0], cmp_double);
        double median = runs % 2 ? sorted[runs / 2] : (sorted[runs / 2 - 1] + sorted[runs / 2]) / 2;
        printf("%s\t%ld\t%.2f\t%.2f\t", op->name, n, sorted[0], median);
        for (int r = 0; r < runs; r++) {
            printf(r ? ",%.2f" : "%.2f", samples[r]);
        }
        printf("\n");
        fflush(stdout);
    }
    return 0;
}
