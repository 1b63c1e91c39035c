package dev.hwtool.report;

/** What a branch trace says about a branch's prediction. */
public enum Prediction {
    /** intel_bts: misc bit 4 set (tools/perf/util/intel-bts.c reads it as "predicted"). */
    PREDICTED,
    /** intel_bts: misc bit 4 clear. */
    MISPREDICTED,
    /** The branches-event samples carry no prediction. */
    UNKNOWN
}
