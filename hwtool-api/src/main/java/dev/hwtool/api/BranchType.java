package dev.hwtool.api;

import java.util.Locale;
import java.util.Optional;

/**
 * The kinds of taken branch that the branch-recording hardware tells apart, with how each
 * is named in the filters and records that classify branches:
 *
 * <ul>
 * <li>{@code lbrSelectBit}: the MSR_LBR_SELECT bit that <em>suppresses</em> it (SDM Vol. 3B
 *     Table 17-13 "MSR_LBR_SELECT for Intel microarchitecture code name Nehalem"; Linux lbr.c
 *     LBR_JCC_BIT..LBR_FAR_BIT). Interrupts and exceptions count as far branches there, as
 *     Linux's lbr.c maps X86_BR_IRQ/X86_BR_INT to LBR_FAR.
 * <li>{@code lbrCtlBit}: the IA32_LBR_CTL bit that <em>enables</em> it (architectural LBR;
 *     arch/x86/events/intel/lbr.c: 16 JCC … 22 OTHER_BRANCH).
 * <li>{@code archLbrBrType}: IA32_LBR_x_INFO.BR_TYPE [59:56] (arch/x86/events/intel/lbr.c: 0 JCC,
 *     1 NEAR_IND_JMP, 2 NEAR_REL_JMP, 3 NEAR_IND_CALL, 4 NEAR_REL_CALL, 5 NEAR_RET, 8–15
 *     other). The SDM reserves 8–15 for "other" without assigning them; the simulator
 *     <em>chooses</em> 8 for far branches and interrupts alike.
 * </ul>
 * {@code scriptName} is the short name used by scenario scripts and trace files.
 */
public enum BranchType {
    JCC("jcc", 2, 16, 0),
    NEAR_REL_CALL("call", 3, 19, 4),
    NEAR_IND_CALL("ind-call", 4, 20, 3),
    NEAR_REL_JMP("jmp", 7, 17, 2),
    NEAR_IND_JMP("ind-jmp", 6, 18, 1),
    NEAR_RET("ret", 5, 21, 5),
    FAR("far", 8, 22, 8),
    INTERRUPT("int", 8, 22, 8);

    /** IA32_LBR_x_INFO.BR_TYPE value the simulator gives far branches and interrupts ("other"). */
    public static final int ARCH_LBR_OTHER = 8;

    private static final BranchType[] VALUES = values();

    private final String scriptName;
    private final int lbrSelectBit;
    private final int lbrCtlBit;
    private final int archLbrBrType;

    BranchType(String scriptName, int lbrSelectBit, int lbrCtlBit, int archLbrBrType) {
        this.scriptName = scriptName;
        this.lbrSelectBit = lbrSelectBit;
        this.lbrCtlBit = lbrCtlBit;
        this.archLbrBrType = archLbrBrType;
    }

    public String scriptName() {
        return scriptName;
    }

    /** The MSR_LBR_SELECT bit that, when set, keeps this type out of the legacy LBR stack. */
    public int lbrSelectBit() {
        return lbrSelectBit;
    }

    /** The IA32_LBR_CTL bit that, when set, lets this type into the architectural LBRs. */
    public int lbrCtlBit() {
        return lbrCtlBit;
    }

    /** IA32_LBR_x_INFO.BR_TYPE for this type. */
    public int archLbrBrType() {
        return archLbrBrType;
    }

    /**
     * perf's common branch type (PERF_BR_* of include/uapi/linux/perf_event.h) that Linux reports
     * for this kind in perf_branch_entry.type: arch/x86/events/utils.c branch_map (X86_BR_JCC →
     * COND, X86_BR_JMP → UNCOND, X86_BR_IND_JMP → IND, X86_BR_CALL → CALL, X86_BR_IND_CALL →
     * IND_CALL, X86_BR_RET → RET, X86_BR_IRQ → IRQ). A far branch has no single X86_BR_* class
     * (far call, far jmp and syscall differ), so it is PERF_BR_UNKNOWN (0).
     */
    public int perfBrType() {
        return switch (this) {
            case JCC -> 1;
            case NEAR_REL_JMP -> 2;
            case NEAR_IND_JMP -> 3;
            case NEAR_REL_CALL -> 4;
            case NEAR_IND_CALL -> 5;
            case NEAR_RET -> 6;
            case INTERRUPT -> 12;
            case FAR -> 0;
        };
    }

    /** Near calls push in LBR call-stack mode (SDM Vol. 3B 17.9 "LBR Stack Enhancement"). */
    public boolean isCall() {
        return this == NEAR_REL_CALL || this == NEAR_IND_CALL;
    }

    /** Near returns pop in LBR call-stack mode. */
    public boolean isReturn() {
        return this == NEAR_RET;
    }

    /** By script name ("jcc", "ind-call", …) or enum name, case-insensitive. */
    public static Optional<BranchType> byName(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        for (BranchType t : VALUES) {
            if (t.scriptName.equals(n) || t.name().toLowerCase(Locale.ROOT).equals(n)) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }

    /** The script names, for error messages: "jcc|call|ind-call|jmp|ind-jmp|ret|far|int". */
    public static String scriptNames() {
        StringBuilder b = new StringBuilder();
        for (BranchType t : VALUES) {
            if (!b.isEmpty()) {
                b.append('|');
            }
            b.append(t.scriptName);
        }
        return b.toString();
    }
}
