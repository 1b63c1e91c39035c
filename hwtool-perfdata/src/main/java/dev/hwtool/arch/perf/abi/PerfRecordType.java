package dev.hwtool.arch.perf.abi;

/** perf_event_header.type (enum perf_event_type), include/uapi/linux/perf_event.h. */
public final class PerfRecordType {
    public static final int MMAP = 1;
    public static final int LOST = 2;
    public static final int COMM = 3;
    public static final int EXIT = 4;
    public static final int THROTTLE = 5;
    public static final int UNTHROTTLE = 6;
    public static final int FORK = 7;
    public static final int READ = 8;
    public static final int SAMPLE = 9;
    public static final int MMAP2 = 10;
    public static final int AUX = 11;
    public static final int ITRACE_START = 12;
    public static final int LOST_SAMPLES = 13;
    public static final int SWITCH = 14;
    public static final int SWITCH_CPU_WIDE = 15;
    public static final int NAMESPACES = 16;
    public static final int KSYMBOL = 17;
    public static final int BPF_EVENT = 18;
    public static final int CGROUP = 19;
    public static final int TEXT_POKE = 20;
    public static final int AUX_OUTPUT_HW_ID = 21;

    private PerfRecordType() {
    }
}
