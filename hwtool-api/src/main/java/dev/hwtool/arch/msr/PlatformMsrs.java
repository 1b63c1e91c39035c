package dev.hwtool.arch.msr;

import dev.hwtool.arch.cpuid.CpuidRegs.Reg;
import dev.hwtool.arch.decode.CpuidBit;

import java.util.ArrayList;
import java.util.List;

import static dev.hwtool.arch.msr.Access.RO;
import static dev.hwtool.arch.msr.Access.RW;
import static dev.hwtool.arch.msr.Condition.ALWAYS;
import static dev.hwtool.arch.msr.Fields.bit;
import static dev.hwtool.arch.msr.Fields.bits;

/**
 * Non-debug architectural registers hwtool shows and the simulator models: time-stamp counter,
 * APIC base, MPERF/APERF, PAT, EFER, TSC_AUX (SDM Vol. 4 Table 2-2; msr-index.h; each exists
 * where the CPUID flag the SDM names is set).
 */
final class PlatformMsrs {

    private static final String SRC = "SDM Vol. 4 Table 2-2; msr-index.h";
    private static final int EXT = 0x8000_0001;

    private PlatformMsrs() {
    }

    static List<MsrDef> defs() {
        return List.of(tsc(), apicBase(), mperf(), aperf(), pat(), efer(), tscAux(), x2apicLvtPmi());
    }

    static MsrDef tsc() {
        return new MsrDef("IA32_TIME_STAMP_COUNTER", 0x10, List.of(
                bits(63, 0, "TSC", "time-stamp counter (RDTSC)")),
                RW, Condition.cpuid(CpuidBit.TSC), "time-stamp counter", SRC + " (MSR_IA32_TSC); SDM Vol. 3B 18.17");
    }

    /** SDM Vol. 3A 11.4.4 (APIC base), 11.12.1 (x2APIC EXTD). */
    static MsrDef apicBase() {
        return new MsrDef("IA32_APIC_BASE", 0x1B, List.of(
                bit(8, "BSP", RO, ALWAYS, "this processor is the bootstrap processor"),
                bit(10, "EXTD", RW, Condition.cpuid(0x1, 0, Reg.ECX, 21), "x2APIC mode enable"),
                bit(11, "EN", "APIC global enable"),
                new MsrField("APIC_BASE", 51, 12, RW, ALWAYS, "physical base address of the APIC page",
                        FieldWidth.PHYSICAL_ADDRESS)),
                RW, Condition.cpuid(0x1, 0, Reg.EDX, 9), "local APIC base address and mode",
                SRC + " (MSR_IA32_APICBASE); SDM Vol. 3A 11.4.4");
    }

    static MsrDef mperf() {
        return new MsrDef("IA32_MPERF", 0xE7, List.of(
                bits(63, 0, "MPERF", "counts at the TSC rate while in C0")),
                RW, Condition.cpuid(0x6, 0, Reg.ECX, 0), "maximum-performance frequency clock count",
                SRC + " (MSR_IA32_MPERF); SDM Vol. 3B 15.2");
    }

    static MsrDef aperf() {
        return new MsrDef("IA32_APERF", 0xE8, List.of(
                bits(63, 0, "APERF", "counts at the actual frequency while in C0")),
                RW, Condition.cpuid(0x6, 0, Reg.ECX, 0), "actual-performance frequency clock count",
                SRC + " (MSR_IA32_APERF); SDM Vol. 3B 15.2");
    }

    /** SDM Vol. 3A 12.12.2: eight 3-bit memory types, bits 3..7 of each byte reserved. */
    static MsrDef pat() {
        List<MsrField> f = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            f.add(bits(8 * i + 2, 8 * i, "PA" + i,
                    "memory type of PAT entry " + i + " (0 UC, 1 WC, 4 WT, 5 WP, 6 WB, 7 UC-)"));
        }
        return new MsrDef("IA32_PAT", 0x277, f, RW, Condition.cpuid(0x1, 0, Reg.EDX, 16),
                "page attribute table", SRC + " (MSR_IA32_CR_PAT); SDM Vol. 3A 12.12.2");
    }

    /** SDM Vol. 3A 2.2.1 / AMD APM Vol. 2 3.1.7; msr-index.h _EFER_*. */
    static MsrDef efer() {
        Condition lm = Condition.cpuid(EXT, 0, Reg.EDX, 29);
        Condition nx = Condition.cpuid(EXT, 0, Reg.EDX, 20);
        return new MsrDef("IA32_EFER", 0xC000_0080L, List.of(
                bit(0, "SCE", RW, Condition.cpuid(EXT, 0, Reg.EDX, 11), "SYSCALL/SYSRET enable"),
                bit(8, "LME", RW, lm, "IA-32e (long) mode enable"),
                bit(10, "LMA", RO, lm, "IA-32e (long) mode active"),
                bit(11, "NXE", RW, nx, "execute-disable (NX) enable"),
                bit(12, "SVME", RW, Condition.cpuid(EXT, 0, Reg.ECX, 2), "AMD secure virtual machine enable"),
                bit(14, "FFXSR", RW, Condition.cpuid(EXT, 0, Reg.EDX, 25), "AMD fast FXSAVE/FXRSTOR"),
                bit(15, "TCE", RW, Condition.cpuid(EXT, 0, Reg.ECX, 17), "AMD translation cache extension"),
                bit(21, "AUTOIBRS", RW, Condition.cpuid(0x8000_0021, 0, Reg.EAX, 8), "AMD automatic IBRS")),
                RW, Condition.or(nx, lm), "extended feature enables",
                SRC + " (MSR_EFER); SDM Vol. 3A 2.2.1; AMD APM Vol. 2 3.1.7");
    }

    /** CPUID.01H:ECX[21]: x2APIC (SDM Vol. 3A 11.12.1). */
    static final Condition X2APIC = Condition.cpuid(0x1, 0, Reg.ECX, 21);

    /**
     * The local APIC's LVT performance-monitoring-counter entry as the x2APIC MSR 834H (SDM Vol. 3A
     * 11.5.1 Figure 11-8, "Local Vector Table"; 11.12.1.2 Table 11-6: MSR 800H + (xAPIC offset 340H
     * &gt;&gt; 4); Linux apicdef.h APIC_LVTPC, APIC_LVT_MASKED, APIC_DM_NMI). Reachable only in x2APIC
     * mode (IA32_APIC_BASE.EXTD); the xAPIC reaches the same entry at APIC base + 340H. The 32-bit
     * register's reserved bits, 63:32 included, #GP on WRMSR in x2APIC mode (SDM 11.12.1.2).
     * "When the local APIC handles a performance-monitoring counters interrupt, it automatically
     * sets the mask flag" (SDM 11.5.1).
     */
    static MsrDef x2apicLvtPmi() {
        return new MsrDef("IA32_X2APIC_LVT_PMI", 0x834, List.of(
                bits(7, 0, "VECTOR", "interrupt vector (fixed delivery)"),
                bits(10, 8, "DELIVERY_MODE", "000 fixed, 010 SMI, 100 NMI (Linux: NMI)"),
                bit(12, "DELIVERY_STATUS", RO, ALWAYS, "1 = send pending (read-only)"),
                bit(16, "MASK", "1 = inhibits reception; set by the APIC when it delivers a PMI")),
                RW, X2APIC, "local APIC LVT performance-monitoring counter entry (x2APIC mode)",
                "SDM Vol. 3A 11.5.1 Figure 11-8, 11.12.1.2 Table 11-6; Linux apicdef.h APIC_LVTPC");
    }

    static MsrDef tscAux() {
        return new MsrDef("IA32_TSC_AUX", 0xC000_0103L, List.of(
                bits(31, 0, "AUX", "value RDTSCP returns in ECX and RDPID returns (Linux: CPU and node number)")),
                RW, Condition.or(Condition.cpuid(CpuidBit.RDTSCP), Condition.cpuid(0x7, 0, Reg.ECX, 22)),
                "auxiliary TSC signature", SRC + " (MSR_TSC_AUX); SDM Vol. 3B 18.17.2");
    }
}
