package dev.hwtool.sim;

import dev.hwtool.arch.decode.Identity;
import dev.hwtool.arch.msr.MsrDef;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How one catalogued register answers RDMSR and WRMSR in the simulator, beyond "store the
 * value": chosen from the register's catalog name, so the catalog stays the one list of
 * registers and this is the one list of side effects.
 *
 * @param counter the counter index for {@link Kind#LEGACY_PMC} and {@link Kind#FULL_WIDTH_PMC},
 *                the entry index for {@link Kind#ARCH_LBR_ENTRY}; -1 otherwise
 */
record RegisterBehaviour(Kind kind, int counter) {

    enum Kind {
        /** A value in the register file; RO fields keep theirs, WO fields read 0, W1C fields clear on 1. */
        STORED,
        /** IA32_TIME_STAMP_COUNTER: the simulated clock plus a per-CPU offset that WRMSR sets (SDM Vol. 3B 17.17). */
        TIME_STAMP,
        /** IA32_PERF_GLOBAL_OVF_CTRL / _STATUS_RESET: a 1 clears that IA32_PERF_GLOBAL_STATUS bit (SDM Vol. 3B 18.2.4.2 in the seeds' edition). */
        STATUS_RESET,
        /** IA32_PERF_GLOBAL_STATUS_SET (v4+): a 1 sets that IA32_PERF_GLOBAL_STATUS bit (SDM Vol. 3B 18.2.4.2 in the seeds' edition). */
        STATUS_SET,
        /** IA32_PMCx: WRMSR writes the sign-extended EAX, EDX ignored (SDM "Full-Width Writes to Performance Counter Registers"). */
        LEGACY_PMC,
        /** IA32_A_PMCx: the same counter, written full width (PERF_CAPABILITIES.FW_WRITE). */
        FULL_WIDTH_PMC,
        /**
         * AMD's TSC_AUX: bits 63:32 are ignored and read as zero rather than faulting — KVM's
         * __kvm_set_msr (arch/x86/kvm/x86.c, MSR_TSC_AUX): "Current AMD CPUs completely ignore
         * bits 63:32, i.e. they aren't reserved and always read as zeros".
         */
        LOW_HALF_ONLY,
        /**
         * IA32_LBR_DEPTH: only a depth CPUID.1CH:EAX[7:0] enumerates is accepted (#GP otherwise,
         * hardware-facts §3.7), and a write clears every LBR entry (Linux lbr.c
         * intel_pmu_arch_lbr_reset: "Write to ARCH_LBR_DEPTH MSR, all LBR entries are reset to 0").
         */
        ARCH_LBR_DEPTH,
        /** IA32_LBR_x_FROM_IP / _TO_IP / _INFO: stored, and cleared by a write of IA32_LBR_DEPTH. */
        ARCH_LBR_ENTRY
    }

    static final String TSC = "IA32_TIME_STAMP_COUNTER";
    static final String GLOBAL_STATUS = "IA32_PERF_GLOBAL_STATUS";
    static final String GLOBAL_STATUS_RESET = "IA32_PERF_GLOBAL_OVF_CTRL";
    static final String GLOBAL_STATUS_SET = "IA32_PERF_GLOBAL_STATUS_SET";
    static final String TSC_AUX = "IA32_TSC_AUX";
    static final String ARCH_LBR_DEPTH = "IA32_LBR_DEPTH";

    private static final Pattern PMC = Pattern.compile("IA32_(A_)?PMC(\\d+)");
    private static final Pattern ARCH_LBR = Pattern.compile("IA32_LBR_(\\d+)_(FROM_IP|TO_IP|INFO)");
    private static final RegisterBehaviour STORED_VALUE = new RegisterBehaviour(Kind.STORED, -1);

    /** The behaviour of {@code def} on a CPU of that vendor. */
    static RegisterBehaviour of(MsrDef def, Identity vendor) {
        Matcher m = PMC.matcher(def.name());
        if (m.matches()) {
            int index = Integer.parseInt(m.group(2));
            return new RegisterBehaviour(m.group(1) == null ? Kind.LEGACY_PMC : Kind.FULL_WIDTH_PMC, index);
        }
        Matcher lbr = ARCH_LBR.matcher(def.name());
        if (lbr.matches()) {
            return new RegisterBehaviour(Kind.ARCH_LBR_ENTRY, Integer.parseInt(lbr.group(1)));
        }
        return switch (def.name()) {
            case ARCH_LBR_DEPTH -> new RegisterBehaviour(Kind.ARCH_LBR_DEPTH, -1);
            case TSC -> new RegisterBehaviour(Kind.TIME_STAMP, -1);
            case GLOBAL_STATUS_RESET -> new RegisterBehaviour(Kind.STATUS_RESET, -1);
            case GLOBAL_STATUS_SET -> new RegisterBehaviour(Kind.STATUS_SET, -1);
            case TSC_AUX -> vendor.isAmd() ? new RegisterBehaviour(Kind.LOW_HALF_ONLY, -1) : STORED_VALUE;
            default -> STORED_VALUE;
        };
    }
}
