package dev.hwtool.arch.branch;

import dev.hwtool.arch.perf.PerfBranchSample;

import java.util.OptionalLong;

/**
 * How Linux turns perf_event_attr.branch_sample_type into the LBR filter register, as data: the
 * per-model maps of arch/x86/events/intel/lbr.c ({@code nhm_lbr_sel_map}, {@code snb_lbr_sel_map},
 * {@code hsw_lbr_sel_map}, {@code arch_lbr_ctl_map}) and intel_pmu_setup_hw_lbr_filter, which ORs
 * the map entry of every requested bit and returns EOPNOTSUPP for an entry LBR_NOT_SUPP.
 *
 * <p>MSR_LBR_SELECT bits 0–8 <em>suppress</em> (SDM Vol. 3B Table 17-13), so the kernel writes
 * {@code mask ^ (LBR_SEL_MASK & ~LBR_CALL_STACK)}: the inverted mask for the suppress bits, the
 * call-stack enable (bit 9) as is. IA32_LBR_CTL bits <em>enable</em>, so the arch map's mask is
 * written unchanged (intel_pmu_lbr_enable: {@code lbr_ctl | ARCH_LBR_CTL_LBREN}). A map without a
 * bit's entry ignores it (LBR_IGN), e.g. HV, or NO_FLAGS/TYPE_SAVE/HW_INDEX, which are not filters.
 * Core 2 and Bonnell have no LBR_SELECT (x86_pmu.lbr_sel_map is NULL): Linux filters those in
 * software only ({@link #NONE}).
 *
 * <p>One deliberate difference: the kernel's nhm/snb maps simply have no CALL_STACK (nor, for
 * nhm, CALL) entry, i.e. LBR_IGN, and the request would record a plain LBR stack; here those
 * entries are LBR_NOT_SUPP, so that asking for a call stack on a model without call-stack mode
 * fails (as on a kernel built without the map entry) instead of returning something else.
 */
public enum LinuxLbrFilterMap {
    /** No LBR_SELECT (Core, Bonnell): intel_pmu_lbr_init_core / _atom set no lbr_sel_map. */
    NONE(new long[0], false),
    /**
     * nhm_lbr_sel_map (Nehalem, Westmere, Silvermont): with the Nehalem/Westmere errata workarounds
     * (calls need REL_JMP|IND_JMP, indirect calls need IND_JMP).
     */
    NHM(map(new long[][] {
            {PerfBranchSample.ANY, Legacy.ANY},
            {PerfBranchSample.USER, Legacy.USER},
            {PerfBranchSample.KERNEL, Legacy.KERNEL},
            {PerfBranchSample.ANY_RETURN, Legacy.RETURN | Legacy.REL_JMP | Legacy.IND_JMP | Legacy.FAR},
            {PerfBranchSample.ANY_CALL, Legacy.REL_CALL | Legacy.IND_CALL | Legacy.REL_JMP | Legacy.IND_JMP | Legacy.FAR},
            {PerfBranchSample.IND_CALL, Legacy.IND_CALL | Legacy.IND_JMP},
            {PerfBranchSample.COND, Legacy.JCC},
            {PerfBranchSample.IND_JUMP, Legacy.IND_JMP},
            {PerfBranchSample.CALL_STACK, Legacy.NOT_SUPP},
            {PerfBranchSample.CALL, Legacy.NOT_SUPP}}), false),
    /** snb_lbr_sel_map (Sandy Bridge, Ivy Bridge, Goldmont): no call-stack mode. */
    SNB(map(snbEntries(Legacy.NOT_SUPP)), false),
    /** hsw_lbr_sel_map (Haswell and later legacy LBR): snb's plus LBR_CALL_STACK. */
    HSW(map(snbEntries(Legacy.REL_CALL | Legacy.IND_CALL | Legacy.RETURN | Legacy.CALL_STACK)), false),
    /** arch_lbr_ctl_map (architectural LBR, IA32_LBR_CTL). */
    ARCH(map(new long[][] {
            {PerfBranchSample.ANY, Arch.ANY},
            {PerfBranchSample.USER, Arch.USER},
            {PerfBranchSample.KERNEL, Arch.KERNEL},
            {PerfBranchSample.ANY_RETURN, Arch.RETURN | Arch.OTHER_BRANCH},
            {PerfBranchSample.ANY_CALL, Arch.REL_CALL | Arch.IND_CALL | Arch.OTHER_BRANCH},
            {PerfBranchSample.IND_CALL, Arch.IND_CALL},
            {PerfBranchSample.COND, Arch.JCC},
            {PerfBranchSample.CALL_STACK, Arch.REL_CALL | Arch.IND_CALL | Arch.RETURN | Arch.CALL_STACK},
            {PerfBranchSample.IND_JUMP, Arch.IND_JMP},
            {PerfBranchSample.CALL, Arch.REL_CALL}}), true);

    /** MSR_LBR_SELECT bits (lbr.c LBR_*_BIT; SDM Table 17-13): 0–8 suppress, 9 enables call-stack mode. */
    public static final class Legacy {
        public static final long KERNEL = 1L << 0;
        public static final long USER = 1L << 1;
        public static final long JCC = 1L << 2;
        public static final long REL_CALL = 1L << 3;
        public static final long IND_CALL = 1L << 4;
        public static final long RETURN = 1L << 5;
        public static final long IND_JMP = 1L << 6;
        public static final long REL_JMP = 1L << 7;
        public static final long FAR = 1L << 8;
        public static final long CALL_STACK = 1L << 9;
        /** LBR_NOT_SUPP: the map entry of a filter the model cannot do. */
        public static final long NOT_SUPP = -1L;
        /** LBR_SEL_MASK: the register's valid bits. */
        public static final long SEL_MASK = 0x3FF;
        public static final long ANY = JCC | REL_CALL | IND_CALL | RETURN | REL_JMP | IND_JMP | FAR;

        private Legacy() {
        }
    }

    /** IA32_LBR_CTL bits (lbr.c ARCH_LBR_*_BIT): all enable. */
    public static final class Arch {
        public static final long LBREN = 1L;
        public static final long KERNEL = 1L << 1;
        public static final long USER = 1L << 2;
        public static final long CALL_STACK = 1L << 3;
        public static final long JCC = 1L << 16;
        public static final long REL_JMP = 1L << 17;
        public static final long IND_JMP = 1L << 18;
        public static final long REL_CALL = 1L << 19;
        public static final long IND_CALL = 1L << 20;
        public static final long RETURN = 1L << 21;
        public static final long OTHER_BRANCH = 1L << 22;
        public static final long ANY = JCC | REL_JMP | IND_JMP | REL_CALL | IND_CALL | RETURN | OTHER_BRANCH;

        private Arch() {
        }
    }

    private static long[][] snbEntries(long callStack) {
        return new long[][] {
                {PerfBranchSample.ANY, Legacy.ANY},
                {PerfBranchSample.USER, Legacy.USER},
                {PerfBranchSample.KERNEL, Legacy.KERNEL},
                {PerfBranchSample.ANY_RETURN, Legacy.RETURN | Legacy.FAR},
                {PerfBranchSample.ANY_CALL, Legacy.REL_CALL | Legacy.IND_CALL | Legacy.FAR},
                {PerfBranchSample.IND_CALL, Legacy.IND_CALL},
                {PerfBranchSample.COND, Legacy.JCC},
                {PerfBranchSample.IND_JUMP, Legacy.IND_JMP},
                {PerfBranchSample.CALL, Legacy.REL_CALL},
                {PerfBranchSample.CALL_STACK, callStack}};
    }

    /** branch_sample_type bit number → entry (0 = LBR_IGN, -1 = LBR_NOT_SUPP). */
    private static long[] map(long[][] entries) {
        long[] m = new long[64];
        for (long[] e : entries) {
            m[Long.numberOfTrailingZeros(e[0])] = e[1];
        }
        return m;
    }

    private final long[] entries;
    private final boolean enables;

    LinuxLbrFilterMap(long[] entries, boolean enables) {
        this.entries = entries;
        this.enables = enables;
    }

    /** Whether the register's bits enable (IA32_LBR_CTL) rather than suppress (MSR_LBR_SELECT). */
    public boolean enables() {
        return enables;
    }

    /** Whether this map can program a hardware filter at all ({@link #NONE} cannot). */
    public boolean hasHardwareFilter() {
        return entries.length > 0;
    }

    /**
     * The OR of the map entries of every bit of {@code branchSampleType}
     * (intel_pmu_setup_hw_lbr_filter's {@code mask}); empty when one of them is LBR_NOT_SUPP,
     * where the kernel returns EOPNOTSUPP.
     */
    public OptionalLong mask(long branchSampleType) {
        long mask = 0;
        for (long b = branchSampleType; b != 0; b &= b - 1) {
            int i = Long.numberOfTrailingZeros(b);
            long v = i < entries.length ? entries[i] : 0;
            if (v == Legacy.NOT_SUPP) {
                return OptionalLong.empty();
            }
            mask |= v;
        }
        return OptionalLong.of(mask);
    }

    /**
     * The value Linux writes to the filter register (MSR_LBR_SELECT, or IA32_LBR_CTL without its
     * LBREn bit) for {@code branchSampleType}; empty for EOPNOTSUPP. Legacy maps invert the
     * suppress bits: {@code mask ^ (LBR_SEL_MASK & ~LBR_CALL_STACK)}.
     */
    public OptionalLong register(long branchSampleType) {
        if (!hasHardwareFilter()) {
            return OptionalLong.empty();
        }
        OptionalLong m = mask(branchSampleType);
        if (m.isEmpty() || enables) {
            return m;
        }
        return OptionalLong.of(m.getAsLong() ^ (Legacy.SEL_MASK & ~Legacy.CALL_STACK));
    }
}
