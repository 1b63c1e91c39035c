package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidLeaf;
import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.arch.cpuid.CpuidRegs.Reg;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * Where one CPU's two CPUID paths disagree: the instruction run in user space, and the kernel's
 * answer for the same CPU ({@code /dev/cpu/N/cpuid}, where arch/x86/kernel/cpuid.c runs CPUID on
 * that CPU in ring 0). On bare metal both are the same instruction on the same CPU and agree; a
 * hypervisor traps CPUID (SDM Vol. 3C 26.1.2: CPUID exits unconditionally in VMX non-root) and
 * may answer the two differently. A bit that also changes between two user-space reads of the
 * same CPU is marked unstable: an answer computed per call, not a fixed property of the CPU.
 *
 * <p>Pure: the caller reads the answers and hands them over.
 */
public final class CpuidPathDiff {

    private CpuidPathDiff() {
    }

    /**
     * One register of one leaf whose answers differ.
     *
     * @param user     the register as the instruction answered in user space (the first read)
     * @param kernel   the register as the kernel answered
     * @param unstable the bits that differed between two user-space reads (0 when stable)
     */
    public record Difference(int leaf, int subleaf, Reg reg, int user, int kernel, int unstable) {
        public Difference {
            Objects.requireNonNull(reg, "reg");
        }

        /** The bits that differ between the two paths. */
        public int bits() {
            return user ^ kernel;
        }

        /** In the SDM's notation: {@code CPUID.01H:EBX[31:24]}, or {@code CPUID.(07H,0):EDX[15,3]}. */
        public String where() {
            String l = String.format("%02XH", leaf);
            String at = subleaf == 0 && !SUBLEAF_LEAVES.contains(leaf) ? l : "(" + l + "," + subleaf + ")";
            return "CPUID." + at + ":" + reg + "[" + ranges(bits()) + "]";
        }

        /** The known fields and flags among the differing bits, e.g. "initial APIC ID"; empty if none is known. */
        public List<String> names() {
            List<String> out = new ArrayList<>();
            for (Named n : NAMED) {
                if (n.leaf == leaf && (n.subleaf == subleaf || n.subleaf < 0) && n.reg == reg && (n.mask() & bits()) != 0) {
                    out.add(n.name);
                }
            }
            for (CpuidBit b : CpuidBit.values()) {
                if (b.leaf() == leaf && b.subleaf() == subleaf && b.reg() == reg && (bits() >>> b.bit() & 1) != 0) {
                    out.add(b.name());
                }
            }
            return out;
        }
    }

    /** Leaves with subleaves, written with theirs even at 0 (SDM Vol. 2A, CPUID). */
    private static final List<Integer> SUBLEAF_LEAVES = List.of(0x4, 0x7, 0xB, 0xD, 0xF, 0x10, 0x12, 0x14,
            0x17, 0x18, 0x1D, 0x1F, 0x20, 0x23, 0x8000_001D, 0x8000_0020, 0x8000_0026);

    /**
     * Multi-bit fields that legitimately vary per CPU or per call, named so that a report can say
     * what differs (SDM Vol. 2A Table 3-8 for leaf 1 EBX, 3.2 "CPUID" leaves 0BH/1FH; AMD APM
     * Vol. 3 E.4.1 and E.4.7 for leaves 8000_0001H and 8000_001EH).
     */
    private record Named(int leaf, int subleaf, Reg reg, int hi, int lo, String name) {
        int mask() {
            return (int) ((1L << (hi - lo + 1)) - 1) << lo;
        }
    }

    private static final List<Named> NAMED = List.of(
            new Named(0x1, 0, Reg.EBX, 31, 24, "initial APIC ID"),
            new Named(0x1, 0, Reg.EBX, 23, 16, "addressable logical processor IDs"),
            new Named(0x1, 0, Reg.EBX, 15, 8, "CLFLUSH line size"),
            new Named(0x1, 0, Reg.ECX, 27, 27, "OSXSAVE"),
            new Named(0x1, 0, Reg.EAX, 31, 0, "signature (family, model, stepping)"),
            new Named(0xB, -1, Reg.EDX, 31, 0, "x2APIC ID"),
            new Named(0x1F, -1, Reg.EDX, 31, 0, "x2APIC ID"),
            new Named(0x8000_001E, 0, Reg.EAX, 31, 0, "extended APIC ID"),
            new Named(0x8000_001E, 0, Reg.EBX, 7, 0, "core ID"));

    /**
     * The differences between {@code user} (the leaves the instruction answered, as enumerated)
     * and {@code kernel}'s answers to the same leaves, with {@code userAgain} (a second
     * enumeration in user space) marking the unstable bits. A leaf the second read did not
     * return counts as stable. Leaves whose subleaf the kernel's driver cannot take (bit 31 set:
     * the file offset would be negative) are not compared.
     */
    public static List<Difference> compare(List<CpuidLeaf> user, List<CpuidLeaf> userAgain, CpuidReader kernel) {
        List<Difference> out = new ArrayList<>();
        for (CpuidLeaf l : user) {
            if (l.subleaf() < 0) {
                continue;
            }
            CpuidRegs k = kernel.cpuid(l.leaf(), l.subleaf());
            CpuidRegs again = find(userAgain, l.leaf(), l.subleaf());
            for (Reg r : Reg.values()) {
                int u = l.regs().get(r);
                int kv = k.get(r);
                if (u != kv) {
                    out.add(new Difference(l.leaf(), l.subleaf(), r, u, kv, again == null ? 0 : u ^ again.get(r)));
                }
            }
        }
        return out;
    }

    private static CpuidRegs find(List<CpuidLeaf> leaves, int leaf, int subleaf) {
        for (CpuidLeaf l : leaves) {
            if (l.leaf() == leaf && l.subleaf() == subleaf) {
                return l.regs();
            }
        }
        return null;
    }

    /** Set bits as SDM ranges, high first: 0xFF000000 → "31:24", 0x8008 → "15,3". */
    static String ranges(int mask) {
        StringJoiner j = new StringJoiner(",");
        int bit = 31;
        while (bit >= 0) {
            if ((mask >>> bit & 1) == 0) {
                bit--;
                continue;
            }
            int hi = bit;
            while (bit >= 0 && (mask >>> bit & 1) != 0) {
                bit--;
            }
            int lo = bit + 1;
            j.add(hi == lo ? Integer.toString(hi) : hi + ":" + lo);
        }
        return j.toString();
    }
}
