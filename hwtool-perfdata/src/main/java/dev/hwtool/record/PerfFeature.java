package dev.hwtool.record;

/**
 * The perf.data feature sections hwtool writes or reads (enum HEADER_* in tools/perf/util/header.h;
 * the number is the feature's bit in adds_features and fixes its section's place).
 */
enum PerfFeature {
    /** struct perf_header_string: the host name. */
    HOSTNAME(3),
    /** The kernel release (uname -r). */
    OSRELEASE(4),
    /** The writer's version; perf prints it as "perf version". */
    VERSION(5),
    /** uname's machine, "x86_64". */
    ARCH(6),
    /** u32 nr_cpus_avail, u32 nr_cpus_online. */
    NRCPUS(7),
    /** The CPU's brand string. */
    CPUDESC(8),
    /** perf's get_cpuid string, "GenuineIntel,6,85,4". */
    CPUID(9),
    /** u64 MemTotal in KiB. */
    TOTAL_MEM(10),
    /** u32 nr, then nr perf_header_strings: the recording's command line. */
    CMDLINE(11),
    /** u32 nr, u32 attr_size, then per event: attr, u32 nr_ids, string name, u64 ids[nr_ids]. */
    EVENT_DESC(12),
    /** No content: the recording has branch stacks (write_branch_stack); perf report's default branch mode follows it. */
    BRANCH_STACK(15),
    /** u64 first, u64 last sample time. */
    SAMPLE_TIME(21);

    private final int bit;

    PerfFeature(int bit) {
        this.bit = bit;
    }

    int bit() {
        return bit;
    }
}
