package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidRegs;

/**
 * Where a logical processor sits among the hardware threads of its core, from its own CPUID
 * (SDM Vol. 3A 9.9 "Identifying topology hierarchy"; Vol. 2A CPUID leaves 1FH, 0BH, 4, 1; Linux
 * arch/x86/kernel/cpu/topology_ext.c and topology_common.c):
 *
 * <ul>
 * <li>with V2 extended topology (leaf 1FH) or extended topology (leaf 0BH) — 1FH preferred when
 *     it exists, as Linux does — the x2APIC ID is EDX of the leaf and the SMT level (level type
 *     1 in ECX[15:8]) gives in EAX[4:0] how many low ID bits name the thread within the core;
 * <li>otherwise, with HTT (CPUID.01H:EDX[28]), the initial APIC ID is CPUID.01H:EBX[31:24] and
 *     the thread bits are those needed for CPUID.01H:EBX[23:16] logical processors per package
 *     divided by the cores per package of leaf 4 (EAX[31:26] + 1);
 * <li>else one thread per core.
 * </ul>
 *
 * @param apicId   the x2APIC (or initial APIC) ID
 * @param smtShift how many low ID bits select the thread: logical processors whose IDs agree
 *                 above them share a core
 */
public record SmtTopology(int apicId, int smtShift) {

    /** CPUID level type of the SMT level (ECX[15:8] of leaf 0BH/1FH). */
    static final int LEVEL_SMT = 1;
    static final int HTT_BIT = 28;

    /** The core this logical processor belongs to: its ID without the thread bits. */
    public int coreId() {
        return smtShift >= 32 ? 0 : apicId >>> smtShift;
    }

    public static SmtTopology of(GuardedCpuid cpuid) {
        for (int leaf : new int[]{0x1F, 0x0B}) {
            if (!cpuid.has(leaf) || cpuid.read(leaf, 0).ebx() == 0) {
                continue;
            }
            CpuidRegs level0 = cpuid.read(leaf, 0);
            int shift = (level0.ecx() >>> 8 & 0xFF) == LEVEL_SMT ? level0.eax() & 0x1F : 0;
            return new SmtTopology(level0.edx(), shift);
        }
        CpuidRegs one = cpuid.read(1, 0);
        int initialId = one.ebx() >>> 24;
        if ((one.edx() >>> HTT_BIT & 1) == 0) {
            return new SmtTopology(initialId, 0);
        }
        int logical = one.ebx() >>> 16 & 0xFF;
        int cores = cpuid.has(4) ? (cpuid.read(4, 0).eax() >>> 26) + 1 : 1;
        int perCore = Math.max(1, logical / Math.max(1, cores));
        return new SmtTopology(initialId, 32 - Integer.numberOfLeadingZeros(perCore - 1));
    }
}
