package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidLeaf;
import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.arch.cpuid.CpuidRegs.Reg;
import dev.hwtool.arch.decode.CpuidPathDiff.Difference;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The two CPUID paths held against each other, on the values reported from an AMD Zen 5 guest
 * under bhyve (issue 24): leaf 1 from user space EBX 0x0afe0800 (APIC ID changing per call),
 * ECX 0xfed83203; the kernel's EBX 0x00020800, ECX 0xfff83203.
 */
class CpuidPathDiffTest {

    private static final CpuidRegs USER_1 = new CpuidRegs(0x00b00f21, 0x0afe0800, 0xfed83203, 0x178bfbff);
    private static final CpuidRegs USER_1_AGAIN = new CpuidRegs(0x00b00f21, 0x8dfe0800, 0xfed83203, 0x178bfbff);
    private static final CpuidRegs KERNEL_1 = new CpuidRegs(0x00b00f21, 0x00020800, 0xfff83203, 0x178bfbff);
    private static final CpuidRegs LEAF_0 = new CpuidRegs(0x10, 0x68747541, 0x444d4163, 0x69746e65);

    private static CpuidReader kernel(CpuidRegs leaf1) {
        return (leaf, subleaf) -> leaf == 1 ? leaf1 : leaf == 0 ? LEAF_0 : CpuidRegs.ZERO;
    }

    @Test
    void bhyveLeafOneDiffersInTheApicIdAndEcxAndTheApicIdIsUnstable() {
        List<CpuidLeaf> user = List.of(new CpuidLeaf(0, 0, LEAF_0), new CpuidLeaf(1, 0, USER_1));
        List<CpuidLeaf> again = List.of(new CpuidLeaf(0, 0, LEAF_0), new CpuidLeaf(1, 0, USER_1_AGAIN));
        List<Difference> d = CpuidPathDiff.compare(user, again, kernel(KERNEL_1));
        assertEquals(2, d.size(), d.toString());
        Difference ebx = d.get(0);
        assertEquals(Reg.EBX, ebx.reg());
        assertEquals(0x0afc0000, ebx.bits());
        assertEquals("CPUID.01H:EBX[27,25,23:18]", ebx.where());
        assertEquals(List.of("initial APIC ID", "addressable logical processor IDs"), ebx.names());
        assertEquals(0x0afe0800 ^ 0x8dfe0800, ebx.unstable());
        Difference ecx = d.get(1);
        assertEquals(Reg.ECX, ecx.reg());
        assertEquals(0x01200000, ecx.bits());
        assertEquals("CPUID.01H:ECX[24,21]", ecx.where());
        assertEquals(0, ecx.unstable(), "ECX was the same in both user-space reads");
    }

    @Test
    void identicalAnswersHaveNoDifference() {
        List<CpuidLeaf> user = List.of(new CpuidLeaf(0, 0, LEAF_0), new CpuidLeaf(1, 0, KERNEL_1));
        assertTrue(CpuidPathDiff.compare(user, user, kernel(KERNEL_1)).isEmpty());
    }

    @Test
    void aSubleafTheDriverCannotTakeIsNotCompared() {
        // the driver's file offset is leaf | subleaf << 32, and must not be negative
        CpuidReader failing = (leaf, subleaf) -> {
            throw new AssertionError("read " + leaf + "/" + subleaf);
        };
        assertTrue(CpuidPathDiff.compare(List.of(new CpuidLeaf(0x4, 0x8000_0000, LEAF_0)), List.of(), failing).isEmpty());
    }

    @Test
    void subleafLeavesAreWrittenWithTheirSubleafAndFlagsAreNamed() {
        Difference hybrid = new Difference(0x7, 0, Reg.EDX, 1 << 15, 0, 0);
        assertEquals("CPUID.(07H,0):EDX[15]", hybrid.where());
        assertEquals(List.of("HYBRID"), hybrid.names());
        Difference x2apic = new Difference(0xB, 1, Reg.EDX, 3, 1, 0);
        assertEquals("CPUID.(0BH,1):EDX[1]", x2apic.where());
        assertEquals(List.of("x2APIC ID"), x2apic.names());
        assertEquals("CPUID.80000001H:EDX[27]", new Difference(0x8000_0001, 0, Reg.EDX, 0, 1 << 27, 0).where());
    }

    @Test
    void rangesAreWrittenHighFirst() {
        assertEquals("31:24", CpuidPathDiff.ranges(0xFF00_0000));
        assertEquals("15,3", CpuidPathDiff.ranges(0x8008));
        assertEquals("31:0", CpuidPathDiff.ranges(-1));
        assertEquals("0", CpuidPathDiff.ranges(1));
        assertEquals("", CpuidPathDiff.ranges(0));
    }
}
