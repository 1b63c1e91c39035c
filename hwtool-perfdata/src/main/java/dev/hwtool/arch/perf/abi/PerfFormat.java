package dev.hwtool.arch.perf.abi;

/** perf_event_attr.read_format bits (enum perf_event_read_format), include/uapi/linux/perf_event.h. */
public final class PerfFormat {
    public static final long TOTAL_TIME_ENABLED = 1L << 0;
    public static final long TOTAL_TIME_RUNNING = 1L << 1;
    public static final long ID = 1L << 2;
    public static final long GROUP = 1L << 3;
    /** Linux 6.0+. */
    public static final long LOST = 1L << 4;
    public static final long MAX = 1L << 5;

    private PerfFormat() {
    }
}
