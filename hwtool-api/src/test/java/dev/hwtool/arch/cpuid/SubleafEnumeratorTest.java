package dev.hwtool.arch.cpuid;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.function.LongPredicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SubleafEnumeratorTest {

    // ---- against what cpuid -r really printed --------------------------------------------------

    @Test
    void reproducesTheShippedCpuidRawDumpExactly() {
        CpuidDump d = ShippedDumps.parse(ShippedDumps.CPUID_R);
        for (CpuidSnapshot cpu : d.cpus()) {
            assertEquals(asText(cpu.leaves()), asText(SubleafEnumerator.enumerate(cpu)), "CPU " + cpu.cpu());
            assertEquals(cpu.leaves(), SubleafEnumerator.enumerate(cpu));
        }
    }

    @Test
    void reproducesCpuidRawOnThisMachine() throws Exception {
        String out = CpuidTool.oneCpuRaw();
        CpuidSnapshot cpu = CpuidDumpParser.parse("cpuid -1 -r", out).cpus().getFirst();
        assertEquals(asText(cpu.leaves()), asText(SubleafEnumerator.enumerate(cpu)));
        assertEquals(cpu.leaves(), SubleafEnumerator.enumerate(cpu));
    }

    /** One line per leaf, so that a failure shows a readable diff. */
    private static String asText(List<CpuidLeaf> leaves) {
        return CpuidRawFormat.formatOne(new CpuidSnapshot(0, leaves));
    }

    // ---- the rules, one by one, on synthetic CPUs ----------------------------------------------

    /** A synthetic CPU: a few leaves set, all others zero (as in a dump). */
    private static final class Cpu {
        private final List<CpuidLeaf> leaves = new ArrayList<>();

        Cpu set(int leaf, int sub, int eax, int ebx, int ecx, int edx) {
            leaves.add(new CpuidLeaf(leaf, sub, new CpuidRegs(eax, ebx, ecx, edx)));
            return this;
        }

        Cpu eax(int leaf, int sub, int eax) {
            return set(leaf, sub, eax, 0, 0, 0);
        }

        Cpu hypervisor(int base, int maxLeaf, String signature) {
            return set(base, 0, maxLeaf, chars4(signature, 0), chars4(signature, 4), chars4(signature, 8));
        }

        List<String> walk(LongPredicate leafFilter) {
            return SubleafEnumerator.enumerate(new CpuidSnapshot(0, leaves)).stream()
                    .filter(l -> leafFilter.test(Integer.toUnsignedLong(l.leaf())))
                    .map(l -> String.format("%x/%x", l.leaf(), l.subleaf()))
                    .toList();
        }

        private static int chars4(String s, int at) {
            return s.charAt(at) | s.charAt(at + 1) << 8 | s.charAt(at + 2) << 16 | s.charAt(at + 3) << 24;
        }
    }

    private static LongPredicate leaf(long l) {
        return x -> x == l;
    }

    @Test
    void leaf2RepeatsAsOftenAsAlSays() {
        assertEquals(List.of("2/0"), new Cpu().eax(0, 0, 2).eax(2, 0, 0x00feff01).walk(leaf(2)));
        assertEquals(List.of("2/0", "2/1"), new Cpu().eax(0, 0, 2).eax(2, 0, 0x00feff02).walk(leaf(2)));
        assertEquals(List.of("2/0"), new Cpu().eax(0, 0, 2).walk(leaf(2)), "AL = 0 still prints once");
    }

    @Test
    void leaf4ListsCachesThroughTheNoMoreCachesEntry() {
        Cpu c = new Cpu().eax(0, 0, 4).eax(4, 0, 0x121).eax(4, 1, 0x122).eax(4, 2, 0x143);
        assertEquals(List.of("4/0", "4/1", "4/2", "4/3"), c.walk(leaf(4)));
        assertEquals(List.of("4/0"), new Cpu().eax(0, 0, 4).walk(leaf(4)), "AMD: type 0 at once, still listed");
    }

    @Test
    void maxSubleafInEaxLeaves() {
        Cpu c = new Cpu().eax(0, 0, 0x23)
                .eax(7, 0, 2).eax(0x14, 0, 1).eax(0x17, 0, 3).eax(0x1d, 0, 1).eax(0x23, 0, 3);
        assertEquals(List.of("7/0", "7/1", "7/2"), c.walk(leaf(7)));
        assertEquals(List.of("14/0", "14/1"), c.walk(leaf(0x14)));
        assertEquals(List.of("17/0", "17/1", "17/2", "17/3"), c.walk(leaf(0x17)));
        assertEquals(List.of("18/0"), c.walk(leaf(0x18)));
        assertEquals(List.of("1d/0", "1d/1"), c.walk(leaf(0x1d)));
        assertEquals(List.of("20/0"), c.walk(leaf(0x20)));
        assertEquals(List.of("23/0", "23/1", "23/2", "23/3"), c.walk(leaf(0x23)));
    }

    @Test
    void topologyLeavesListThroughTheInvalidLevel() {
        Cpu c = new Cpu().eax(0, 0, 0x1f)
                .set(0xb, 0, 1, 2, 0x100, 0).set(0xb, 1, 4, 8, 0x201, 0).set(0xb, 2, 0, 0, 2, 0)
                .set(0x1f, 1, 4, 8, 0x201, 0).set(0x1f, 2, 7, 16, 0x502, 0).set(0x1f, 3, 0, 0, 3, 0);
        assertEquals(List.of("b/0", "b/1", "b/2"), c.walk(leaf(0xb)));
        // 0x1F: subleaf 0 is listed unchecked (here it is even invalid), the check starts at 1.
        assertEquals(List.of("1f/0", "1f/1", "1f/2", "1f/3"), c.walk(leaf(0x1f)));
    }

    @Test
    void xsaveListsTheComponentsOfXcr0AndXss() {
        Cpu c = new Cpu().eax(0, 0, 0xd).set(0xd, 0, 0x207, 0, 0, 0).set(0xd, 1, 0xf, 0, 0x1800, 0);
        assertEquals(List.of("d/0", "d/1", "d/2", "d/9", "d/b", "d/c"), c.walk(leaf(0xd)));
        Cpu high = new Cpu().eax(0, 0, 0xd).set(0xd, 0, 3, 0, 0, 0x4000_0000).set(0xd, 1, 0, 0, 0, 0x8000_0000);
        assertEquals(List.of("d/0", "d/1", "d/3e"), high.walk(leaf(0xd)), "bit 62 yes, bit 63 never");
    }

    @Test
    void rdtLeavesFollowTheirBitmasks() {
        Cpu c = new Cpu().eax(0, 0, 0x10).set(0xf, 0, 0, 0, 0, 2).set(0x10, 0, 0, 0b1010, 0, 0);
        assertEquals(List.of("f/0", "f/1"), c.walk(leaf(0xf)));
        assertEquals(List.of("10/0", "10/1", "10/3"), c.walk(leaf(0x10)));
        assertEquals(List.of("f/0"), new Cpu().eax(0, 0, 0xf).set(0xf, 0, 0, 0, 0, 1).walk(leaf(0xf)));
    }

    @Test
    void sgxAndPconfigListThroughTheFirstInvalidSubleaf() {
        Cpu c = new Cpu().eax(0, 0, 0x1b).eax(0x12, 2, 1).eax(0x12, 3, 1).eax(0x1b, 1, 1);
        assertEquals(List.of("12/0", "12/1", "12/2", "12/3", "12/4"), c.walk(leaf(0x12)));
        assertEquals(List.of("1b/0", "1b/1", "1b/2"), c.walk(leaf(0x1b)));
        Cpu none = new Cpu().eax(0, 0, 0x1b);
        assertEquals(List.of("12/0", "12/1", "12/2"), none.walk(leaf(0x12)));
        assertEquals(List.of("1b/0", "1b/1"), none.walk(leaf(0x1b)));
    }

    @Test
    void extendedRange() {
        Cpu c = new Cpu().eax(0x80000000, 0, 0x80000026)
                .eax(0x8000001d, 0, 0x121).eax(0x8000001d, 1, 0x122).eax(0x8000001d, 2, 0x143)
                .set(0x80000020, 0, 0, 0b110, 0, 0)
                .set(0x80000026, 0, 1, 1, 0x100, 0).set(0x80000026, 1, 4, 8, 0x201, 0);
        // 0x8000001D stops before the no-more-caches entry; 0x80000026 is subleaf 0 only (cpuid.c's rule for it is
        // unreachable).
        assertEquals(List.of("8000001d/0", "8000001d/1", "8000001d/2"), c.walk(leaf(0x8000001dL)));
        assertEquals(List.of("80000020/0", "80000020/1", "80000020/2"), c.walk(leaf(0x80000020L)));
        assertEquals(List.of("80000026/0"), c.walk(leaf(0x80000026L)));
        assertEquals(0x27, c.walk(x -> x >= 0x80000000L && x < 0x80860000L).stream()
                .filter(s -> s.endsWith("/0")).count());
        Cpu noCaches = new Cpu().eax(0x80000000, 0, 0x8000001d);
        assertEquals(List.of(), noCaches.walk(leaf(0x8000001dL)), "type 0 at subleaf 0: not listed at all");
    }

    @Test
    void otherRangesAndTheirSanityBounds() {
        Cpu c = new Cpu().eax(0x20000000, 0, 0x20000002).eax(0x80860000, 0, 0x80860001).eax(0xc0000000, 0, 0xc0000003);
        assertEquals(List.of("0/0", "20000000/0", "20000001/0", "20000002/0", "80000000/0",
                        "80860000/0", "80860001/0", "c0000000/0", "c0000001/0", "c0000002/0", "c0000003/0"),
                c.walk(x -> true));
        Cpu garbage = new Cpu().eax(0x20000000, 0, 0x20000101).eax(0xc0000000, 0, 0xc0001001);
        assertEquals(List.of("0/0", "20000000/0", "80000000/0", "80860000/0", "c0000000/0"), garbage.walk(x -> true));
    }

    // ---- hypervisor leaves ---------------------------------------------------------------------

    private static final LongPredicate HV = x -> x >= 0x40000000L && x < 0x50000000L;

    @Test
    void noHypervisorLeavesWithoutTheHypervisorBit() {
        Cpu c = new Cpu().eax(0, 0, 1).hypervisor(0x40000000, 0x40000001, "KVMKVMKVM\0\0\0");
        assertEquals(List.of(), c.walk(HV));
        Cpu basicMaxZero = new Cpu().set(1, 0, 0, 0, 0x8000_0000, 0).hypervisor(0x40000000, 0x40000001, "KVMKVMKVM\0\0\0");
        assertEquals(List.of(), basicMaxZero.walk(HV), "leaf 1 is not walked, so its ECX[31] is not seen");
    }

    @Test
    void kvmWithEaxZeroMeansOneMoreLeaf() {
        Cpu c = new Cpu().eax(0, 0, 1).set(1, 0, 0, 0, 0x8000_0000, 0).hypervisor(0x40000000, 0, "KVMKVMKVM\0\0\0");
        assertEquals(List.of("40000000/0", "40000001/0", "40000100/0"), c.walk(HV));
    }

    @Test
    void nestedXenUnderHyperVWithXenLeaf3Subleaves() {
        Cpu c = new Cpu().eax(0, 0, 1).set(1, 0, 0, 0, 0x8000_0000, 0)
                .hypervisor(0x40000000, 0x40000002, "Microsoft Hv")
                .hypervisor(0x40000100, 0x40000103, "XenVMMXenVMM");
        assertEquals(List.of("40000000/0", "40000001/0", "40000002/0",
                "40000100/0", "40000101/0", "40000102/0", "40000103/0", "40000103/1", "40000103/2",
                "40000200/0"), c.walk(HV));
    }

    @Test
    void hypervisorWalkStopsOnBrokenOrAbsentBases() {
        Cpu unknownHuge = new Cpu().eax(0, 0, 1).set(1, 0, 0, 0, 0x8000_0000, 0)
                .hypervisor(0x40000000, 0x40000500, "NotKnownHere");
        assertEquals(List.of("40000000/0"), unknownHuge.walk(HV));
        Cpu emptyFirst = new Cpu().eax(0, 0, 1).set(1, 0, 0, 0, 0x8000_0000, 0)
                .hypervisor(0x40000000, 0x40000000, "NotKnownHere")
                .hypervisor(0x40000100, 0x40000101, "KVMKVMKVM\0\0\0");
        assertEquals(List.of("40000000/0", "40000100/0", "40000101/0", "40000200/0"), emptyFirst.walk(HV),
                "max == base: nothing more at this base, but the next base is still tried");
    }

    // ---- termination on garbage ----------------------------------------------------------------

    @Test
    void aReaderAnsweringAllOnesStillEnds() {
        List<CpuidLeaf> all = SubleafEnumerator.enumerate((leaf, sub) -> new CpuidRegs(-1, -1, -1, -1));
        assertTrue(all.size() < 3 * (SubleafEnumerator.RANGE_LIMIT + 1) + 20 * SubleafEnumerator.SUBLEAF_LIMIT,
                "size " + all.size());
        assertEquals(all.size(), new HashSet<>(all.stream().map(l -> List.of(l.leaf(), l.subleaf())).toList()).size(),
                "no leaf/subleaf twice");
    }
}
