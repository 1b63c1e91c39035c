/*
 * C reference for hwtool's perf benchmarks (PerfReadBench, PerfRdpmcBench, PerfParseBench):
 * the same operations done directly, timed with clock_gettime(CLOCK_MONOTONIC). benchmarks/run.sh
 * compiles this with gcc -O2 and runs it before and after JMH, so the ratios compare like with like.
 *
 * Output: one line per operation, as cpuid_loop.c prints them,
 *   name <TAB> iterations <TAB> best_ns_per_op <TAB> median_ns_per_op <TAB> ns,ns,... (every run)
 * and, for an operation this machine cannot run, one line
 *   # name: not measured here: reason
 * Operations:
 *   perfRead      read(2) of 8 bytes from this thread's task-clock event (read_format 0)
 *   rdpmc         the self-monitoring loop of include/uapi/linux/perf_event.h on this thread's
 *                 HARDWARE instructions event: seqlock on the user page, RDPMC(index - 1),
 *                 sign-extend to pmc_width, add offset. Runs only when the user page says
 *                 cap_user_rdpmc = 1 and index != 0; RDPMC with CR4.PCE clear raises #GP and the
 *                 kernel kills the process, so it is never executed unguarded (and a SIGSEGV
 *                 handler turns a fault despite the guard into that line, not a crash).
 *   parsePlain, parseBranch16, parseBranch32
 *                 one record (ns per record) of the buffers dev.hwtool.bench.PerfRecordBuffers
 *                 writes (records-*.bin in <records-dir>): the same bytes the JMH benchmark
 *                 parses, decoded field by field from sample_type with every length checked
 *                 against the record's size, as PerfRecordCursor and perf's evsel__parse_sample
 *                 do, and consumed as the benchmark consumes them.
 *
 * usage: perf_loop <records-dir> [scale] [runs]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static volatile uint64_t sink;

static void die(const char *what) {
    fprintf(stderr, "perf_loop: %s: %s\n", what, strerror(errno));
    exit(1);
}

static int perf_open(uint32_t type, uint64_t config, int disabled) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = type;
    a.config = config;
    a.disabled = disabled;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
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

/* One timed run: `calls` calls of fn, each doing `per_call` operations. */
typedef void (*op_fn)(void);

static double run_once(op_fn f, long calls, long per_call) {
    op_fn volatile fn = f; /* through a pointer, as the Java side calls through a method handle */
    int64_t t0 = now_ns();
    for (long i = 0; i < calls; i++) {
        fn();
    }
    return (double)(now_ns() - t0) / ((double)calls * (double)per_call);
}

static void measure(const char *name, op_fn fn, long calls, long per_call, double scale, int runs) {
    double samples[100], sorted[100];
    long n = (long)(calls * scale);
    if (n < 1) {
        n = 1;
    }
    run_once(fn, n, per_call); /* warm-up: page cache, branch predictors, CPU frequency */
    for (int r = 0; r < runs; r++) {
        samples[r] = run_once(fn, n, per_call);
    }
    memcpy(sorted, samples, sizeof samples[0] * (size_t)runs);
    qsort(sorted, (size_t)runs, sizeof sorted[0], cmp_double);
    double median = runs % 2 ? sorted[runs / 2] : (sorted[runs / 2 - 1] + sorted[runs / 2]) / 2;
    printf("%s\t%ld\t%.3f\t%.3f\t", name, n * per_call, sorted[0], median);
    for (int r = 0; r < runs; r++) {
        printf(r ? ",%.3f" : "%.3f", samples[r]);
    }
    printf("\n");
    fflush(stdout);
}

static void unavailable(const char *name, const char *reason) {
    printf("# %s: not measured here: %s\n", name, reason);
    fflush(stdout);
}

/* --- perfRead ------------------------------------------------------------------------------ */

static int task_clock_fd = -1;

static void op_perf_read(void) {
    uint64_t v;
    if (read(task_clock_fd, &v, sizeof v) != (ssize_t)sizeof v) {
        die("read of the task-clock event");
    }
    sink += v;
}

/* --- rdpmc --------------------------------------------------------------------------------- */

static volatile struct perf_event_mmap_page *user_page;
static sigjmp_buf rdpmc_fault;

static inline uint64_t rdpmc(uint32_t counter) {
    uint32_t lo, hi;
    __asm__ __volatile__("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
    return ((uint64_t)hi << 32) | lo;
}

static inline uint64_t rdtsc(void) {
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

#define barrier() __asm__ __volatile__("" ::: "memory")

/* The header comment's loop, with the times advanced as PerfUserPage.selfRead does. */
static void op_rdpmc(void) {
    volatile struct perf_event_mmap_page *pc = user_page;
    uint32_t seq;
    uint64_t count, enabled, running;
    do {
        seq = pc->lock;
        barrier();
        enabled = pc->time_enabled;
        running = pc->time_running;
        if (pc->cap_user_time && enabled != running) {
            uint64_t cyc = rdtsc();
            if (pc->cap_user_time_short) {
                cyc = pc->time_cycles + ((cyc - pc->time_cycles) & pc->time_mask);
            }
            uint64_t quot = cyc >> pc->time_shift;
            uint64_t rem = cyc & (((uint64_t)1 << pc->time_shift) - 1);
            uint64_t delta = pc->time_offset + quot * pc->time_mult + ((rem * pc->time_mult) >> pc->time_shift);
            enabled += delta;
            running += delta;
        }
        uint32_t index = pc->index;
        count = (uint64_t)pc->offset;
        if (pc->cap_user_rdpmc && index) {
            int shift = 64 - pc->pmc_width;
            int64_t pmc = (int64_t)(rdpmc(index - 1) << shift) >> shift;
            count += (uint64_t)pmc;
        }
        barrier();
    } while (pc->lock != seq);
    sink += count + enabled + running;
}

static void on_fault(int sig) {
    (void)sig;
    siglongjmp(rdpmc_fault, 1);
}

/* Measures rdpmc, or prints why it cannot be here. Never executes RDPMC unless the page allows it. */
static void rdpmc_op(double scale, int runs) {
    char why[256];
    int fd = perf_open(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 0);
    if (fd < 0) {
        snprintf(why, sizeof why, "perf_event_open of HARDWARE instructions: %s (%s)", strerror(errno),
                 errno == ENOENT || errno == EOPNOTSUPP ? "no hardware PMU" : "refused");
        unavailable("rdpmc", why);
        return;
    }
    long page = sysconf(_SC_PAGESIZE);
    void *m = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, fd, 0);
    if (m == MAP_FAILED) {
        snprintf(why, sizeof why, "mmap of the event's user page: %s", strerror(errno));
        unavailable("rdpmc", why);
        close(fd);
        return;
    }
    user_page = m;
    if (!user_page->cap_bit0_is_deprecated || !user_page->cap_user_rdpmc) {
        unavailable("rdpmc", "cap_user_rdpmc = 0 in the perf user page (/sys/bus/event_source/devices/cpu/rdpmc = 0?)");
    } else if (user_page->index == 0) {
        unavailable("rdpmc", "index = 0 in the perf user page: the event is not on a hardware counter");
    } else {
        struct sigaction sa, old_segv, old_ill;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fault;
        sigaction(SIGSEGV, &sa, &old_segv);
        sigaction(SIGILL, &sa, &old_ill);
        if (sigsetjmp(rdpmc_fault, 1) == 0) {
            measure("rdpmc", op_rdpmc, 2000000, 1, scale, runs);
        } else {
            unavailable("rdpmc", "RDPMC faulted although the user page allowed it (CR4.PCE clear?)");
        }
        sigaction(SIGSEGV, &old_segv, NULL);
        sigaction(SIGILL, &old_ill, NULL);
    }
    munmap(m, (size_t)page);
    close(fd);
}

/* --- parsing ------------------------------------------------------------------------------- */

struct buffer {
    const uint8_t *data;
    size_t len;
    uint64_t sample_type;
    uint64_t branch_sample_type;
    long records;
};

static struct buffer cur;

struct sample {
    uint64_t ip, time, period, nr, hw_idx;
    uint32_t pid, tid, cpu;
    const uint8_t *branches;
};

static inline uint64_t u64_at(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8); /* x86-64 is little-endian, as perf data */
    return v;
}

static inline uint32_t u32_at(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void bad(size_t at, const char *what) {
    fprintf(stderr, "perf_loop: malformed record at %zu: %s\n", at, what);
    exit(1);
}

/* The fields of one sample, in perf_output_sample's order; returns 0 when one does not fit. */
static inline int parse_sample(const uint8_t *p, const uint8_t *limit, uint64_t st, uint64_t bst, struct sample *s) {
#define NEED(n) do { if ((size_t)(limit - p) < (size_t)(n)) return 0; } while (0)
    memset(s, 0, sizeof *s);
    if (st & PERF_SAMPLE_IDENTIFIER) { NEED(8); p += 8; }
    if (st & PERF_SAMPLE_IP) { NEED(8); s->ip = u64_at(p); p += 8; }
    if (st & PERF_SAMPLE_TID) { NEED(8); s->pid = u32_at(p); s->tid = u32_at(p + 4); p += 8; }
    if (st & PERF_SAMPLE_TIME) { NEED(8); s->time = u64_at(p); p += 8; }
    if (st & PERF_SAMPLE_ADDR) { NEED(8); p += 8; }
    if (st & PERF_SAMPLE_ID) { NEED(8); p += 8; }
    if (st & PERF_SAMPLE_STREAM_ID) { NEED(8); p += 8; }
    if (st & PERF_SAMPLE_CPU) { NEED(8); s->cpu = u32_at(p); p += 8; }
    if (st & PERF_SAMPLE_PERIOD) { NEED(8); s->period = u64_at(p); p += 8; }
    if (st & PERF_SAMPLE_CALLCHAIN) {
        NEED(8);
        uint64_t nr = u64_at(p);
        p += 8;
        if (nr > (uint64_t)(limit - p) / 8) return 0;
        p += nr * 8;
    }
    if (st & PERF_SAMPLE_BRANCH_STACK) {
        NEED(8);
        s->nr = u64_at(p);
        p += 8;
        if (s->nr && (bst & PERF_SAMPLE_BRANCH_HW_INDEX)) { NEED(8); s->hw_idx = u64_at(p); p += 8; }
        if (s->nr > (uint64_t)(limit - p) / 24) return 0;
        s->branches = p;
        p += s->nr * 24;
    }
#undef NEED
    return 1;
}

static void op_parse(void) {
    const uint8_t *d = cur.data;
    size_t len = cur.len, pos = 0;
    uint64_t st = cur.sample_type, bst = cur.branch_sample_type, sum = 0;
    long n = 0;
    while (pos < len) {
        if (len - pos < 8) bad(pos, "less than a header left");
        uint32_t type = u32_at(d + pos);
        uint16_t size;
        memcpy(&size, d + pos + 6, 2);
        if (size < 8 || size > len - pos) bad(pos, "size out of range");
        if (type == PERF_RECORD_SAMPLE) {
            struct sample s;
            if (!parse_sample(d + pos + 8, d + pos + size, st, bst, &s)) bad(pos, "a field does not fit");
            sum += (s.ip ^ s.time) + s.tid + s.cpu + s.period;
            for (uint64_t i = 0; i < s.nr; i++) {
                const uint8_t *e = s.branches + 24 * i;
                sum += u64_at(e) ^ u64_at(e + 8) ^ u64_at(e + 16);
            }
        }
        pos += size;
        n++;
    }
    if (n != cur.records) bad(pos, "record count differs from the file's");
    sink += sum;
}

static int load(const char *dir, const char *file, struct buffer *b) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat st;
    if (fstat(fd, &st) < 0) die(path);
    uint8_t *d = aligned_alloc(64, ((size_t)st.st_size + 63) / 64 * 64);
    if (!d) die("aligned_alloc");
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t k = read(fd, d + got, (size_t)st.st_size - got);
        if (k <= 0) die(path);
        got += (size_t)k;
    }
    close(fd);
    b->data = d;
    b->len = got;
    return 1;
}

/* Mirrors PerfRecordBuffers.Kind: file, sample_type, branch_sample_type, records. */
struct parse_op {
    const char *name;
    const char *file;
    uint64_t sample_type;
    uint64_t branch_sample_type;
    long records;
    long passes; /* per timed run: about 0.1-0.3 s on this VM */
};

#define PLAIN_ST (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU | PERF_SAMPLE_PERIOD)
#define BRANCH_BST (PERF_SAMPLE_BRANCH_ANY | PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_HW_INDEX)

static const struct parse_op PARSE_OPS[] = {
    {"parsePlain", "records-plain.bin", PLAIN_ST, 0, 8192, 4000},
    {"parseBranch16", "records-branch16.bin", PLAIN_ST | PERF_SAMPLE_BRANCH_STACK, BRANCH_BST, 1024, 10000},
    {"parseBranch32", "records-branch32.bin", PLAIN_ST | PERF_SAMPLE_BRANCH_STACK, BRANCH_BST, 512, 10000},
};

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s <records-dir> [scale] [runs]\n", argv[0]);
        return 2;
    }
    double scale = argc > 2 ? atof(argv[2]) : 1.0;
    int runs = argc > 3 ? atoi(argv[3]) : 5;
    if (scale <= 0 || runs < 1 || runs > 100) {
        fprintf(stderr, "perf_loop: scale must be > 0 and runs in 1..100\n");
        return 2;
    }

    task_clock_fd = perf_open(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1);
    if (task_clock_fd < 0) {
        char why[256];
        snprintf(why, sizeof why, "perf_event_open of task-clock: %s", strerror(errno));
        unavailable("perfRead", why);
    } else {
        if (ioctl(task_clock_fd, PERF_EVENT_IOC_ENABLE, 0) < 0) die("PERF_EVENT_IOC_ENABLE");
        measure("perfRead", op_perf_read, 400000, 1, scale, runs);
        close(task_clock_fd);
    }

    rdpmc_op(scale, runs);

    for (size_t k = 0; k < sizeof PARSE_OPS / sizeof PARSE_OPS[0]; k++) {
        const struct parse_op *op = &PARSE_OPS[k];
        if (!load(argv[1], op->file, &cur)) {
            char why[4200];
            snprintf(why, sizeof why, "%s/%s: %s (run dev.hwtool.bench.PerfRecordBuffers first)", argv[1], op->file,
                     strerror(errno));
            unavailable(op->name, why);
            continue;
        }
        cur.sample_type = op->sample_type;
        cur.branch_sample_type = op->branch_sample_type;
        cur.records = op->records;
        measure(op->name, op_parse, op->passes, op->records, scale, runs);
        free((void *)cur.data);
    }
    return 0;
}
