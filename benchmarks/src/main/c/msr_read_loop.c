/*
 * C reference for hwtool's MSR read path: pread(2) of 8 bytes on /dev/cpu/N/msr at file offset =
 * MSR index, as arch/x86/kernel/msr.c serves it (rdmsr_safe_on_cpu on CPU N), timed with
 * clock_gettime(CLOCK_MONOTONIC). This machine has no msr driver, so MsrReadBenchIT runs it in a
 * QEMU guest, in the same boot as the Java loop (dev.hwtool.bench.MsrReadLoop), before and after it.
 *
 * Output: one line per operation, the format of cpuid_loop.c,
 *   name <TAB> iterations <TAB> best_ns_per_read <TAB> median_ns_per_read <TAB> ns,ns,... (every run)
 * Each operation gets one untimed warm-up run, then `runs` timed runs. "iterations" counts reads.
 *
 * Operations (the thread is pinned to CPU 0 first, as MsrReadLoop pins its thread, so the CPU 0
 * reads are local calls and not IPIs in both):
 *   msrRead         pread on /dev/cpu/0/msr, opened once: DeviceMsrAccess.read(0, msr)
 *   msrReadAll      every online CPU in turn, each node opened once beforehand: the reads of
 *                   `rdmsr -a` without its opens (ns per read, not per pass)
 *   msrReadAllOpen  every online CPU in turn, open + pread + close each time: what msr-tools'
 *                   `rdmsr -a` does per CPU (rdmsr.c rdmsr_on_cpu), ns per read
 *   msrReadAllOnline  the list of online CPUs read from /sys/devices/system/cpu/online (open, read
 *                   to the end, close), then msrReadAllOpen over it: a program that reads every
 *                   CPU's node has to find the CPUs first, as hwtool's `rdmsr -a` does each time
 *                   (msr-tools 1.3 reads /proc/stat for that), ns per read
 *   tmpPread        pread of 8 bytes of a file in $TMPDIR (else /tmp): the "pread 8 B of a tmpfile"
 *                   row of the host benchmarks, repeated in the guest to see how far TCG moves a
 *                   ratio measured on the host
 *
 * usage: msr_read_loop <msr> [scale] [runs]
 *   msr    the register (strtoul base 0); one QEMU's TCG implements, e.g. 0x1b (IA32_APIC_BASE)
 *   scale  multiplies every iteration count (default 1.0)
 *   runs   timed runs per operation (default 5)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_CPUS 64

/* Written by every read so that the compiler cannot drop the work. */
static volatile uint64_t sink;

static off_t msr_offset;
static int tmp_fd = -1;
static int ncpus;
static int cpu_ids[MAX_CPUS];
static int cpu_fds[MAX_CPUS];

static void die(const char *what) {
    fprintf(stderr, "msr_read_loop: %s: %s\n", what, strerror(errno));
    exit(1);
}

static void node(char *buf, size_t len, int cpu) {
    snprintf(buf, len, "/dev/cpu/%d/msr", cpu);
}

static void read_fd(int fd) {
    uint64_t v;
    if (pread(fd, &v, sizeof v, msr_offset) != (ssize_t)sizeof v) {
        die("pread msr");
    }
    sink += v;
}

static void op_read(void) { read_fd(cpu_fds[0]); }

static void op_read_all(void) {
    for (int i = 0; i < ncpus; i++) {
        read_fd(cpu_fds[i]);
    }
}

static void op_read_all_open(void) {
    char path[64];
    for (int i = 0; i < ncpus; i++) {
        node(path, sizeof path, cpu_ids[i]);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            die(path);
        }
        read_fd(fd);
        close(fd);
    }
}

/* The whole file, as DeviceMsrAccess.cpus() reads it; the list itself is the one online_cpus() parsed. */
static void read_online(void) {
    char buf[4096];
    int fd = open("/sys/devices/system/cpu/online", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        die("/sys/devices/system/cpu/online");
    }
    ssize_t k;
    while ((k = read(fd, buf, sizeof buf)) > 0) {
        sink += (uint64_t)k;
    }
    if (k < 0) {
        die("read /sys/devices/system/cpu/online");
    }
    close(fd);
}

static void op_read_all_online(void) {
    read_online();
    op_read_all_open();
}

static void op_tmp_pread(void) {
    uint64_t v;
    if (pread(tmp_fd, &v, sizeof v, 0) != (ssize_t)sizeof v) {
        die("pread tmpfile");
    }
    sink += v;
}

/* An 8-byte file, unlinked at once: the descriptor keeps it while the loop runs. */
static void open_tmpfile(void) {
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/msr_read_loop.XXXXXX", dir != NULL && *dir ? dir : "/tmp");
    tmp_fd = mkstemp(path);
    if (tmp_fd < 0) {
        die(path);
    }
    unlink(path);
    static const uint8_t bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    if (write(tmp_fd, bytes, sizeof bytes) != (ssize_t)sizeof bytes) {
        die("write tmpfile");
    }
}

struct op {
    const char *name;
    void (*fn)(void);
    long passes;     /* calls of fn per run: 0.2-0.5 s per run under TCG on a 2-core host */
    int all_cpus;    /* fn reads every online CPU once: reads = passes * ncpus */
};

static const struct op OPS[] = {
    {"msrRead", op_read, 200000, 0},
    {"msrReadAll", op_read_all, 5000, 1},
    {"msrReadAllOpen", op_read_all_open, 2000, 1},
    {"msrReadAllOnline", op_read_all_online, 2000, 1},
    {"tmpPread", op_tmp_pread, 200000, 0},
};

/* /sys/devices/system/cpu/online: "0-1", "0,2-3", ... (Documentation/ABI/testing/sysfs-devices-system-cpu). */
static void online_cpus(void) {
    FILE *f = fopen("/sys/devices/system/cpu/online", "r");
    if (f == NULL) {
        die("/sys/devices/system/cpu/online");
    }
    int lo, hi;
    while (fscanf(f, "%d", &lo) == 1) {
        hi = lo;
        int c = fgetc(f);
        if (c == '-') {
            if (fscanf(f, "%d", &hi) != 1) {
                break;
            }
            c = fgetc(f);
        }
        for (int cpu = lo; cpu <= hi && ncpus < MAX_CPUS; cpu++) {
            cpu_ids[ncpus++] = cpu;
        }
        if (c != ',') {
            break;
        }
    }
    fclose(f);
    if (ncpus == 0) {
        fprintf(stderr, "msr_read_loop: no online CPU in /sys/devices/system/cpu/online\n");
        exit(1);
    }
}

static int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double run_once(const struct op *op, long passes, long reads) {
    void (*volatile fn)(void) = op->fn;
    int64_t t0 = now_ns();
    for (long i = 0; i < passes; i++) {
        fn();
    }
    return (double)(now_ns() - t0) / (double)reads;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s <msr> [scale] [runs]\n", argv[0]);
        return 2;
    }
    char *end;
    errno = 0;
    unsigned long msr = strtoul(argv[1], &end, 0);
    double scale = argc > 2 ? atof(argv[2]) : 1.0;
    int runs = argc > 3 ? atoi(argv[3]) : 5;
    if (errno != 0 || *end != '\0' || msr > 0xffffffffUL) {
        fprintf(stderr, "msr_read_loop: bad MSR '%s'\n", argv[1]);
        return 2;
    }
    if (scale <= 0 || runs < 1 || runs > 100) {
        fprintf(stderr, "msr_read_loop: scale must be > 0 and runs in 1..100\n");
        return 2;
    }
    msr_offset = (off_t)msr;

    cpu_set_t only0;
    CPU_ZERO(&only0);
    CPU_SET(0, &only0);
    if (sched_setaffinity(0, sizeof only0, &only0) != 0) {
        die("sched_setaffinity CPU 0");
    }
    online_cpus();
    if (cpu_ids[0] != 0) {
        fprintf(stderr, "msr_read_loop: CPU 0 is not online\n");
        return 1;
    }
    for (int i = 0; i < ncpus; i++) {
        char path[64];
        node(path, sizeof path, cpu_ids[i]);
        cpu_fds[i] = open(path, O_RDONLY | O_CLOEXEC);
        if (cpu_fds[i] < 0) {
            die(path);
        }
    }

    open_tmpfile();

    double samples[100], sorted[100];
    for (size_t k = 0; k < sizeof OPS / sizeof OPS[0]; k++) {
        const struct op *op = &OPS[k];
        long passes = (long)(op->passes * scale);
        if (passes < 1) {
            passes = 1;
        }
        long reads = passes * (op->all_cpus ? ncpus : 1);
        run_once(op, passes, reads); /* warm-up: page cache, branch predictors, TCG's translation cache */
        for (int r = 0; r < runs; r++) {
            samples[r] = run_once(op, passes, reads);
        }
        memcpy(sorted, samples, sizeof samples[0] * (size_t)runs);
        qsort(sorted, (size_t)runs, sizeof sorted[0], cmp_double);
        double median = runs % 2 ? sorted[runs / 2] : (sorted[runs / 2 - 1] + sorted[runs / 2]) / 2;
        printf("%s\t%ld\t%.2f\t%.2f\t", op->name, reads, sorted[0], median);
        for (int r = 0; r < runs; r++) {
            printf(r ? ",%.2f" : "%.2f", samples[r]);
        }
        printf("\n");
        fflush(stdout);
    }
    return 0;
}
