package dev.hwtool.arch.cpuid;

import dev.hwtool.arch.cpuid.CpuidRegs.Reg;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.LongUnaryOperator;
import java.util.function.Predicate;

/**
 * Every leaf and subleaf a CPU reports, in the order and by the rules of {@code cpuid -r}
 * (Todd Allen's cpuid, {@code do_real()} in cpuid.c; read from the 20230614 source, the
 * nearest published to Debian's 20230120, whose ChangeLog records no change to the walk
 * in between). Pure: the reader is the only input, so the same walk serves a live CPU, a dump
 * (where an unrecorded leaf reads as zeros) or a simulator profile.
 *
 * <p>The walk, range by range ({@code do_real()}):
 * <ol>
 *   <li>basic leaves {@code 0..CPUID.0:EAX}, each by its {@link #BASIC_RULES subleaf rule};</li>
 *   <li>{@code 0x20000000..EAX} (Xeon Phi); an EAX above {@code 0x20000100} is garbage
 *       (Pentium 4 echoes a basic leaf) and stops the range at its base;</li>
 *   <li>only if CPUID.1:ECX[31] (hypervisor present, and only if leaf 1 was walked): hypervisor
 *       bases {@code 0x40000000, 0x40000100, .. < 0x40010000} (Xen's stride, see
 *       {@link #hypervisorLeaves});</li>
 *   <li>{@code 0x80000000..EAX}, with the {@link #EXTENDED_RULES};</li>
 *   <li>{@code 0x80860000..EAX} (Transmeta);</li>
 *   <li>{@code 0xc0000000..EAX} (Centaur/VIA/Zhaoxin); an EAX above {@code 0xc0001000} stops the
 *       range at its base.</li>
 * </ol>
 * Every range prints its base leaf even when the range is empty. The only vendor-dependent
 * rules in cpuid.c are the hypervisor ones (KVM, Xen).
 *
 * <p>Two guards are hwtool's, not cpuid's, so that a broken or synthetic reader cannot make
 * the walk endless: no more than {@value #SUBLEAF_LIMIT} subleaves per leaf (the bound cpuid.c
 * itself uses for leaf 0x1F) and no more than {@value #RANGE_LIMIT} leaves per range beyond its
 * base (the bound cpuid.c itself uses for 0xc0000000). No real CPU comes near either.
 */
public final class SubleafEnumerator {

    static final int SUBLEAF_LIMIT = 256;
    static final long RANGE_LIMIT = 0x1000;

    private SubleafEnumerator() {
    }

    public static List<CpuidLeaf> enumerate(CpuidReader r) {
        List<CpuidLeaf> out = new ArrayList<>();
        long basicMax = walkRange(r, 0x0L, BASIC_RULES, max -> max, out);
        walkRange(r, 0x20000000L, Map.of(), max -> max > 0x20000100L ? 0x20000000L : max, out);
        if (basicMax >= 1 && r.cpuid(1).bit(Reg.ECX, 31)) {
            hypervisorLeaves(r, out);
        }
        walkRange(r, 0x80000000L, EXTENDED_RULES, max -> max, out);
        walkRange(r, 0x80860000L, Map.of(), max -> max, out);
        walkRange(r, 0xc0000000L, Map.of(), max -> max > 0xc0001000L ? 0xc0000000L : max, out);
        return out;
    }

    // ---- the subleaf rules, as data -------------------------------------------------------

    /** How cpuid.c walks the subleaves of one leaf; {@code first} is subleaf 0, already read. */
    sealed interface SubleafRule {
        void walk(int leaf, CpuidRegs first, CpuidReader r, List<CpuidLeaf> out);
    }

    /** Subleaf 0 only: every leaf without a rule. */
    record Single() implements SubleafRule {
        public void walk(int leaf, CpuidRegs first, CpuidReader r, List<CpuidLeaf> out) {
            out.add(new CpuidLeaf(leaf, 0, first));
        }
    }

    /**
     * Leaf 2: AL says how many times to execute CPUID(2) (at least once); cpuid.c numbers the
     * executions 0, 1, .. in its subleaf column. Leaf 2 ignores ECX, so reading subleaf n of a
     * live CPU is another execution, and of a dump is the n-th recorded one.
     */
    record RepeatCountInAl() implements SubleafRule {
        public void walk(int leaf, CpuidRegs first, CpuidReader r, List<CpuidLeaf> out) {
            int count = Math.max(1, first.bits(Reg.EAX, 7, 0));
            out.add(new CpuidLeaf(leaf, 0, first));
            for (int sub = 1; sub < count; sub++) {
                out.add(new CpuidLeaf(leaf, sub, r.cpuid(leaf, sub)));
            }
        }
    }

    /** Subleaves 0..EAX of subleaf 0 (leaves 7, 0x14, 0x17, 0x18, 0x1D, 0x20, 0x23). */
    record MaxSubleafInEax() implements SubleafRule {
        public void walk(int leaf, CpuidRegs first, CpuidReader r, List<CpuidLeaf> out) {
            long max = Math.min(Integer.toUnsignedLong(first.eax()), SUBLEAF_LIMIT - 1);
            out.add(new CpuidLeaf(leaf, 0, first));
            for (int sub = 1; sub <= max; sub++) {
                out.add(new CpuidLeaf(leaf, sub, r.cpuid(leaf, sub)));
            }
        }
    }

    /**
     * Subleaves {@code 0..alwaysBelow-1} unconditionally, then each next one up to and
     * including the first that {@code invalid} marks as the end of the list (cpuid.c prints
     * the terminating subleaf too).
     */
    record ThroughFirstInvalid(int alwaysBelow, Predicate<CpuidRegs> invalid) implements SubleafRule {
        public void walk(int leaf, CpuidRegs first, CpuidReader r, List<CpuidLeaf> out) {
            for (int sub = 0; sub < SUBLEAF_LIMIT; sub++) {
                CpuidRegs regs = sub == 0 ? first : r.cpuid(leaf, sub);
                out.add(new CpuidLeaf(leaf, sub, regs));
                if (sub >= alwaysBelow && invalid.test(regs)) {
                    return;
                }
            }
        }
    }

    /** Subleaves 0, 1, .. while {@code valid}; the first invalid one is not listed, nor is 0 if invalid. */
    record WhileValid(Predicate<CpuidRegs> valid) implements SubleafRule {
        public void walk(int leaf, CpuidRegs first, CpuidReader r, List<CpuidLeaf> out) {
            CpuidRegs regs = first;
            for (int sub = 0; sub < SUBLEAF_LIMIT && valid.test(regs); ) {
                out.add(new CpuidLeaf(leaf, sub, regs));
                sub++;
                regs = r.cpuid(leaf, sub);
            }
        }
    }

    /** Subleaf 0, then each subleaf {@code from..to} whose bit is set in {@code reg} of subleaf 0. */
    record BitmaskInSubleaf0(Reg reg, int from, int to) implements SubleafRule {
        public void walk(int leaf, CpuidRegs first, CpuidReader r, List<CpuidLeaf> out) {
            out.add(new CpuidLeaf(leaf, 0, first));
            for (int sub = from; sub <= to; sub++) {
                if (first.bit(reg, sub)) {
                    out.add(new CpuidLeaf(leaf, sub, r.cpuid(leaf, sub)));
                }
            }
        }
    }

    /**
     * Leaf 0xD: subleaves 0 and 1, then each n in 2..62 whose bit is set in the XCR0 mask
     * (EDX:EAX of subleaf 0) or the IA32_XSS mask (EDX:ECX of subleaf 1). SDM Vol. 1 13.2.
     */
    record XsaveComponents() implements SubleafRule {
        public void walk(int leaf, CpuidRegs first, CpuidReader r, List<CpuidLeaf> out) {
            CpuidRegs second = r.cpuid(leaf, 1);
            out.add(new CpuidLeaf(leaf, 0, first));
            out.add(new CpuidLeaf(leaf, 1, second));
            long valid = pair(first.edx(), first.eax()) | pair(second.edx(), second.ecx());
            for (int sub = 2; sub < 63; sub++) {
                if ((valid >>> sub & 1) != 0) {
                    out.add(new CpuidLeaf(leaf, sub, r.cpuid(leaf, sub)));
                }
            }
        }

        private static long pair(int hi, int lo) {
            return (Integer.toUnsignedLong(hi) << 32) | Integer.toUnsignedLong(lo);
        }
    }

    /** Deterministic cache parameters (leaf 4, 0x8000001D): EAX[4:0] cache type 0 = no more caches. */
    static final Predicate<CpuidRegs> NO_MORE_CACHES = regs -> regs.bits(Reg.EAX, 4, 0) == 0;
    /** Extended topology (leaf 0xB, 0x1F): ECX[15:8] level type 0 = invalid. */
    static final Predicate<CpuidRegs> LEVEL_TYPE_INVALID = regs -> regs.bits(Reg.ECX, 15, 8) == 0;
    /** SGX EPC enumeration (leaf 0x12, subleaf 2+): EAX[3:0] sub-leaf type 0 = invalid (SDM Vol. 3 36.7.2). */
    static final Predicate<CpuidRegs> SGX_EPC_INVALID = regs -> regs.bits(Reg.EAX, 3, 0) == 0;
    /** PCONFIG (leaf 0x1B): EAX[11:0] sub-leaf type 0 = invalid, and so are all after it. */
    static final Predicate<CpuidRegs> PCONFIG_INVALID = regs -> regs.bits(Reg.EAX, 11, 0) == 0;

    private static final SubleafRule SINGLE = new Single();
    private static final SubleafRule MAX_IN_EAX = new MaxSubleafInEax();

    /** The basic-range rules of cpuid.c's {@code do_real()}; every other basic leaf is {@link Single}. */
    static final Map<Integer, SubleafRule> BASIC_RULES = Map.ofEntries(
            Map.entry(0x02, new RepeatCountInAl()),
            Map.entry(0x04, new ThroughFirstInvalid(0, NO_MORE_CACHES)),
            Map.entry(0x07, MAX_IN_EAX),
            Map.entry(0x0b, new ThroughFirstInvalid(0, LEVEL_TYPE_INVALID)),
            Map.entry(0x0d, new XsaveComponents()),
            // RDT monitoring: EDX bit 1 of subleaf 0 = L3 monitoring, subleaf 1
            Map.entry(0x0f, new BitmaskInSubleaf0(Reg.EDX, 1, 1)),
            // RDT allocation: EBX bit n of subleaf 0 = resource n (1 L3 CAT, 2 L2 CAT, 3 MBA)
            Map.entry(0x10, new BitmaskInSubleaf0(Reg.EBX, 1, 31)),
            Map.entry(0x12, new ThroughFirstInvalid(2, SGX_EPC_INVALID)),
            Map.entry(0x14, MAX_IN_EAX),
            Map.entry(0x17, MAX_IN_EAX),
            Map.entry(0x18, MAX_IN_EAX),
            Map.entry(0x1b, new ThroughFirstInvalid(1, PCONFIG_INVALID)),
            Map.entry(0x1d, MAX_IN_EAX),
            Map.entry(0x1f, new ThroughFirstInvalid(1, LEVEL_TYPE_INVALID)),
            Map.entry(0x20, MAX_IN_EAX),
            Map.entry(0x23, MAX_IN_EAX));

    /**
     * The extended-range rules. cpuid.c also has a rule for 0x80000026 (AMD extended topology,
     * like 0x1F) but places it in the basic range's chain, where the walk never reaches it, so
     * {@code cpuid -r} lists 0x80000026 with subleaf 0 only; so does this.
     */
    static final Map<Integer, SubleafRule> EXTENDED_RULES = Map.of(
            0x8000001d, new WhileValid(NO_MORE_CACHES.negate()),
            // AMD PQoS: EBX bit n of subleaf 0 = resource n
            0x80000020, new BitmaskInSubleaf0(Reg.EBX, 1, 31));

    // ---- the ranges ------------------------------------------------------------------------

    /**
     * Walks one range: the base leaf always, then {@code base+1..max}, where max is the base
     * leaf's EAX after {@code sanity}. Returns max (below base if the range is empty).
     */
    private static long walkRange(CpuidReader r, long base, Map<Integer, SubleafRule> rules,
                                  LongUnaryOperator sanity, List<CpuidLeaf> out) {
        CpuidRegs baseRegs = r.cpuid((int) base);
        rules.getOrDefault((int) base, SINGLE).walk((int) base, baseRegs, r, out);
        long max = Math.min(sanity.applyAsLong(Integer.toUnsignedLong(baseRegs.eax())), base + RANGE_LIMIT);
        for (long reg = base + 1; reg <= max; reg++) {
            rules.getOrDefault((int) reg, SINGLE).walk((int) reg, r.cpuid((int) reg), r, out);
        }
        return max;
    }

    /** cpuid.c's {@code IS_HYPERVISOR_LEAF(reg, want)}, lower bound 0x4000000 as written there. */
    private static boolean isHypervisorLeaf(long reg, int want) {
        return reg >= 0x4000000L && reg < 0x40010000L && (reg & 0xff) == want;
    }

    /** Hypervisor identity as cpuid.c's {@code get_hypervisor()} tells it from a base leaf. */
    enum HypervisorId {
        VMWARE("VMwareVMware"), XEN("XenVMMXenVMM"), KVM("KVMKVMKVM\0\0\0"),
        MICROSOFT("Microsoft Hv"), ACRN("ACRNACRNACRN"), UNKNOWN(null);

        private final String signature;

        HypervisorId(String signature) {
            this.signature = signature;
        }

        /** The signature is EBX, ECX, EDX, four little-endian characters each. */
        static HypervisorId of(CpuidRegs regs) {
            for (HypervisorId h : values()) {
                if (h.signature != null
                        && regs.ebx() == chars4(h.signature, 0)
                        && regs.ecx() == chars4(h.signature, 4)
                        && regs.edx() == chars4(h.signature, 8)) {
                    return h;
                }
            }
            return UNKNOWN;
        }

        private static int chars4(String s, int at) {
            return s.charAt(at) | s.charAt(at + 1) << 8 | s.charAt(at + 2) << 16 | s.charAt(at + 3) << 24;
        }
    }

    /**
     * Hypervisor leaves, as cpuid.c walks them: each base 0x40000000 + n*0x100 below 0x40010000
     * (hypervisors nested under others; stride from Xen's tools/misc/xen-detect.c) is listed, then
     * {@code base+1..EAX}. KVM may answer EAX = 0, meaning {@code base+1}. The walk ends at a base
     * whose EAX is below the base (no hypervisor there), or whose EAX is over {@code base+0x100}
     * when the signature is unknown (broken data). Xen's leaf base+3 has subleaves 0..2.
     * As in cpuid.c, the identity is re-read from every leaf whose low byte is 0.
     */
    private static void hypervisorLeaves(CpuidReader r, List<CpuidLeaf> out) {
        for (long base = 0x40000000L; base < 0x40010000L; base += 0x100) {
            CpuidRegs id = r.cpuid((int) base);
            out.add(new CpuidLeaf((int) base, 0, id));
            HypervisorId hv = HypervisorId.of(id);
            long max = Integer.toUnsignedLong(id.eax());
            if (hv == HypervisorId.KVM && max == 0) {
                max = base + 1;
            }
            if ((hv == HypervisorId.UNKNOWN && max > base + 0x100) || max < base) {
                return;
            }
            max = Math.min(max, base + RANGE_LIMIT);
            for (long reg = base + 1; reg <= max; reg++) {
                CpuidRegs regs = r.cpuid((int) reg);
                if (isHypervisorLeaf(reg, 3) && hv == HypervisorId.XEN) {
                    out.add(new CpuidLeaf((int) reg, 0, regs));
                    out.add(new CpuidLeaf((int) reg, 1, r.cpuid((int) reg, 1)));
                    out.add(new CpuidLeaf((int) reg, 2, r.cpuid((int) reg, 2)));
                } else {
                    out.add(new CpuidLeaf((int) reg, 0, regs));
                }
                if (isHypervisorLeaf(reg, 0)) {
                    hv = HypervisorId.of(regs);
                }
            }
        }
    }
}
