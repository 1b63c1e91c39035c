package dev.hwtool.arch.perf;

/** perf_event_attr.branch_sample_type bits (enum perf_branch_sample_type), include/uapi/linux/perf_event.h. */
public final class PerfBranchSample {
    public static final long USER = 1L << 0;
    public static final long KERNEL = 1L << 1;
    public static final long HV = 1L << 2;
    public static final long ANY = 1L << 3;
    public static final long ANY_CALL = 1L << 4;
    public static final long ANY_RETURN = 1L << 5;
    public static final long IND_CALL = 1L << 6;
    public static final long ABORT_TX = 1L << 7;
    public static final long IN_TX = 1L << 8;
    public static final long NO_TX = 1L << 9;
    public static final long COND = 1L << 10;
    public static final long CALL_STACK = 1L << 11;
    public static final long IND_JUMP = 1L << 12;
    public static final long CALL = 1L << 13;
    public static final long NO_FLAGS = 1L << 14;
    public static final long NO_CYCLES = 1L << 15;
    public static final long TYPE_SAVE = 1L << 16;
    /** The sample's branch stack carries hw_idx after nr. */
    public static final long HW_INDEX = 1L << 17;
    /** 6.1+. */
    public static final long PRIV_SAVE = 1L << 18;
    /** 6.8+: the sample's branch stack carries u64 cntr[nr] after the entries. */
    public static final long COUNTERS = 1L << 19;
    /** PERF_SAMPLE_BRANCH_PLM_ALL. */
    public static final long PLM_ALL = USER | KERNEL | HV;

    private PerfBranchSample() {
    }
}
