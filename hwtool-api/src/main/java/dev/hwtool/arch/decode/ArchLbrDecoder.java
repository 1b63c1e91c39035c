package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidReader;

import java.util.ArrayList;
import java.util.List;

/**
 * Decodes architectural LBR: CPUID.(07H,0):EDX[19] and leaf 1CH (arch/x86/events/intel/lbr.c;
 * Linux arch/x86/events/intel/lbr.c intel_pmu_arch_lbr_init). Like Linux, arch LBR counts as
 * supported only when leaf 1CH is in range and enumerates at least one depth: Linux clears
 * X86_FEATURE_ARCH_LBR when fls(EAX[7:0])·8 is 0.
 */
public final class ArchLbrDecoder {

    private static final int LEAF = 0x1C;
    private static final int DEPTH_BITS = 8;
    private static final int DEPTH_STEP = 8;

    private ArchLbrDecoder() {
    }

    public static ArchLbr decode(CpuidReader reader) {
        return decode(GuardedCpuid.over(reader));
    }

    static ArchLbr decode(GuardedCpuid c) {
        if (!c.flag(CpuidBit.ARCH_LBR) || !c.has(LEAF)) {
            return ArchLbr.NONE;
        }
        List<Integer> depths = depths(c.field(CpuidField.ARCH_LBR_DEPTH_MASK));
        if (depths.isEmpty()) {
            return ArchLbr.NONE;
        }
        return new ArchLbr(true, depths,
                c.flag(CpuidBit.ARCH_LBR_DEEP_C_RESET),
                c.flag(CpuidBit.ARCH_LBR_LIP),
                c.flag(CpuidBit.ARCH_LBR_CPL_FILTER),
                c.flag(CpuidBit.ARCH_LBR_BRANCH_FILTER),
                c.flag(CpuidBit.ARCH_LBR_CALL_STACK),
                c.flag(CpuidBit.ARCH_LBR_MISPREDICT),
                c.flag(CpuidBit.ARCH_LBR_TIMED),
                c.flag(CpuidBit.ARCH_LBR_BRANCH_TYPE));
    }

    /** EAX[7:0]: bit n set → depth 8·(n+1) supported, ascending. */
    static List<Integer> depths(int mask) {
        List<Integer> d = new ArrayList<>();
        for (int n = 0; n < DEPTH_BITS; n++) {
            if (((mask >>> n) & 1) != 0) {
                d.add(DEPTH_STEP * (n + 1));
            }
        }
        return List.copyOf(d);
    }
}
