package dev.hwtool.arch.msr;

import dev.hwtool.arch.cpuid.CpuidRegs.Reg;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static dev.hwtool.arch.msr.Access.RO;
import static dev.hwtool.arch.msr.Access.RW;
import static dev.hwtool.arch.msr.Condition.ALWAYS;
import static dev.hwtool.arch.msr.Fields.bit;
import static dev.hwtool.arch.msr.Fields.bits;

/**
 * AMD's own registers: hardware configuration, P-states, the read-only effective-frequency
 * counters, the core performance counters, RAPL, the last-branch/exception registers and the
 * branch-sampling (BRS, Zen 3) and LBR v2 (Zen 4 and later) controls and stack.
 *
 * <p>Sources: AMD64 Architecture Programmer's Manual Vol. 2 "System Programming" (pub. 24593),
 * chapter 13 "Software Debug and Performance Resources" and chapter 17 "Hardware Performance
 * Monitoring and Control"; Vol. 3 (pub. 24594) Appendix E for the CPUID flags; the Processor
 * Programming Reference (PPR) for AMD Family 17h and 19h for the P-state definitions. Addresses,
 * names and bits are checked against Linux: arch/x86/include/asm/msr-index.h (MSR_K7_*, MSR_AMD_*,
 * MSR_F15H_*, MSR_F17H_*, MSR_AMD64_*), arch/x86/include/asm/cpufeatures.h and
 * arch/x86/kernel/cpu/scattered.c (the CPUID bits), arch/x86/kernel/cpu/amd.c (RAPL =
 * CPUID 8000_0007H:EDX[14]), arch/x86/events/amd/{core,lbr,brs}.c and arch/x86/events/rapl.c.
 *
 * <p>Names: the kernel's msr-index.h name where it has one, the APM/PPR name otherwise; the other
 * spelling is an alias ({@link #aliases()}). Every register here exists only where CPUID.0 says
 * "AuthenticAMD" and the CPUID flag the APM names for it is set, so none is claimed on Intel.
 */
final class AmdMsrs {

    private static final String APM = "AMD APM Vol. 2 (24593)";
    private static final int EXT1 = 0x8000_0001;
    private static final int POWER = 0x8000_0007;
    private static final int EXT8 = 0x8000_0008;
    private static final int PERFMON_DEBUG = 0x8000_0022;

    static final Condition AMD = Condition.Vendor.AMD;
    /** CPUID Fn8000_0001_ECX[23] PerfCtrExtCore: six core counters at C001_0200H (Linux X86_FEATURE_PERFCTR_CORE). */
    static final Condition PERF_CTR_EXT_CORE = Condition.and(AMD, Condition.cpuid(EXT1, 0, Reg.ECX, 23));
    /** CPUID Fn8000_0001_ECX[10] IBS: instruction-based sampling (Linux X86_FEATURE_IBS). */
    static final Condition IBS = Condition.and(AMD, Condition.cpuid(EXT1, 0, Reg.ECX, 10));
    /** CPUID Fn8000_0007_EDX[7] HwPstate: hardware P-state control (scattered.c X86_FEATURE_HW_PSTATE). */
    static final Condition HW_PSTATE = Condition.and(AMD, Condition.cpuid(POWER, 0, Reg.EDX, 7));
    /** CPUID Fn8000_0007_EDX[9] CPB: core performance boost (scattered.c X86_FEATURE_CPB). */
    static final Condition CPB = Condition.and(AMD, Condition.cpuid(POWER, 0, Reg.EDX, 9));
    /** CPUID Fn8000_0007_EDX[10] EffFreqRO: the read-only MPERF/APERF copies (APM Vol. 2 chapter 17, effective frequency). */
    static final Condition EFF_FREQ_RO = Condition.and(AMD, Condition.cpuid(POWER, 0, Reg.EDX, 10));
    /** CPUID Fn8000_0007_EDX[14] RAPL (amd.c early_init_amd sets X86_FEATURE_RAPL from it). */
    static final Condition RAPL = Condition.and(AMD, Condition.cpuid(POWER, 0, Reg.EDX, 14));
    /** CPUID Fn8000_0008_EBX[1] InstRetCntMsr: IRPerfCount (cpufeatures.h X86_FEATURE_IRPERF, word 13). */
    static final Condition IRPERF = Condition.and(AMD, Condition.cpuid(EXT8, 0, Reg.EBX, 1));
    /** CPUID Fn8000_0008_EBX[31] BRS: branch sampling (cpufeatures.h X86_FEATURE_BRS = 13*32+31). */
    static final Condition BRS_FLAG = Condition.cpuid(EXT8, 0, Reg.EBX, 31);
    /**
     * BRS as Linux drives it: the flag on family 19h (arch/x86/events/amd/brs.c amd_brs_detect,
     * "case 0x19", 16 entries, no hardware filter).
     */
    static final Condition BRS = Condition.and(AMD, BRS_FLAG,
            new Condition.AmdFamily(Set.of(0x19), "BRS as arch/x86/events/amd/brs.c amd_brs_detect accepts it"));
    /** BRS depth: brs.c amd_brs_detect sets x86_pmu.lbr_nr = 16. */
    static final int BRS_DEPTH = 16;
    /** CPUID Fn8000_0022_EAX[0] PerfMonV2 (scattered.c X86_FEATURE_PERFMON_V2). */
    static final Condition PERFMON_V2 = Condition.and(AMD, Condition.cpuid(PERFMON_DEBUG, 0, Reg.EAX, 0));
    /** CPUID Fn8000_0022_EAX[1] LbrExtV2 (scattered.c X86_FEATURE_AMD_LBR_V2). */
    static final Condition LBR_V2 = Condition.and(AMD, Condition.cpuid(PERFMON_DEBUG, 0, Reg.EAX, 1));
    /** CPUID Fn8000_0022_EAX[2] LbrAndPmcFreeze (scattered.c X86_FEATURE_AMD_LBR_PMC_FREEZE): DebugCtl[11] on AMD. */
    static final Condition LBR_PMC_FREEZE = Condition.and(AMD, Condition.cpuid(PERFMON_DEBUG, 0, Reg.EAX, 2));

    /** MSR_AMD_SAMP_BR_FROM: entry n's FROM at C001_0300H + 2n, its TO at + 2n + 1 (lbr.c, brs.c). */
    static final long SAMP_BR_FROM = 0xC001_0300L;
    /** Entries catalogued: 16, BRS's fixed depth and Zen 4's LbrV2StackSz. */
    static final int BR_STACK_MAX = 16;
    /** MSR_F15H_PERF_CTL: PerfEvtSel0 at C001_0200H, its PerfCtr at + 1, the next pair at + 2. */
    static final long F15H_PERF_CTL = 0xC001_0200L;
    /** AMD64_NUM_COUNTERS_CORE (arch/x86/include/asm/perf_event.h): six core counters. */
    static final int CORE_COUNTERS = 6;
    static final long K7_EVNTSEL0 = 0xC001_0000L;
    static final long K7_PERFCTR0 = 0xC001_0004L;
    /** AMD64_NUM_COUNTERS: the four legacy counters. */
    static final int LEGACY_COUNTERS = 4;
    static final long PSTATE_DEF_BASE = 0xC001_0064L;
    /** PStateDef0..7 at C001_0064H..C001_006BH (PPR 17h/19h). */
    static final int PSTATES = 8;

    static final String HWCR = "MSR_K7_HWCR";
    static final String RAPL_POWER_UNIT = "MSR_AMD_RAPL_POWER_UNIT";
    static final String CORE_ENERGY = "MSR_AMD_CORE_ENERGY_STATUS";
    static final String PKG_ENERGY = "MSR_AMD_PKG_ENERGY_STATUS";
    static final String MPERF_RO = "MPerfReadOnly";
    static final String APERF_RO = "APerfReadOnly";
    static final String IRPERF_COUNT = "MSR_F17H_IRPERF";
    static final String DBG_EXTN_CFG = "MSR_AMD_DBG_EXTN_CFG";
    static final String LBR_SELECT = "MSR_AMD64_LBR_SELECT";

    private AmdMsrs() {
    }

    static List<MsrDef> defs() {
        List<MsrDef> out = new ArrayList<>();
        out.addAll(lastBranchAndException());
        out.add(hwcr());
        out.addAll(pstates());
        out.add(readOnlyCopy(MPERF_RO, 0xC000_00E7L, "MPERF", "IA32_MPERF"));
        out.add(readOnlyCopy(APERF_RO, 0xC000_00E8L, "APERF", "IA32_APERF"));
        out.add(irPerf());
        for (int i = 0; i < LEGACY_COUNTERS; i++) {
            out.add(evtSel("MSR_K7_EVNTSEL" + i, K7_EVNTSEL0 + i, i, AMD, "legacy "));
            out.add(ctr("MSR_K7_PERFCTR" + i, K7_PERFCTR0 + i, i, AMD, "legacy "));
        }
        for (int i = 0; i < CORE_COUNTERS; i++) {
            // With PerfMonV2 the count comes from CPUID Fn8000_0022_EBX[3:0] NumPerfCtrCore
            // (core.c amd_core_pmu_init: x86_pmu.cntr_mask64 from ebx.split.num_core_pmc).
            Condition exists = Condition.and(PERF_CTR_EXT_CORE, Condition.or(Condition.not(PERFMON_V2),
                    new Condition.CpuidFieldAbove(PERFMON_DEBUG, 0, Reg.EBX, 3, 0, i)));
            out.add(evtSel("MSR_F15H_PERF_CTL" + i, F15H_PERF_CTL + 2L * i, i, exists, ""));
            out.add(ctr("MSR_F15H_PERF_CTR" + i, F15H_PERF_CTL + 2L * i + 1, i, exists, ""));
        }
        out.add(raplPowerUnit());
        out.add(energy(CORE_ENERGY, 0xC001_029AL, "core (per core)"));
        out.add(energy(PKG_ENERGY, 0xC001_029BL, "package"));
        out.add(lbrSelect());
        out.add(dbgExtnCfg());
        for (int n = 0; n < BR_STACK_MAX; n++) {
            Condition has = Condition.or(Condition.and(LBR_V2,
                    new Condition.CpuidFieldAbove(PERFMON_DEBUG, 0, Reg.EBX, 9, 4, n)), BRS);
            out.add(branchFrom(n, has));
            out.add(branchTo(n, has));
        }
        return out;
    }

    /** APM names for registers the catalog calls by the kernel's name (upper case → canonical). */
    static Map<String, String> aliases() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("HWCR", HWCR);
        m.put("PSTATECTL", "MSR_AMD_PERF_CTL");
        m.put("PSTATESTAT", "MSR_AMD_PERF_STATUS");
        for (int i = 0; i < PSTATES; i++) {
            m.put("PSTATEDEF" + i, "MSR_AMD_PSTATE_DEF_" + i);
        }
        m.put("IRPERFCOUNT", IRPERF_COUNT);
        m.put("RAPL_PWR_UNIT", RAPL_POWER_UNIT);
        m.put("CORE_ENERGY_STAT", CORE_ENERGY);
        m.put("PKG_ENERGY_STAT", PKG_ENERGY);
        m.put("MSR_AMD64_DBG_EXTN_CFG", DBG_EXTN_CFG);
        m.put("LASTBRANCHFROMIP", "MSR_IA32_LASTBRANCHFROMIP");
        m.put("LASTBRANCHTOIP", "MSR_IA32_LASTBRANCHTOIP");
        m.put("LASTEXCEPTIONFROMIP", "MSR_IA32_LASTINTFROMIP");
        m.put("LASTEXCEPTIONTOIP", "MSR_IA32_LASTINTTOIP");
        return m;
    }

    /**
     * The single last-branch and last-exception records of every AMD64 processor, filled while
     * DebugCtl.LBR is set (APM Vol. 2 13.1.1, the control-transfer recording MSRs; msr-index.h
     * MSR_IA32_LASTBRANCHFROMIP 1DBH .. MSR_IA32_LASTINTTOIP 1DEH). Intel has model-specific
     * registers at these addresses (P6's LastBranch*, later MSR_LER_*), which this entry does
     * not describe, so it is AMD only.
     */
    static List<MsrDef> lastBranchAndException() {
        String src = APM + " 13.1.1 (control-transfer recording MSRs); msr-index.h";
        return List.of(
                rip("MSR_IA32_LASTBRANCHFROMIP", 0x1DB, "source of the last branch (APM LastBranchFromIP)", src),
                rip("MSR_IA32_LASTBRANCHTOIP", 0x1DC, "target of the last branch (APM LastBranchToIP)", src),
                rip("MSR_IA32_LASTINTFROMIP", 0x1DD,
                        "instruction interrupted by the last exception or interrupt (APM LastExceptionFromIP)", src),
                rip("MSR_IA32_LASTINTTOIP", 0x1DE,
                        "handler entered by the last exception or interrupt (APM LastExceptionToIP)", src));
    }

    private static MsrDef rip(String name, long address, String what, String src) {
        return new MsrDef(name, address, List.of(bits(63, 0, "RIP", RO, ALWAYS, "the address (read-only)")),
                RO, AMD, what, src);
    }

    /**
     * HWCR (APM Vol. 2 "Hardware Configuration Register (HWCR)"; PPR 17h/19h MSRC001_0015).
     * Listed are the bits Linux names or handles: SMMLOCK, CPB_DIS, IRPERF_EN (msr-index.h
     * MSR_K7_HWCR_*), TscFreqSel, read as 1 on family 10h and later (amd.c bsp_init_amd warns
     * "TSC doesn't count with P0 frequency!" otherwise), and the bits KVM's emulation accepts or
     * ignores (arch/x86/kvm/x86.c: TLB cache disable 3, flush filter disable 6, IGNNE emulation 8,
     * McStatusWrEn 18). The other bits are left out, so writes to them are refused here.
     */
    static MsrDef hwcr() {
        return new MsrDef(HWCR, 0xC001_0015L, List.of(
                bit(0, "SMMLOCK", "SMM code lock: write-once, locks the SMM configuration registers"),
                bit(3, "TLBCACHEDIS", "disable the cacheability of page-table walks"),
                bit(6, "FFDIS", "disable the TLB flush filter"),
                bit(8, "IGNNEEM", "IGNNE port emulation enable"),
                bit(18, "MCSTATUSWREN", "machine-check status registers writable (MCi_STATUS)"),
                bit(24, "TSCFREQSEL", RO, ALWAYS, "1 = the TSC counts at the P0 frequency (read-only 1)"),
                bit(25, "CPBDIS", RW, CPB, "core performance boost disable (MSR_K7_HWCR_CPB_DIS_BIT)"),
                bit(30, "IRPERFEN", RW, IRPERF, "enable the instructions-retired counter IRPerfCount (C000_00E9H)")),
                RW, AMD, "hardware configuration",
                APM + " HWCR; PPR 17h/19h MSRC001_0015; msr-index.h MSR_K7_HWCR; arch/x86/kvm/x86.c");
    }

    /**
     * P-state limit, control, status and definitions (APM Vol. 2 chapter 17, P-state control:
     * the P-state current limit, control and status registers; PPR 17h/19h MSRC001_0061..6B).
     * They exist with HwPstate (CPUID Fn8000_0007_EDX[7]). msr-index.h names C001_0062H
     * MSR_AMD_PERF_CTL, C001_0063H MSR_AMD_PERF_STATUS and C001_0064H MSR_AMD_PSTATE_DEF_BASE;
     * C001_0061H keeps its APM name.
     */
    static List<MsrDef> pstates() {
        String src = APM + " chapter 17 (P-state control); PPR 17h/19h MSRC001_0061..6B; msr-index.h";
        List<MsrDef> out = new ArrayList<>();
        out.add(new MsrDef("PStateCurLim", 0xC001_0061L, List.of(
                bits(2, 0, "CURPSTATELIMIT", RO, ALWAYS, "highest-performance P-state allowed now (0 = P0)"),
                bits(6, 4, "PSTATEMAXVAL", RO, ALWAYS, "lowest-performance P-state supported")),
                RO, HW_PSTATE, "P-state current limit", src));
        out.add(new MsrDef("MSR_AMD_PERF_CTL", 0xC001_0062L, List.of(
                bits(2, 0, "PSTATECMD", "requested P-state (APM PStateCtl)")),
                RW, HW_PSTATE, "P-state control (APM PStateCtl)", src));
        out.add(new MsrDef("MSR_AMD_PERF_STATUS", 0xC001_0063L, List.of(
                bits(2, 0, "CURPSTATE", RO, ALWAYS, "current P-state (APM PStateStat)")),
                RO, HW_PSTATE, "P-state status (APM PStateStat)", src));
        // The frequency/voltage fields are PPR 17h/19h's; family 1Ah widens CpuFid, so there
        // only PstateEn is described (the other bits read as part of the raw value).
        Condition zen1to4 = new Condition.AmdFamily(Set.of(0x17, 0x19), "PPR 17h/19h P-state layout");
        for (int i = 0; i < PSTATES; i++) {
            out.add(new MsrDef("MSR_AMD_PSTATE_DEF_" + i, PSTATE_DEF_BASE + i, List.of(
                    bits(7, 0, "CPUFID", RW, zen1to4, "core frequency ID: 25 MHz x CpuFid / (CpuDfsId / 8)"),
                    bits(13, 8, "CPUDFSID", RW, zen1to4, "core divisor ID"),
                    bits(21, 14, "CPUVID", RW, zen1to4, "core voltage ID"),
                    bits(29, 22, "IDDVALUE", RW, zen1to4, "current dissipation value"),
                    bits(31, 30, "IDDDIV", RW, zen1to4, "current dissipation divisor"),
                    bit(63, "PSTATEEN", RW, ALWAYS, "this P-state is valid")),
                    RW, HW_PSTATE, "P-state " + i + " definition (APM/PPR PStateDef" + i + ")",
                    src + " MSR_AMD_PSTATE_DEF_BASE + " + i));
        }
        return out;
    }

    /**
     * MPerfReadOnly / APerfReadOnly (APM Vol. 2 chapter 17, effective frequency): the
     * same counts as IA32_MPERF/IA32_APERF, which software may not write, so several readers
     * cannot disturb one another. WRMSR to them #GPs. msr-index.h has no name for them; Xen's
     * calls them MSR_MPERF_RD_ONLY / MSR_APERF_RD_ONLY.
     */
    static MsrDef readOnlyCopy(String name, long address, String field, String of) {
        return new MsrDef(name, address, List.of(
                bits(63, 0, field, RO, ALWAYS, "the " + of + " count, read-only")),
                RO, EFF_FREQ_RO, "read-only copy of " + of + " (effective frequency)",
                APM + " chapter 17 (effective frequency), CPUID Fn8000_0007_EDX[10] EffFreqRO");
    }

    /** IRPerfCount: instructions retired, counting while HWCR.IRPERFEN is set (msr-index.h MSR_F17H_IRPERF). */
    static MsrDef irPerf() {
        return new MsrDef(IRPERF_COUNT, 0xC000_00E9L, List.of(
                bits(63, 0, "IRPERFCOUNT", "instructions retired (APM IRPerfCount)")),
                RW, IRPERF, "instructions-retired counter (enable with MSR_K7_HWCR.IRPERFEN)",
                APM + " 13.2 (Instructions Retired Performance Counter); msr-index.h MSR_F17H_IRPERF;"
                        + " Linux arch/x86/events/msr.c PERF_MSR_IRPERF");
    }

    /**
     * PerfEvtSeln (APM Vol. 2 13.2, the performance-monitoring counters, PerfEvtSeln; perf_event.h AMD64_EVENTSEL_EVENT
     * = bits 7:0 and 35:32, AMD64_EVENTSEL_GUESTONLY 40, AMD64_EVENTSEL_HOSTONLY 41). The legacy
     * four at C001_0000H..3 alias the first four of C001_0200H where PerfCtrExtCore is set.
     */
    static MsrDef evtSel(String name, long address, int i, Condition exists, String kind) {
        return new MsrDef(name, address, List.of(
                bits(7, 0, "EVENTSELECT", "event select, bits 7:0"),
                bits(15, 8, "UNITMASK", "unit mask"),
                bit(16, "USR", "count at CPL > 0"),
                bit(17, "OS", "count at CPL 0"),
                bit(18, "EDGE", "edge detect"),
                bit(20, "INT", "APIC interrupt on overflow"),
                bit(22, "EN", "counter enable"),
                bit(23, "INV", "invert the counter-mask comparison"),
                bits(31, 24, "CNTMASK", "counter mask"),
                bits(35, 32, "EVENTSELECT_HI", "event select, bits 11:8"),
                bit(40, "GUESTONLY", "count only in the guest (SVM)"),
                bit(41, "HOSTONLY", "count only in the host (SVM)")),
                RW, exists, kind + "performance event select " + i + " (APM PerfEvtSel" + i + ")",
                APM + " 13.2 (PerfEvtSeln); msr-index.h; arch/x86/include/asm/perf_event.h AMD64_EVENTSEL_*");
    }

    /** PerfCtrn: 48-bit counters (APM Vol. 2 13.2, the performance-monitoring counters; amd/core.c cntval_bits = 48). */
    static MsrDef ctr(String name, long address, int i, Condition exists, String kind) {
        return new MsrDef(name, address, List.of(bits(47, 0, "COUNT", "count, 48 bits")),
                RW, exists, kind + "performance counter " + i + " (APM PerfCtr" + i + ")",
                APM + " 13.2 (PerfCtrn); msr-index.h; arch/x86/events/amd/core.c");
    }

    /**
     * RAPL_PWR_UNIT (PPR 17h/19h MSRC001_0299; msr-index.h MSR_AMD_RAPL_POWER_UNIT): the same
     * layout as Intel's MSR_RAPL_POWER_UNIT; Linux reads the energy unit as bits 12:8
     * (arch/x86/events/rapl.c, (msr >> 8) &amp; 0x1F).
     */
    static MsrDef raplPowerUnit() {
        return new MsrDef(RAPL_POWER_UNIT, 0xC001_0299L, List.of(
                bits(3, 0, "POWER_UNITS", RO, ALWAYS, "power unit: 1/2^N W"),
                bits(12, 8, "ENERGY_STATUS_UNITS", RO, ALWAYS, "energy unit: 1/2^N J"),
                bits(19, 16, "TIME_UNITS", RO, ALWAYS, "time unit: 1/2^N s")),
                RO, RAPL, "RAPL units of power, energy and time (PPR RAPL_PWR_UNIT)",
                "PPR 17h/19h MSRC001_0299; msr-index.h MSR_AMD_RAPL_POWER_UNIT; arch/x86/events/rapl.c");
    }

    /** CORE_ENERGY_STAT (per core) and PKG_ENERGY_STAT: 32-bit counts that wrap (PPR 17h/19h MSRC001_029A/B). */
    static MsrDef energy(String name, long address, String domain) {
        return new MsrDef(name, address, List.of(
                bits(31, 0, "TOTAL_ENERGY_CONSUMED", RO, ALWAYS,
                        "energy used by the " + domain + " domain, in ENERGY_STATUS_UNITS; wraps at 2^32")),
                RO, RAPL, domain + " energy consumed (RAPL)",
                "PPR 17h/19h MSRC001_029A/B; msr-index.h " + name + "; arch/x86/events/rapl.c");
    }

    /**
     * LBR_SELECT (msr-index.h MSR_AMD64_LBR_SELECT; APM Vol. 2 chapter 13, the last
     * branch stack extension): each set bit suppresses recording of that branch kind (arch/x86/events/amd/lbr.c
     * LBR_SELECT_*, valid bits LBR_SELECT_MASK = 0x1FF). Exists with LbrExtV2.
     */
    static MsrDef lbrSelect() {
        String[][] f = {
                {"KERNEL", "branches ending at CPL 0"}, {"USER", "branches ending at CPL > 0"},
                {"JCC", "conditional branches"}, {"CALL_NEAR_REL", "near relative calls"},
                {"CALL_NEAR_IND", "near indirect calls"}, {"RET_NEAR", "near returns"},
                {"JMP_NEAR_IND", "near indirect jumps (not calls or returns)"},
                {"JMP_NEAR_REL", "near relative jumps (not calls)"}, {"FAR_BRANCH", "far branches"}};
        List<MsrField> fields = new ArrayList<>();
        for (int i = 0; i < f.length; i++) {
            fields.add(bit(i, f[i][0], "1 = do not record " + f[i][1]));
        }
        return new MsrDef(LBR_SELECT, 0xC000_010EL, fields, RW, LBR_V2,
                "LBR v2 branch filter (suppress mode)", "msr-index.h MSR_AMD64_LBR_SELECT; arch/x86/events/amd/lbr.c");
    }

    /**
     * DBG_EXTN_CFG (msr-index.h MSR_AMD_DBG_EXTN_CFG): on Zen 3 the BRS controls
     * (arch/x86/events/amd/brs.c union amd_debug_extn_cfg: BRSMEN 2, bits 4:3 reserved and written
     * as 11b, VB 5, MSROFF 19:16, PMC 26:24), on Zen 4 and later LBRV2EN (bit 6,
     * DBG_EXTN_CFG_LBRV2EN; lbr.c amd_pmu_lbr_enable_all).
     */
    static MsrDef dbgExtnCfg() {
        return new MsrDef(DBG_EXTN_CFG, 0xC000_010FL, List.of(
                bit(2, "BRSMEN", RW, BRS, "branch sampling enable"),
                bits(4, 3, "RSVD4_3", RW, BRS, "reserved, written as 11b (brs.c set_debug_extn_cfg)"),
                bit(5, "VB", RW, BRS, "valid branches recorded"),
                bit(6, "LBRV2EN", RW, LBR_V2, "LBR v2 enable (lbr.c amd_pmu_lbr_enable_all sets it)"),
                bits(19, 16, "MSROFF", RW, BRS, "index of the next BRS entry to write"),
                bits(26, 24, "PMC", RW, BRS, "counter holding the sampling event")),
                RW, Condition.or(BRS, LBR_V2), "debug extension configuration: BRS (Zen 3), LBR v2 enable (Zen 4+)",
                "msr-index.h MSR_AMD_DBG_EXTN_CFG, DBG_EXTN_CFG_LBRV2EN; arch/x86/events/amd/brs.c, lbr.c");
    }

    /**
     * Branch stack entry n, source (MSR_AMD_SAMP_BR_FROM + 2n). LBR v2 layout (lbr.c struct
     * branch_entry): IP 57:0, its sign extension 62:58, 63 mispredicted; BRS stores the full
     * address (brs.c sign-extends TO by the virtual-address width).
     */
    static MsrDef branchFrom(int n, Condition has) {
        return new MsrDef("MSR_AMD_SAMP_BR_FROM_" + n, SAMP_BR_FROM + 2L * n, List.of(
                bits(57, 0, "IP", "branch source address"),
                bits(62, 58, "IP_SIGN_EXT", "sign extension of IP"),
                bit(63, "MISPREDICT", "LBR v2: 1 = mispredicted; BRS: the address's top bit")),
                RW, has, "branch stack entry " + n + " source (LBR v2 / BRS)",
                "msr-index.h MSR_AMD_SAMP_BR_FROM + 2*" + n + "; arch/x86/events/amd/lbr.c, brs.c");
    }

    /** Entry n, target (MSR_AMD_SAMP_BR_FROM + 2n + 1): IP 57:0, sign extension 60:58, 61 reserved, SPEC 62, VALID 63. */
    static MsrDef branchTo(int n, Condition has) {
        return new MsrDef("MSR_AMD_SAMP_BR_TO_" + n, SAMP_BR_FROM + 2L * n + 1, List.of(
                bits(57, 0, "IP", "branch target address"),
                bits(61, 58, "IP_SIGN_EXT", "sign extension of IP (LBR v2: 60:58, 61 reserved)"),
                bit(62, "SPEC", "LBR v2: recorded speculatively; BRS: address bit"),
                bit(63, "VALID", "LBR v2: the entry holds a branch; BRS: address bit")),
                RW, has, "branch stack entry " + n + " target (LBR v2 / BRS)",
                "msr-index.h MSR_AMD_SAMP_BR_FROM + 2*" + n + " + 1; arch/x86/events/amd/lbr.c, brs.c");
    }
}
