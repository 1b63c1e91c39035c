package dev.hwtool.api;

import dev.hwtool.arch.perf.PerfBranchSample;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The branch filters {@code hwtool lbr record --filter} offers, and the
 * perf_event_attr.branch_sample_type bits each one asks for (include/uapi/linux/perf_event.h;
 * the privilege bits USER/KERNEL are added separately from the request's privilege).
 */
public enum BranchFilter {
    /** Every taken branch. */
    ANY("any", PerfBranchSample.ANY),
    /** Calls of every kind: direct, indirect, far (syscall). */
    CALL("call", PerfBranchSample.ANY_CALL),
    /** Returns of every kind. */
    RETURN("return", PerfBranchSample.ANY_RETURN),
    /** Conditional branches. */
    COND("cond", PerfBranchSample.COND),
    /** Indirect calls. */
    IND_CALL("ind-call", PerfBranchSample.IND_CALL),
    /**
     * The LBR call-stack mode (Haswell+, SDM 18.11.1.2 / arch LBR): calls are pushed and
     * popped by their returns, so the stack holds the current call chain.
     */
    CALL_STACK("call-stack", PerfBranchSample.CALL_STACK);

    private final String cliName;
    private final long branchSampleType;

    BranchFilter(String cliName, long branchSampleType) {
        this.cliName = cliName;
        this.branchSampleType = branchSampleType;
    }

    /** The name on the command line. */
    public String cliName() {
        return cliName;
    }

    /** The perf_event_attr.branch_sample_type bits, without privilege bits. */
    public long branchSampleType() {
        return branchSampleType;
    }

    public static Optional<BranchFilter> byName(String name) {
        return Arrays.stream(values()).filter(f -> f.cliName.equals(name)).findFirst();
    }

    /** "any|call|return|cond|ind-call|call-stack", for usage text and errors. */
    public static String names() {
        return Arrays.stream(values()).map(BranchFilter::cliName).collect(Collectors.joining("|"));
    }
}
