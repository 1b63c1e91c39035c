package dev.hwtool.arch.msr;

import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.cpuid.CpuidRegs;

/**
 * AMD bare-metal CPUs for tests, made from the shipped EPYC guest dump (the project has no real
 * Zen dump) by setting the CPUID bits the AMD APM Vol. 3 Appendix E and Linux define, so each test
 * says which flag it relies on. They are not dumps of real parts: the flags are chosen, each one
 * named below, and everything else is the guest's.
 */
final class AmdCpus {

    /** CPUID Fn0000_0001_EAX of family 19h model 11h (Zen 4, Genoa) and model 01h (Zen 3, Milan), stepping 1. */
    static final int ZEN4_SIGNATURE = 0x00A1_0F11;
    static final int ZEN3_SIGNATURE = 0x00A0_0F11;

    private AmdCpus() {
    }

    /**
     * Zen 4: APERFMPERF (06H:ECX[0]), IBS and PerfCtrExtCore (80000001H:ECX[10], [23]), HwPstate,
     * CPB, EffFreqRO, RAPL (80000007H:EDX[7], [9], [10], [14]), IRPERF (80000008H:EBX[1]),
     * PerfMonV2, LbrExtV2, LbrAndPmcFreeze (80000022H:EAX[2:0]) with NumPerfCtrCore 6 and
     * LbrV2StackSz 16 (80000022H:EBX[3:0], [9:4]).
     */
    static CpuContext zen4() {
        return build(ZEN4_SIGNATURE, 0, 0b111, 6 | 16 << 4);
    }

    /** Zen 3 with BRS (80000008H:EBX[31]) and no leaf 80000022H; otherwise as {@link #zen4()}. */
    static CpuContext zen3() {
        return build(ZEN3_SIGNATURE, 1 << 31, 0, 0);
    }

    /** Zen 4 flags with {@code eax}/{@code ebx} as leaf 80000022H. */
    static CpuContext zen4(int leaf22Eax, int leaf22Ebx) {
        return build(ZEN4_SIGNATURE, 0, leaf22Eax, leaf22Ebx);
    }

    static CpuContext build(int signature, int extraExt8Ebx, int leaf22Eax, int leaf22Ebx) {
        CpuidReader guest = ShippedCpus.cpu("amd-epyc-kvm-guest.cpuid-r.txt").cpuid();
        boolean leaf22 = leaf22Eax != 0 || leaf22Ebx != 0;
        CpuidReader r = (leaf, sub) -> {
            CpuidRegs g = guest.cpuid(leaf, sub);
            return switch (leaf) {
                // bare metal: no hypervisor bit
                case 0x1 -> new CpuidRegs(signature, g.ebx(), g.ecx() & ~(1 << 31), g.edx());
                case 0x6 -> new CpuidRegs(g.eax(), g.ebx(), g.ecx() | 1, g.edx());
                case 0x8000_0000 -> new CpuidRegs(leaf22 ? 0x8000_0022 : g.eax(), g.ebx(), g.ecx(), g.edx());
                case 0x8000_0001 -> new CpuidRegs(signature, g.ebx(), g.ecx() | 1 << 10 | 1 << 23, g.edx());
                case 0x8000_0007 -> new CpuidRegs(g.eax(), g.ebx(), g.ecx(),
                        g.edx() | 1 << 7 | 1 << 9 | 1 << 10 | 1 << 14);
                case 0x8000_0008 -> new CpuidRegs(g.eax(), g.ebx() | 1 << 1 | extraExt8Ebx, g.ecx(), g.edx());
                case 0x8000_0022 -> new CpuidRegs(leaf22Eax, leaf22Ebx, 0, 0);
                default -> g;
            };
        };
        return CpuContext.of(r);
    }
}
