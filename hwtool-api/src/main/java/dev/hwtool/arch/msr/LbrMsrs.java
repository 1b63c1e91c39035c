package dev.hwtool.arch.msr;

import dev.hwtool.arch.decode.CpuidBit;
import dev.hwtool.arch.decode.LegacyLbrTable;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.hwtool.arch.msr.Access.RW;
import static dev.hwtool.arch.msr.Condition.ALWAYS;
import static dev.hwtool.arch.msr.Fields.bit;
import static dev.hwtool.arch.msr.Fields.bits;
import static dev.hwtool.arch.msr.Fields.sized;

/**
 * Last-branch-record registers (arch/x86/events/intel/lbr.c). Legacy: MSR_LBR_SELECT, MSR_LASTBRANCH_TOS
 * and the FROM/TO/INFO stacks at the addresses of {@link LegacyLbrTable}, one register per entry
 * up to the deepest stack at that address. Architectural (CPUID.(07H,0):EDX[19], leaf 1CH):
 * IA32_LBR_CTL, IA32_LBR_DEPTH and IA32_LBR_x_INFO/FROM_IP/TO_IP for x = 0..31.
 */
final class LbrMsrs {

    /** Deepest legacy stacks: 8 at 40H/60H (Atom), 32 at 680H/6C0H/DC0H (Skylake, Goldmont). */
    static final int CORE_STACK_MAX = 8;
    static final int NHM_STACK_MAX = 32;
    /** SDM Vol. 4 Table 2-2 lists IA32_LBR_0..31; Linux caps arch LBR at 32 too. */
    static final int ARCH_LBR_MAX = 32;

    static final long ARCH_LBR_INFO_0 = 0x1200;
    static final long ARCH_LBR_FROM_0 = 0x1500;
    static final long ARCH_LBR_TO_0 = 0x1600;

    /** Silvermont/Airmont keep the Core-style stack at 40H but have MSR_LBR_SELECT (lbr.c intel_pmu_lbr_init_slm). */
    static final Condition SILVERMONT = new Condition.IntelModel(0x6, Set.of(0x37, 0x4D, 0x4A, 0x5A, 0x4C, 0x75),
            "Silvermont/Airmont");

    private static final String SRC = "SDM Vol. 3B 17.4.8, Table 17-4, Vol. 4 model tables; Linux"
            + " arch/x86/events/intel/lbr.c";
    private static final String ARCH_SRC = "SDM Vol. 3B 17.1 (architectural LBR), Vol. 4 Table 2-2; Linux"
            + " arch/x86/events/intel/lbr.c";

    private static final Pattern SDM_CORE_NAME = Pattern.compile("MSR_LASTBRANCH_(\\d+)_(FROM|TO)_IP");

    private LbrMsrs() {
    }

    static List<MsrDef> defs() {
        List<MsrDef> out = new ArrayList<>();
        out.add(lbrSelect());
        out.add(tos());
        for (int i = 0; i < CORE_STACK_MAX; i++) {
            out.add(address("MSR_LBR_CORE_FROM_" + i, LegacyLbrTable.MSR_LBR_CORE_FROM + i, "FROM_IP",
                    new Condition.LegacyLbrEntry(Condition.LbrPart.FROM, LegacyLbrTable.MSR_LBR_CORE_FROM, i),
                    "Core 2/Atom LBR entry " + i + " source (SDM name MSR_LASTBRANCH_" + i + "_FROM_IP)"));
            out.add(address("MSR_LBR_CORE_TO_" + i, LegacyLbrTable.MSR_LBR_CORE_TO + i, "TO_IP",
                    new Condition.LegacyLbrEntry(Condition.LbrPart.TO, LegacyLbrTable.MSR_LBR_CORE_TO, i),
                    "Core 2/Atom LBR entry " + i + " destination (SDM name MSR_LASTBRANCH_" + i + "_TO_IP)"));
        }
        for (int i = 0; i < NHM_STACK_MAX; i++) {
            out.add(address("MSR_LASTBRANCH_" + i + "_FROM_IP", LegacyLbrTable.MSR_LBR_NHM_FROM + i, "FROM_IP",
                    new Condition.LegacyLbrEntry(Condition.LbrPart.FROM, LegacyLbrTable.MSR_LBR_NHM_FROM, i),
                    "LBR entry " + i + " source; format-dependent flags in the top bits (IA32_PERF_CAPABILITIES.LBR_FMT)"));
            out.add(address("MSR_LASTBRANCH_" + i + "_TO_IP", LegacyLbrTable.MSR_LBR_NHM_TO + i, "TO_IP",
                    new Condition.LegacyLbrEntry(Condition.LbrPart.TO, LegacyLbrTable.MSR_LBR_NHM_TO, i),
                    "LBR entry " + i + " destination (LBR_FMT 6: cycle count in [63:48])"));
            out.add(lbrInfo(i));
        }
        out.add(lbrCtl());
        out.add(lbrDepth());
        for (int i = 0; i < ARCH_LBR_MAX; i++) {
            Condition has = new Condition.ArchLbrIndexBelow(i);
            out.add(archInfo(i, has));
            out.add(address("IA32_LBR_" + i + "_FROM_IP", ARCH_LBR_FROM_0 + i, "FROM_IP", has,
                    "architectural LBR entry " + i + " source address (entry 0 = most recent)"));
            out.add(address("IA32_LBR_" + i + "_TO_IP", ARCH_LBR_TO_0 + i, "TO_IP", has,
                    "architectural LBR entry " + i + " destination address"));
        }
        return out;
    }

    /** MSR_LASTBRANCH_x_FROM_IP/TO_IP → the Core/Atom stack's catalog name (see MsrCatalog.byName(String, CpuContext)). */
    static Optional<String> coreStackName(String upperCaseName) {
        Matcher m = SDM_CORE_NAME.matcher(upperCaseName);
        if (!m.matches()) {
            return Optional.empty();
        }
        return Optional.of("MSR_LBR_CORE_" + m.group(2) + "_" + Integer.parseInt(m.group(1)));
    }

    private static MsrDef address(String name, long address, String field, Condition exists, String description) {
        return new MsrDef(name, address, List.of(sized(63, 0, field, RW, FieldWidth.DECLARED,
                "branch address as the record format stores it")), RW, exists, description,
                name.startsWith("IA32_") ? ARCH_SRC : SRC);
    }

    /** Nehalem+ LBR filter (SDM Table 17-13/17-15; lbr.c LBR_*): bits 0..8 suppress, EN_CALLSTACK enables. */
    static MsrDef lbrSelect() {
        Condition exists = Condition.or(
                new Condition.LegacyLbrEntry(Condition.LbrPart.FROM, LegacyLbrTable.MSR_LBR_NHM_FROM, 0), SILVERMONT);
        return new MsrDef("MSR_LBR_SELECT", 0x1C8, List.of(
                bit(0, "CPL_EQ_0", "do not capture branches ending in ring 0"),
                bit(1, "CPL_NEQ_0", "do not capture branches ending in rings > 0"),
                bit(2, "JCC", "do not capture conditional branches"),
                bit(3, "NEAR_REL_CALL", "do not capture near relative calls"),
                bit(4, "NEAR_IND_CALL", "do not capture near indirect calls"),
                bit(5, "NEAR_RET", "do not capture near returns"),
                bit(6, "NEAR_IND_JMP", "do not capture near indirect jumps other than calls/returns"),
                bit(7, "NEAR_REL_JMP", "do not capture near relative jumps other than calls"),
                bit(8, "FAR_BRANCH", "do not capture far branches"),
                bit(9, "EN_CALLSTACK", RW, new Condition.LegacyLbrCallStack(),
                        "call-stack mode: returns pop the LBR stack (Haswell+; needs only calls and returns)")),
                RW, exists, "legacy LBR filter: set bits suppress capture (cleared at RESET: capture all)", SRC);
    }

    static MsrDef tos() {
        return new MsrDef("MSR_LASTBRANCH_TOS", 0x1C9, List.of(
                new MsrField("TOS", 4, 0, RW, ALWAYS,
                        "index of the most recent LBR entry; incremented before each write, wraps at depth",
                        FieldWidth.LEGACY_LBR_INDEX)),
                RW, new Condition.LegacyLbrPresent(), "legacy LBR top of stack", SRC);
    }

    /** MSR_LBR_INFO_x (LBR_FMT 5/7, SDM Table 17-16): flags and cycle count of entry x. */
    private static MsrDef lbrInfo(int i) {
        return new MsrDef("MSR_LBR_INFO_" + i, LegacyLbrTable.MSR_LBR_INFO_0 + i, List.of(
                bits(15, 0, "CYC_CNT", "core cycles since the previous LBR update (saturating)"),
                bit(61, "TSX_ABORT", "the branch was a transaction abort"),
                bit(62, "IN_TSX", "the branch was inside a transaction"),
                bit(63, "MISPRED", "the branch was mispredicted")),
                RW, new Condition.LegacyLbrEntry(Condition.LbrPart.INFO, LegacyLbrTable.MSR_LBR_INFO_0, i),
                "LBR entry " + i + " information (Skylake+ LBR_FMT 5, Goldmont Plus LBR_FMT 7)", SRC);
    }

    /** IA32_LBR_CTL (14CEH): bits enable recording; filters exist per CPUID.1CH:EBX. */
    static MsrDef lbrCtl() {
        Condition cpl = Condition.cpuid(CpuidBit.ARCH_LBR_CPL_FILTER);
        Condition branch = Condition.cpuid(CpuidBit.ARCH_LBR_BRANCH_FILTER);
        return new MsrDef("IA32_LBR_CTL", 0x14CE, List.of(
                bit(0, "LBREN", "enable LBR recording"),
                bit(1, "OS", RW, cpl, "record branches ending in ring 0"),
                bit(2, "USR", RW, cpl, "record branches ending in rings > 0"),
                bit(3, "CALL_STACK", RW, Condition.cpuid(CpuidBit.ARCH_LBR_CALL_STACK), "call-stack mode"),
                bit(16, "JCC", RW, branch, "record conditional branches"),
                bit(17, "NEAR_REL_JMP", RW, branch, "record near relative jumps"),
                bit(18, "NEAR_IND_JMP", RW, branch, "record near indirect jumps"),
                bit(19, "NEAR_REL_CALL", RW, branch, "record near relative calls"),
                bit(20, "NEAR_IND_CALL", RW, branch, "record near indirect calls"),
                bit(21, "NEAR_RET", RW, branch, "record near returns"),
                bit(22, "OTHER_BRANCH", RW, branch, "record other branches")),
                RW, new Condition.ArchLbrIndexBelow(0), "architectural LBR control (bits enable capture)", ARCH_SRC);
    }

    /**
     * IA32_LBR_DEPTH (14CFH). Only depths CPUID.1CH:EAX[7:0] enumerates are accepted (Linux checks
     * with wrmsrl_safe); the mask cannot say that, the field only bounds the width. Writing it
     * clears all LBR entries.
     */
    static MsrDef lbrDepth() {
        return new MsrDef("IA32_LBR_DEPTH", 0x14CF, List.of(
                bits(8, 0, "DEPTH", "number of LBR entries in use; must be a depth CPUID.1CH:EAX[7:0] lists")),
                RW, new Condition.ArchLbrIndexBelow(0), "architectural LBR depth; a write clears every entry",
                ARCH_SRC);
    }

    /** IA32_LBR_x_INFO (1200H+x): arch/x86/events/intel/lbr.c; fields exist per CPUID.1CH:ECX and RTM. */
    private static MsrDef archInfo(int i, Condition has) {
        Condition timed = Condition.cpuid(CpuidBit.ARCH_LBR_TIMED);
        Condition tsx = Condition.cpuid(CpuidBit.RTM);
        return new MsrDef("IA32_LBR_" + i + "_INFO", ARCH_LBR_INFO_0 + i, List.of(
                bits(15, 0, "CYC_CNT", RW, timed, "cycles since the previous LBR entry (saturating)"),
                bits(59, 56, "BR_TYPE", RW, Condition.cpuid(CpuidBit.ARCH_LBR_BRANCH_TYPE),
                        "branch type: 0 JCC, 1 NEAR_IND_JMP, 2 NEAR_REL_JMP, 3 NEAR_IND_CALL, 4 NEAR_REL_CALL,"
                                + " 5 NEAR_RET, 8-15 other"),
                bit(60, "CYC_CNT_VALID", RW, timed, "CYC_CNT is valid"),
                bit(61, "TSX_ABORT", RW, tsx, "the branch was a transaction abort"),
                bit(62, "IN_TSX", RW, tsx, "the branch was inside a transaction"),
                bit(63, "MISPRED", RW, Condition.cpuid(CpuidBit.ARCH_LBR_MISPREDICT), "the branch was mispredicted")),
                RW, has, "architectural LBR entry " + i + " information", ARCH_SRC);
    }
}
