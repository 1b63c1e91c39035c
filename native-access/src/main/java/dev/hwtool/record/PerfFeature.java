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
    /** u32 nr, then nr perf_header_strings: the recording's command line. */
    CMDLINE(11),
    /** u32 nr, u32 attr_size, then per event: attr, u32 nr_ids, string name, u64 ids[nr_ids]. */
    EVENT_DESC(12);

    private final int bit;

    PerfFeature(int bit) {
        this.bit = bit;
    }

    int bit() {
        return bit;
    }
}
