package dev.hwtool.arch.msr;

import dev.hwtool.arch.cpuid.CpuidRegs.Reg;
import dev.hwtool.arch.decode.CpuidBit;

import java.util.ArrayList;
import java.util.List;

import static dev.hwtool.arch.msr.Access.RO;
import static dev.hwtool.arch.msr.Access.RW;
import static dev.hwtool.arch.msr.Access.WO;
import static dev.hwtool.arch.msr.Condition.ALWAYS;
import static dev.hwtool.arch.msr.Fields.bit;
import static dev.hwtool.arch.msr.Fields.bits;
import static dev.hwtool.arch.msr.Fields.sized;

/**
 * Architectural performance-monitoring registers (SDM Vol. 3B 20.2,
 * Vol. 4 Table 2-2; msr-index.h). Per-counter registers and per-counter bits of the global
 * registers are generated from templates, one per counter index the architecture has MSR
 * addresses for, each existing only where CPUID.0AH enumerates that counter.
 */
final class PerfmonMsrs {

    static final String GLOBAL_OVF_CTRL = "IA32_PERF_GLOBAL_OVF_CTRL";
    static final String PERF_CAPABILITIES = "IA32_PERF_CAPABILITIES";

    /** IA32_PERFEVTSEL0..7 at 186H..18DH and IA32_PMC0..7 at C1H..C8H: the architectural range. */
    static final int MAX_GP = 8;
    /** IA32_FIXED_CTR0..6 at 309H..30FH (msr-index.h MSR_CORE_PERF_FIXED_CTR0 + i). */
    static final int MAX_FIXED = 7;

    static final long PERFEVTSEL0 = 0x186;
    static final long PMC0 = 0xC1;
    /** Full-width alias of IA32_PMC0 (msr-index.h MSR_IA32_PMC0). */
    static final long A_PMC0 = 0x4C1;
    static final long FIXED_CTR0 = 0x309;
    static final int FIXED_STATUS_BIT0 = 32;

    private static final String SRC = "SDM Vol. 3B 20.2, Vol. 4 Table 2-2; msr-index.h";

    static final Condition V2 = new Condition.PerfmonVersionAtLeast(2);
    static final Condition V3 = new Condition.PerfmonVersionAtLeast(3);
    static final Condition V4 = new Condition.PerfmonVersionAtLeast(4);
    /** CPUID.0AH:EDX[15]: AnyThread deprecated (v5, SDM 20.2.5). */
    static final Condition ANY_THREAD = Condition.and(V3, Condition.not(Condition.cpuid(0xA, 0, Reg.EDX, 15)));
    static final Condition PEBS_BASELINE = new Condition.PerfCapabilitiesBit(14, "PEBS_BASELINE");
    static final Condition PERF_METRICS = new Condition.PerfCapabilitiesBit(15, "PERF_METRICS");
    static final Condition FW_WRITE = new Condition.PerfCapabilitiesBit(13, "FW_WRITE");
    static final Condition RTM = Condition.cpuid(CpuidBit.RTM);
    static final Condition INTEL_PT = Condition.cpuid(CpuidBit.INTEL_PT);
    /** CPUID.(07H,0):EBX[2] SGX, for GLOBAL_STATUS.ASCI. */
    static final Condition SGX = Condition.cpuid(0x7, 0, Reg.EBX, 2);

    private PerfmonMsrs() {
    }

    static List<MsrDef> defs() {
        List<MsrDef> out = new ArrayList<>();
        out.add(perfCapabilities());
        for (int i = 0; i < MAX_GP; i++) {
            out.add(pmc("IA32_PMC" + i, PMC0 + i, i, new Condition.GpCounterIndexBelow(i),
                    "general-purpose counter " + i + "; a legacy WRMSR writes the sign-extended low 32 bits"));
            out.add(pmc("IA32_A_PMC" + i, A_PMC0 + i, i,
                    Condition.and(new Condition.GpCounterIndexBelow(i), FW_WRITE),
                    "full-width alias of IA32_PMC" + i + " (all counter bits written)"));
            out.add(perfevtsel(i));
        }
        for (int i = 0; i < MAX_FIXED; i++) {
            out.add(new MsrDef("IA32_FIXED_CTR" + i, FIXED_CTR0 + i, List.of(
                    sized(63, 0, "COUNT", RW, FieldWidth.FIXED_COUNTER, "count, CPUID.0AH:EDX[12:5] bits wide")),
                    RW, new Condition.FixedCounterIndexBelow(i),
                    "fixed-function counter " + i + fixedEvent(i), SRC));
        }
        out.add(fixedCtrCtrl());
        out.add(globalStatus());
        out.add(globalCtrl());
        out.add(globalOvfCtrl());
        out.add(globalStatusSet());
        out.add(globalInuse());
        return out;
    }

    private static String fixedEvent(int i) {
        return switch (i) {
            case 0 -> " (INST_RETIRED.ANY)";
            case 1 -> " (CPU_CLK_UNHALTED.CORE)";
            case 2 -> " (CPU_CLK_UNHALTED.REF_TSC)";
            case 3 -> " (TOPDOWN.SLOTS)";
            default -> "";
        };
    }

    /** perf_event.h union perf_capabilities; SDM Vol. 3B 20.8 / Table 2-2. */
    static MsrDef perfCapabilities() {
        return new MsrDef(PERF_CAPABILITIES, 0x345, List.of(
                bits(5, 0, "LBR_FMT", RO, ALWAYS, "legacy LBR record format (0..7, SDM 17.4.8.1)"),
                bit(6, "PEBS_TRAP", RO, ALWAYS, "PEBS record after (trap) rather than at (fault) the instruction"),
                bit(7, "PEBS_ARCH_REG", RO, ALWAYS, "PEBS records save architectural registers"),
                bits(11, 8, "PEBS_FMT", RO, ALWAYS, "PEBS record format"),
                bit(12, "SMM_FREEZE", RO, ALWAYS, "IA32_DEBUGCTL.FREEZE_WHILE_SMM supported"),
                bit(13, "FW_WRITE", RO, ALWAYS, "full-width counter writes through IA32_A_PMCx (4C1H+)"),
                bit(14, "PEBS_BASELINE", RO, ALWAYS, "adaptive PEBS (baseline group)"),
                bit(15, "PERF_METRICS", RO, ALWAYS, "topdown PERF_METRICS available"),
                bit(16, "PEBS_OUTPUT_PT", RO, ALWAYS, "PEBS output to Intel PT"),
                bit(17, "PEBS_TIMING_INFO", RO, ALWAYS, "PEBS timing information"),
                bit(19, "RDPMC_METRICS_CLEAR", RO, ALWAYS, "RDPMC of metrics can clear them")),
                RO, DebugMsrs.PDCM,
                "read-only enumeration of LBR/PEBS formats and perfmon capabilities",
                "SDM Vol. 3B 20.8, Vol. 4 Table 2-2; perf_event.h union perf_capabilities");
    }

    private static MsrDef pmc(String name, long address, int i, Condition exists, String description) {
        return new MsrDef(name, address, List.of(
                sized(63, 0, "COUNT", RW, FieldWidth.GP_COUNTER, "count, CPUID.0AH:EAX[23:16] bits wide")),
                RW, exists, description,
                "SDM Vol. 3B 20.2.1 and 'Full-Width Writes to Performance Counter Registers'; " + SRC);
    }

    /** SDM Vol. 3B Figure 20-1/20-6 (model extensions where CPUID or PERF_CAPABILITIES says). */
    private static MsrDef perfevtsel(int i) {
        return new MsrDef("IA32_PERFEVTSEL" + i, PERFEVTSEL0 + i, List.of(
                bits(7, 0, "EVENT", "event select"),
                bits(15, 8, "UMASK", "unit mask"),
                bit(16, "USR", "count when CPL > 0"),
                bit(17, "OS", "count when CPL = 0"),
                bit(18, "E", "edge detect"),
                bit(19, "PC", "pin control"),
                bit(20, "INT", "APIC interrupt (PMI) on overflow"),
                bit(21, "ANY", RW, ANY_THREAD, "count on any thread of the core (v3+, deprecated when CPUID.0AH:EDX[15])"),
                bit(22, "EN", "enable the counter"),
                bit(23, "INV", "invert the CMASK comparison"),
                bits(31, 24, "CMASK", "counter mask: count cycles with at least CMASK events"),
                bit(32, "IN_TX", RW, RTM, "count only inside transactional regions (Haswell+, with RTM)"),
                bit(33, "IN_TXCP", RW, RTM, "checkpointed: exclude aborted transactions (Haswell+, with RTM)"),
                bit(34, "ADAPTIVE", RW, PEBS_BASELINE, "adaptive PEBS record for this counter (Ice Lake+)")),
                RW, new Condition.GpCounterIndexBelow(i),
                "event select for IA32_PMC" + i, SRC);
    }

    /** 4 bits per fixed counter (SDM Figure 20-2); ADAPTIVE at 32+4i (Ice Lake+). */
    static MsrDef fixedCtrCtrl() {
        List<MsrField> f = new ArrayList<>();
        for (int i = 0; i < MAX_FIXED; i++) {
            Condition has = new Condition.FixedCounterIndexBelow(i);
            f.add(bit(4 * i, "EN" + i + "_OS", RW, has, "fixed counter " + i + " counts when CPL = 0"));
            f.add(bit(4 * i + 1, "EN" + i + "_USR", RW, has, "fixed counter " + i + " counts when CPL > 0"));
            f.add(bit(4 * i + 2, "ANY" + i, RW, Condition.and(has, ANY_THREAD),
                    "fixed counter " + i + " counts on any thread of the core (v3+)"));
            f.add(bit(4 * i + 3, "PMI" + i, RW, has, "PMI on overflow of fixed counter " + i));
            f.add(bit(32 + 4 * i, "ADAPTIVE" + i, RW, Condition.and(has, PEBS_BASELINE),
                    "adaptive PEBS record for fixed counter " + i));
        }
        return new MsrDef("IA32_FIXED_CTR_CTRL", 0x38D, f, RW, V2,
                "fixed-function counter controls", SRC);
    }

    /** Per-counter bits [n-1:0] and [32+m-1:32] of the global registers. */
    private static void counterBits(List<MsrField> f, String gpName, String fixedName, Access access,
                                    String what) {
        for (int i = 0; i < MAX_GP; i++) {
            f.add(bit(i, gpName.replace("#", Integer.toString(i)), access,
                    new Condition.GpCounterIndexBelow(i), what + " IA32_PMC" + i));
        }
        for (int i = 0; i < MAX_FIXED; i++) {
            f.add(bit(FIXED_STATUS_BIT0 + i, fixedName.replace("#", Integer.toString(i)), access,
                    new Condition.FixedCounterIndexBelow(i), what + " IA32_FIXED_CTR" + i));
        }
    }

    /** The status bits above the counters (SDM Figure 20-3/20-12). */
    private static void statusBits(List<MsrField> f, String prefix, Access access, String verb,
                                   boolean withCondChgd) {
        String v = verb.isEmpty() ? "" : verb + " ";
        f.add(bit(48, prefix + "PERF_METRICS_OVF", access, PERF_METRICS,
                v + "PERF_METRICS overflow"));
        f.add(bit(55, prefix + "TRACE_TOPA_PMI", access, INTEL_PT,
                v + "Intel PT ToPA PMI"));
        f.add(bit(58, prefix + "LBR_FRZ", access, V4, v + "LBR stack frozen (v4+)"));
        f.add(bit(59, prefix + "CTR_FRZ", access, V4, v + "counters frozen (v4+)"));
        f.add(bit(60, prefix + "ASCI", access, Condition.and(SGX, V4),
                v + "counting suppressed in SGX enclaves (ASCI)"));
        f.add(bit(61, prefix + "OVF_UNCORE", access, V3, v + "uncore counter overflow (v3+)"));
        f.add(bit(62, prefix + "OVF_BUF", access, DebugMsrs.DS, v + "DS buffer overflow (PEBS/BTS)"));
        if (withCondChgd) {
            f.add(bit(63, prefix + "COND_CHGD", access, ALWAYS, v + "perfmon configuration changed"));
        }
    }

    static MsrDef globalStatus() {
        List<MsrField> f = new ArrayList<>();
        counterBits(f, "OVF_PMC#", "OVF_FIXED_CTR#", RO, "overflow of");
        statusBits(f, "", RO, "", true);
        return new MsrDef("IA32_PERF_GLOBAL_STATUS", 0x38E, f, RO, V2,
                "overflow and freeze status (read-only; cleared through IA32_PERF_GLOBAL_OVF_CTRL)", SRC);
    }

    static MsrDef globalCtrl() {
        List<MsrField> f = new ArrayList<>();
        counterBits(f, "EN_PMC#", "EN_FIXED_CTR#", RW, "enable");
        f.add(bit(48, "EN_PERF_METRICS", RW, PERF_METRICS, "enable PERF_METRICS"));
        return new MsrDef("IA32_PERF_GLOBAL_CTRL", 0x38F, f, RW, V2,
                "global counter enables: a counter counts iff its own enable and this bit (and !CTR_FRZ on v4+)", SRC);
    }

    /**
     * 390H: IA32_PERF_GLOBAL_OVF_CTRL (v2-3) = IA32_PERF_GLOBAL_STATUS_RESET (v4+). Writing 1 to a
     * bit clears the same bit of IA32_PERF_GLOBAL_STATUS; the register itself keeps nothing, so the
     * fields are WO (a write has an effect elsewhere), not W1C (which would describe bits of this
     * register clearing themselves).
     */
    static MsrDef globalOvfCtrl() {
        List<MsrField> f = new ArrayList<>();
        counterBits(f, "CLR_OVF_PMC#", "CLR_OVF_FIXED_CTR#", WO, "1 clears GLOBAL_STATUS overflow of");
        statusBits(f, "CLR_", WO, "1 clears GLOBAL_STATUS bit:", true);
        return new MsrDef(GLOBAL_OVF_CTRL, 0x390, f, RW, V2,
                "write 1 to clear IA32_PERF_GLOBAL_STATUS bits (IA32_PERF_GLOBAL_STATUS_RESET from v4)",
                SRC + "; SDM 18.2.4 names it IA32_PERF_GLOBAL_STATUS_RESET on v4");
    }

    /** 391H (v4+): writing 1 sets the same IA32_PERF_GLOBAL_STATUS bit (for VMMs); CondChgd is not settable. */
    static MsrDef globalStatusSet() {
        List<MsrField> f = new ArrayList<>();
        counterBits(f, "SET_OVF_PMC#", "SET_OVF_FIXED_CTR#", WO, "1 sets GLOBAL_STATUS overflow of");
        statusBits(f, "SET_", WO, "1 sets GLOBAL_STATUS bit:", false);
        return new MsrDef("IA32_PERF_GLOBAL_STATUS_SET", 0x391, f, RW, V4,
                "write 1 to set IA32_PERF_GLOBAL_STATUS bits (v4+, for virtualisation)", SRC);
    }

    /** 392H (v4+): which counters' controls are in use. */
    static MsrDef globalInuse() {
        List<MsrField> f = new ArrayList<>();
        counterBits(f, "PERFEVTSEL#_INUSE", "FIXED_CTR#_INUSE", RO, "in use:");
        f.add(bit(63, "PMI_INUSE", RO, ALWAYS, "some PMI enable is set"));
        return new MsrDef("IA32_PERF_GLOBAL_INUSE", 0x392, f, RO, V4,
                "read-only: which counters are in use (v4+)", SRC);
    }
}
