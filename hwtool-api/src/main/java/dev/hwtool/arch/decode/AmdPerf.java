package dev.hwtool.arch.decode;

/**
 * AMD's performance-monitoring and branch-recording facilities as CPUID enumerates them (AMD APM
 * Vol. 3 (24594) Appendix E; the Linux names in arch/x86/include/asm/cpufeatures.h and
 * arch/x86/kernel/cpu/scattered.c). All false/0 on other vendors: these leaves and bits are
 * AMD's (Intel reserves them).
 *
 * @param present        CPUID.0 vendor is AuthenticAMD
 * @param perfCtrExtCore Fn8000_0001_ECX[23] PerfCtrExtCore: six core counters at C001_0200H (X86_FEATURE_PERFCTR_CORE)
 * @param ibs            Fn8000_0001_ECX[10] IBS: instruction-based sampling (X86_FEATURE_IBS)
 * @param ibsFeatures    Fn8000_001B_EAX, IBS capabilities (0 when the leaf is absent or IBS is clear)
 * @param brs            Fn8000_0008_EBX[31] BRS: Zen 3 branch sampling (X86_FEATURE_BRS)
 * @param perfMonV2      Fn8000_0022_EAX[0] PerfMonV2 (X86_FEATURE_PERFMON_V2)
 * @param lbrExtV2       Fn8000_0022_EAX[1] LbrExtV2, the Zen 4 LBR stack (X86_FEATURE_AMD_LBR_V2)
 * @param lbrPmcFreeze   Fn8000_0022_EAX[2] LbrAndPmcFreeze (X86_FEATURE_AMD_LBR_PMC_FREEZE)
 * @param coreCounters   Fn8000_0022_EBX[3:0] NumPerfCtrCore with PerfMonV2, else 6 with PerfCtrExtCore, else 4
 * @param lbrV2Depth     Fn8000_0022_EBX[9:4] LbrV2StackSz (perf_event.h cpuid_0x80000022_ebx.lbr_v2_stack_sz)
 */
public record AmdPerf(boolean present, boolean perfCtrExtCore, boolean ibs, int ibsFeatures, boolean brs,
                      boolean perfMonV2, boolean lbrExtV2, boolean lbrPmcFreeze, int coreCounters, int lbrV2Depth) {

    public static final AmdPerf NONE = new AmdPerf(false, false, false, 0, false, false, false, false, 0, 0);

    /** The BRS depth Linux drives (arch/x86/events/amd/brs.c amd_brs_detect: x86_pmu.lbr_nr = 16). */
    public static final int BRS_DEPTH = 16;
}
