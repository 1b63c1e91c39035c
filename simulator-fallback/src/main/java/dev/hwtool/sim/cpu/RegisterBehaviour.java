package dev.hwtool.sim.cpu;

import dev.hwtool.arch.decode.Identity;
import dev.hwtool.arch.msr.MsrDef;

/**
 * How a catalogued register that no unit owns answers RDMSR and WRMSR in the simulator,
 * beyond "store the value": chosen from the register's catalog name, so the catalog stays the
 * one list of registers. Registers whose value a unit holds (LBR, BTS, counters) are attached
 * to that unit instead ({@link RegisterFile#attach}).
 */
record RegisterBehaviour(Kind kind, long milliwatts, String source) {

    RegisterBehaviour(Kind kind) {
        this(kind, 0, "");
    }

    RegisterBehaviour(Kind kind, long milliwatts) {
        this(kind, milliwatts, "");
    }


    enum Kind {
        /** A value in the register file; RO fields keep theirs, WO fields read 0, W1C fields clear on 1. */
        STORED,
        /** IA32_TIME_STAMP_COUNTER: the simulated clock plus a per-CPU offset that WRMSR sets (SDM Vol. 3B 17.17). */
        TIME_STAMP,
        /**
         * AMD's TSC_AUX: bits 63:32 are ignored and read as zero rather than faulting — KVM's
         * __kvm_set_msr (arch/x86/kvm/x86.c, MSR_TSC_AUX): "Current AMD CPUs completely ignore
         * bits 63:32, i.e. they aren't reserved and always read as zeros".
         */
        LOW_HALF_ONLY,
        /**
         * A RAPL energy status register (read-only, so WRMSR #GPs before reaching it): the energy
         * a domain drawing {@link #milliwatts} has used since reset, from the simulated clock
         * ({@link RaplModel}).
         */
        ENERGY,
        /**
         * AMD's MPerfReadOnly/APerfReadOnly (APM Vol. 2 chapter 17, effective frequency): the
         * value of the register named {@link #source} (IA32_MPERF/IA32_APERF), read-only.
         */
        MIRROR
    }

    static final String TSC = "IA32_TIME_STAMP_COUNTER";
    static final String TSC_AUX = "IA32_TSC_AUX";
    static final String MPERF_RO = "MPerfReadOnly";
    static final String APERF_RO = "APerfReadOnly";

    private static final RegisterBehaviour STORED_VALUE = new RegisterBehaviour(Kind.STORED);

    /** The behaviour of {@code def} on a CPU of that vendor. */
    static RegisterBehaviour of(MsrDef def, Identity vendor) {
        return switch (def.name()) {
            case TSC -> new RegisterBehaviour(Kind.TIME_STAMP);
            case TSC_AUX -> vendor.isAmd() ? new RegisterBehaviour(Kind.LOW_HALF_ONLY) : STORED_VALUE;
            case RaplModel.PKG, RaplModel.PP0, RaplModel.PP1, RaplModel.DRAM, RaplModel.AMD_PKG, RaplModel.AMD_CORE ->
                    new RegisterBehaviour(Kind.ENERGY, RaplModel.milliwatts(def.name()));
            case MPERF_RO -> new RegisterBehaviour(Kind.MIRROR, 0, "IA32_MPERF");
            case APERF_RO -> new RegisterBehaviour(Kind.MIRROR, 0, "IA32_APERF");
            default -> STORED_VALUE;
        };
    }
}
