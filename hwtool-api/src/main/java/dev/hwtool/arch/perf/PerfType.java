package dev.hwtool.arch.perf;

/** perf_event_attr.type (enum perf_type_id, include/uapi/linux/perf_event.h). Dynamic PMUs read theirs from sysfs. */
public final class PerfType {
    public static final int HARDWARE = 0;
    public static final int SOFTWARE = 1;
    public static final int TRACEPOINT = 2;
    public static final int HW_CACHE = 3;
    public static final int RAW = 4;
    public static final int BREAKPOINT = 5;

    private PerfType() {
    }

    /** The types the core (CPU) PMU serves: they need a "cpu" PMU (include/uapi/linux/perf_event.h, struct perf_event_attr). */
    public static boolean needsCorePmu(int type) {
        return type == HARDWARE || type == HW_CACHE || type == RAW;
    }
}
