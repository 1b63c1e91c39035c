package dev.hwtool.arch.perf.abi;

/** perf_event_header.misc bits (PERF_RECORD_MISC_*), include/uapi/linux/perf_event.h. */
public final class PerfRecordMisc {
    public static final int CPUMODE_MASK = 7;
    public static final int CPUMODE_UNKNOWN = 0;
    public static final int KERNEL = 1;
    public static final int USER = 2;
    public static final int HYPERVISOR = 3;
    public static final int GUEST_KERNEL = 4;
    public static final int GUEST_USER = 5;
    /** PERF_RECORD_MISC_PROC_MAP_PARSE_TIMEOUT. */
    public static final int PROC_MAP_PARSE_TIMEOUT = 1 << 12;
    /** On MMAP/MMAP2: a data (non-exec) mapping. Same bit as COMM_EXEC and SWITCH_OUT. */
    public static final int MMAP_DATA = 1 << 13;
    /** On COMM: the name changed because of exec. */
    public static final int COMM_EXEC = 1 << 13;
    /** On SWITCH/SWITCH_CPU_WIDE: a switch out (else in). */
    public static final int SWITCH_OUT = 1 << 13;
    /** On SAMPLE: the ip is the exact instruction (precise_ip). */
    public static final int EXACT_IP = 1 << 14;
    /** On SWITCH out: the task was preempted (still runnable). */
    public static final int SWITCH_OUT_PREEMPT = 1 << 14;
    /** On MMAP2: the record carries a build id instead of maj/min/ino. */
    public static final int MMAP_BUILD_ID = 1 << 14;
    public static final int EXT_RESERVED = 1 << 15;

    private PerfRecordMisc() {
    }
}
