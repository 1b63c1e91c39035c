package dev.hwtool.api;

/** The facilities hwtool judges, in the order verdicts are reported. */
public enum Facility {
    CPUID("CPUID"),
    MSR_READ("MSR read"),
    MSR_WRITE("MSR write"),
    LBR_PERF("LBR via perf"),
    BTS_PERF("BTS via perf"),
    HW_COUNTERS("hardware counters"),
    RDPMC("rdpmc"),
    /** Precise event-based sampling (precise_ip above 0), which Intel serves through PEBS. */
    PEBS_PERF("PEBS via perf");

    private final String label;

    Facility(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }
}
