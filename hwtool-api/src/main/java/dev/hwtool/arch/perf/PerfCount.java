package dev.hwtool.arch.perf;

/**
 * Event ids for config: PERF_COUNT_HW_* (enum perf_hw_id, with type HARDWARE) and PERF_COUNT_SW_*
 * (enum perf_sw_ids, with type SOFTWARE), include/uapi/linux/perf_event.h.
 */
public final class PerfCount {
    public static final long HW_CPU_CYCLES = 0;
    public static final long HW_INSTRUCTIONS = 1;
    public static final long HW_CACHE_REFERENCES = 2;
    public static final long HW_CACHE_MISSES = 3;
    /** With sample_period 1 and !freq, the x86 core PMU turns this into BTS (arch/x86/events/perf_event.h, intel_pmu_has_bts_period). */
    public static final long HW_BRANCH_INSTRUCTIONS = 4;
    public static final long HW_BRANCH_MISSES = 5;
    public static final long HW_BUS_CYCLES = 6;
    public static final long HW_STALLED_CYCLES_FRONTEND = 7;
    public static final long HW_STALLED_CYCLES_BACKEND = 8;
    public static final long HW_REF_CPU_CYCLES = 9;

    public static final long SW_CPU_CLOCK = 0;
    public static final long SW_TASK_CLOCK = 1;
    public static final long SW_PAGE_FAULTS = 2;
    public static final long SW_CONTEXT_SWITCHES = 3;
    public static final long SW_CPU_MIGRATIONS = 4;
    public static final long SW_PAGE_FAULTS_MIN = 5;
    public static final long SW_PAGE_FAULTS_MAJ = 6;
    public static final long SW_ALIGNMENT_FAULTS = 7;
    public static final long SW_EMULATION_FAULTS = 8;
    public static final long SW_DUMMY = 9;
    public static final long SW_BPF_OUTPUT = 10;
    public static final long SW_CGROUP_SWITCHES = 11;

    private PerfCount() {
    }
}
