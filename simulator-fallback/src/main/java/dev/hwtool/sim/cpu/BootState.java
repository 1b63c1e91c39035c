package dev.hwtool.sim.cpu;

import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuidBit;
import dev.hwtool.arch.decode.GuardedCpuid;
import dev.hwtool.arch.pebs.PebsSupport;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;

/**
 * What a simulated CPU's registers hold when the simulation starts: the state a 64-bit Linux
 * leaves after boot, derived from that CPU's CPUID. Registers not named here start at 0, their
 * RESET value (SDM Vol. 3A "IA-32 and Intel 64 Processor States Following Power-up,
 * Reset, or INIT", Table 10-1 in recent editions: IA32_DEBUGCTL, LBR_SELECT, IA32_DS_AREA, counters and event selects all 0).
 */
final class BootState {

    /** SDM Vol. 3A 11.4.4 (Figure 11-5): BSP flag, APIC global enable, default base FEE00000H. */
    static final long APIC_BASE_BSP = 1L << 8;
    static final long APIC_BASE_ENABLE = 1L << 11;
    static final long APIC_DEFAULT_BASE = 0xFEE0_0000L;
    /** IA32_APIC_BASE.EXTD, x2APIC mode (SDM Vol. 3A 11.12.1); CPUID.01H:ECX[21] enumerates x2APIC. */
    static final long APIC_BASE_EXTD = 1L << 10;
    static final int ECX_X2APIC = 21;
    /** Linux's perf_events_lapic_init (arch/x86/events/core.c): apic_write(APIC_LVTPC, APIC_DM_NMI). */
    static final long LVTPC_NMI = 0x400;

    /** SDM Vol. 3A "Programming the PAT": "Memory Type Setting of PAT Entries Following a Power-up or Reset". */
    static final long PAT_POWER_UP = 0x0007_0406_0007_0406L;

    /** IA32_EFER (C0000080H), SDM Vol. 3A 2.2.1 Figure 2-4: SCE 0, LME 8, LMA 10 (read-only), NXE 11. */
    static final long EFER_SCE = 1L;
    static final long EFER_LME = 1L << 8;
    static final long EFER_LMA = 1L << 10;
    static final long EFER_NXE = 1L << 11;

    /** CPUID.80000001H:EDX: NX 20, LM 29 (SDM Vol. 2A CPUID). */
    static final int EXT_EDX_NX = 20;
    static final int EXT_EDX_LM = 29;

    /** IA32_MISC_ENABLE (1A0H) bits, SDM Vol. 4 Table 2-2. */
    static final long MISC_FAST_STRING = 1L;
    static final long MISC_EMON = 1L << 7;
    static final long MISC_BTS_UNAVAILABLE = 1L << 11;
    static final long MISC_PEBS_UNAVAILABLE = 1L << 12;

    /** MSR_K7_HWCR bit 24, TscFreqSel. */
    static final long HWCR_TSC_FREQ_SEL = 1L << 24;
    /** CpuFid of P0..P2: 120, 88, 64 (x 25 MHz = 3.0, 2.2, 1.6 GHz with CpuDfsId 8). */
    static final long[] PSTATE_FIDS = {120, 88, 64};

    /** Linux's vdso_encode_cpunode(): IA32_TSC_AUX = node << 12 | cpu (arch/x86/include/asm/segment.h). */
    static final int TSC_AUX_NODE_SHIFT = 12;

    private BootState() {
    }

    /**
     * Initial values by catalog name for one CPU.
     *
     * @param bsp whether this is the bootstrap processor (Linux's CPU 0)
     */
    static Map<String, Long> of(int cpu, boolean bsp, CpuCapabilities caps, GuardedCpuid cpuid) {
        Map<String, Long> v = new LinkedHashMap<>();
        v.put("IA32_MISC_ENABLE", miscEnable(caps, cpuid));
        OptionalLong perfCaps = PerfCapabilitiesModel.initial(caps, cpuid);
        perfCaps.ifPresent(p -> v.put("IA32_PERF_CAPABILITIES", p));
        // x2APIC mode where CPUID.01H:ECX[21] has it, as Linux enables it (arch/x86/kernel/apic/apic.c,
        // try_to_enable_x2apic, with interrupt remapping or a hypervisor that allows it); xAPIC elsewhere.
        boolean x2apic = (cpuid.read(1, 0).ecx() >>> ECX_X2APIC & 1) != 0;
        v.put("IA32_APIC_BASE", APIC_DEFAULT_BASE | APIC_BASE_ENABLE | (bsp ? APIC_BASE_BSP : 0)
                | (x2apic ? APIC_BASE_EXTD : 0));
        // The perfmon LVT entry as Linux programs it at boot: NMI delivery, unmasked (RESET leaves it masked, 10000H).
        v.put("IA32_X2APIC_LVT_PMI", LVTPC_NMI);
        v.put("IA32_PAT", PAT_POWER_UP);
        v.put("IA32_EFER", efer(cpuid));
        // Linux setup_getcpu() writes the CPU number (node 0 here) for RDTSCP/RDPID users.
        v.put("IA32_TSC_AUX", (long) cpu & ((1L << TSC_AUX_NODE_SHIFT) - 1));
        // Linux programs the deepest enumerated depth (lbr.c: lbr_nr = fls(CPUID.1CH:EAX[7:0]) * 8).
        caps.archLbr().depths().stream().mapToInt(Integer::intValue).max()
                .ifPresent(d -> v.put("IA32_LBR_DEPTH", (long) d));
        // Power and thermal readings (RaplModel): fixed values; registers the CPU lacks are dropped by the register file.
        v.put("MSR_RAPL_POWER_UNIT", RaplModel.POWER_UNIT);
        v.put("MSR_AMD_RAPL_POWER_UNIT", RaplModel.AMD_POWER_UNIT);
        // HWCR.TscFreqSel reads 1 on AMD family 10h and later (Linux amd.c bsp_init_amd warns
        // "TSC doesn't count with P0 frequency!" otherwise; KVM keeps it set for its guests).
        v.put("MSR_K7_HWCR", HWCR_TSC_FREQ_SEL);
        // P-states (CPUs with HwPstate only): the PPR leaves their values to firmware, so these are
        // illustrative, not reset values: P0 current, limit P0, three P-states (PstateMaxVal 2),
        // PStateDef0..2 enabled with PPR 17h/19h encodings of 3.0, 2.2 and 1.6 GHz
        // (CpuFid x 25 MHz / (CpuDfsId / 8), CpuDfsId 8).
        v.put("PStateCurLim", 2L << 4);
        for (int i = 0; i < PSTATE_FIDS.length; i++) {
            v.put("MSR_AMD_PSTATE_DEF_" + i, 1L << 63 | 8L << 8 | PSTATE_FIDS[i]);
        }
        v.put("MSR_TEMPERATURE_TARGET", RaplModel.TEMPERATURE_TARGET);
        v.put("IA32_THERM_STATUS", RaplModel.THERM_STATUS);
        v.put("IA32_PACKAGE_THERM_STATUS", RaplModel.PACKAGE_THERM_STATUS);
        return v;
    }

    /**
     * Fast strings on (firmware default, Linux leaves it); EMON when CPUID.0AH reports a perfmon
     * version; BTS_UNAVAILABLE and PEBS_UNAVAILABLE set when CPUID.01H:EDX[21] (DS) is clear —
     * Linux's X86_FEATURE_BTS/PEBS test both (arch/x86/kernel/cpu/intel.c) — and
     * PEBS_UNAVAILABLE also on a model without PEBS ({@link PebsSupport}).
     */
    static long miscEnable(CpuCapabilities caps, GuardedCpuid cpuid) {
        long v = MISC_FAST_STRING;
        if (caps.archPerfmon().present()) {
            v |= MISC_EMON;
        }
        if (!cpuid.flag(CpuidBit.DS)) {
            v |= MISC_BTS_UNAVAILABLE | MISC_PEBS_UNAVAILABLE;
        }
        if (PebsSupport.of(caps.identity()).isEmpty()) {
            v |= MISC_PEBS_UNAVAILABLE;
        }
        return v;
    }

    /**
     * A 64-bit OS runs with long mode active, SYSCALL enabled and NX on where CPUID has them. The
     * register file keeps only the bits the catalog defines on the CPU: Intel reports SYSCALL
     * (CPUID.80000001H:EDX[11]) only in 64-bit mode, so dumps taken elsewhere leave SCE out.
     */
    static long efer(GuardedCpuid cpuid) {
        int edx = cpuid.read(0x8000_0001, 0).edx();
        long v = 0;
        if ((edx >>> EXT_EDX_LM & 1) != 0) {
            v |= EFER_SCE | EFER_LME | EFER_LMA;
        }
        if ((edx >>> EXT_EDX_NX & 1) != 0) {
            v |= EFER_NXE;
        }
        return v;
    }
}
