package dev.hwtool.arch.msr;

import dev.hwtool.arch.decode.CpuidBit;

import java.util.List;

import static dev.hwtool.arch.msr.Access.RO;
import static dev.hwtool.arch.msr.Access.RW;
import static dev.hwtool.arch.msr.Condition.ALWAYS;
import static dev.hwtool.arch.msr.Fields.bit;
import static dev.hwtool.arch.msr.Fields.sized;

/**
 * Debug and debug-store registers: IA32_DEBUGCTL (SDM Vol. 3B 17.4.1),
 * IA32_MISC_ENABLE (§3.5), IA32_DS_AREA (§3.6).
 */
final class DebugMsrs {

    static final String DEBUGCTL = "IA32_DEBUGCTL";

    static final Condition DS = Condition.cpuid(CpuidBit.DS);
    static final Condition DS_CPL = Condition.cpuid(CpuidBit.DS_CPL);
    static final Condition PDCM = Condition.cpuid(CpuidBit.PDCM);

    private DebugMsrs() {
    }

    static List<MsrDef> defs() {
        return List.of(debugctl(), miscEnable(), dsArea());
    }

    /** SDM Vol. 3B 17.4.1 Figure 17-3, Vol. 4 Table 2-2 (1D9H); msr-index.h DEBUGCTLMSR_*. */
    static MsrDef debugctl() {
        // SDM 17.4.7: the freeze controls exist "for processors supporting architectural
        // performance monitoring version 2 or greater"; the MSR table adds CPUID.01H:ECX[15].
        Condition freeze = Condition.and(PDCM, new Condition.PerfmonVersionAtLeast(2));
        // AMD: DebugCtl[11] freezes the LBR v2 stack on a PMI where CPUID Fn8000_0022_EAX[2]
        // LbrAndPmcFreeze says so (scattered.c X86_FEATURE_AMD_LBR_PMC_FREEZE; lbr.c sets
        // DEBUGCTLMSR_FREEZE_LBRS_ON_PMI). AMD's other DebugCtl bits (APM Vol. 2 13.1.1.6) are LBR,
        // BTF and the PB0-PB3 pin controls in 5:2; the pin controls are not catalogued (bit 2 is
        // BUS_LOCK_DETECT where CPUID.(07H,0):ECX[24] says so, on AMD too), so writes to them are
        // refused here. TR, BTS, BTINT, BTS_OFF_*, the perfmon freeze and the SMM/uncore/RTM bits
        // hang on Intel-only CPUID flags (DS, DS-CPL, PDCM, RTM) and stay reserved on AMD.
        Condition freezeLbrs = Condition.or(freeze, AmdMsrs.LBR_PMC_FREEZE);
        // ENABLE_UNCORE_PMI: the MSR table says "06_1AH" (Nehalem) onwards, i.e. the parts with an
        // uncore PMU; modelled as Intel with architectural perfmon v3, which Nehalem introduced.
        Condition uncorePmi = Condition.and(Condition.Vendor.INTEL, new Condition.PerfmonVersionAtLeast(3));
        return new MsrDef(DEBUGCTL, 0x1D9, List.of(
                bit(0, "LBR", RW, ALWAYS, "record branches in the LBR stack; cleared by the processor on #DB delivery"),
                bit(1, "BTF", RW, ALWAYS, "single-step on branches instead of instructions"),
                bit(2, "BUS_LOCK_DETECT", RW, Condition.cpuid(CpuidBit.BUS_LOCK_DETECT),
                        "#DB trap after an instruction that acquired a bus lock"),
                bit(6, "TR", RW, DS, "send branch trace messages (BTMs)"),
                bit(7, "BTS", RW, DS, "store BTMs in the BTS buffer of the DS save area"),
                bit(8, "BTINT", RW, DS, "interrupt when the BTS buffer reaches its threshold; clear = circular buffer"),
                bit(9, "BTS_OFF_OS", RW, DS_CPL, "do not store/send BTMs when CPL = 0 (SDM Table 17-6)"),
                bit(10, "BTS_OFF_USR", RW, DS_CPL, "do not store/send BTMs when CPL > 0 (SDM Table 17-6)"),
                bit(11, "FREEZE_LBRS_ON_PMI", RW, freezeLbrs,
                        "freeze the LBR stack on a PMI (v2-3: clears LBR; v4+: sets GLOBAL_STATUS.LBR_FRZ)"),
                bit(12, "FREEZE_PERFMON_ON_PMI", RW, freeze,
                        "freeze the counters on a PMI (v2-3: clears GLOBAL_CTRL; v4+: sets GLOBAL_STATUS.CTR_FRZ)"),
                bit(13, "ENABLE_UNCORE_PMI", RW, uncorePmi, "uncore counters may raise a PMI on this core"),
                bit(14, "FREEZE_WHILE_SMM", RW, new Condition.PerfCapabilitiesBit(12, "SMM_FREEZE"),
                        "freeze counters, LBR and BTS while in SMM"),
                bit(15, "RTM_DEBUG", RW, Condition.cpuid(CpuidBit.RTM), "advanced debugging of RTM regions")),
                RW, ALWAYS,
                "debug control: LBR, single-step on branches, branch trace store, freeze on PMI",
                "SDM Vol. 3B 17.4.1, Vol. 4 Table 2-2; msr-index.h MSR_IA32_DEBUGCTLMSR");
    }

    /** SDM Vol. 4 Table 2-2 (1A0H); msr-index.h MSR_IA32_MISC_ENABLE_*. */
    static MsrDef miscEnable() {
        Condition intel = Condition.Vendor.INTEL;
        return new MsrDef("IA32_MISC_ENABLE", 0x1A0, List.of(
                bit(0, "FAST_STRING", RW, intel, "fast-string operation for REP MOVS/STOS"),
                bit(1, "TCC", RW, intel, "model-specific: thermal control circuit (msr-index.h TCC)"),
                bit(2, "X87_COMPAT", RW, intel, "model-specific: x87 compatibility (msr-index.h)"),
                bit(3, "TM1", RW, intel, "automatic thermal control circuit (TM1)"),
                bit(4, "SPLIT_LOCK_DISABLE", RW, intel, "model-specific (msr-index.h)"),
                bit(6, "L3CACHE_DISABLE", RW, intel, "model-specific (msr-index.h)"),
                bit(7, "EMON", RO, intel, "performance monitoring available"),
                bit(8, "SUPPRESS_LOCK", RW, intel, "model-specific (msr-index.h)"),
                bit(9, "PREFETCH_DISABLE", RW, intel, "model-specific: hardware prefetcher disable"),
                bit(10, "FERR", RW, intel, "model-specific: FERR# multiplexing"),
                bit(11, "BTS_UNAVAILABLE", RO, intel, "1 = branch trace store not supported (Linux X86_FEATURE_BTS off)"),
                bit(12, "PEBS_UNAVAILABLE", RO, intel, "1 = PEBS not supported (Linux X86_FEATURE_PEBS off)"),
                bit(13, "TM2", RW, intel, "model-specific: thermal monitor 2"),
                bit(16, "ENHANCED_SPEEDSTEP", RW, intel, "Enhanced Intel SpeedStep technology enable"),
                bit(18, "MWAIT", RW, intel, "MONITOR/MWAIT enable"),
                bit(19, "ADJ_PREF_DISABLE", RW, intel, "model-specific: adjacent cache line prefetch disable"),
                bit(20, "SPEEDSTEP_LOCK", RW, intel, "model-specific: EIST select lock"),
                bit(22, "LIMIT_CPUID", RW, intel, "limit CPUID maximum basic leaf to 2"),
                bit(23, "XTPR_DISABLE", RW, intel, "xTPR messages disabled"),
                bit(24, "L1D_CONTEXT", RW, intel, "model-specific: L1 data cache context mode"),
                bit(34, "XD_DISABLE", RW, intel, "execute-disable bit (NX) disabled"),
                bit(37, "DCU_PREF_DISABLE", RW, intel, "model-specific: DCU prefetcher disable"),
                bit(38, "TURBO_DISABLE", RW, intel, "model-specific: turbo mode disable"),
                bit(39, "IP_PREF_DISABLE", RW, intel, "model-specific: IP prefetcher disable")),
                RW, Condition.Vendor.INTEL,
                "miscellaneous feature enables; bits 11/12 say whether BTS/PEBS exist",
                "SDM Vol. 4 Table 2-2; msr-index.h MSR_IA32_MISC_ENABLE_*."
                        + " Model-specific bits are listed for every Intel CPU (their layouts do not collide)");
    }

    /** SDM Vol. 3B 17.4.9 (DS save area); msr-index.h MSR_IA32_DS_AREA. */
    static MsrDef dsArea() {
        return new MsrDef("IA32_DS_AREA", 0x600, List.of(
                sized(63, 0, "DS_BASE", RW, FieldWidth.DECLARED,
                        "linear address of the DS buffer management area (BTS/PEBS base, index, maximum, threshold)")),
                RW, DS,
                "debug store save area pointer",
                "SDM Vol. 3B 17.4.9 Figure 17-8; msr-index.h MSR_IA32_DS_AREA");
    }
}
