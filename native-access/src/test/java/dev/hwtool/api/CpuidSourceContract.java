package dev.hwtool.api;

import dev.hwtool.arch.cpuid.CpuidLeaf;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.arch.cpuid.SubleafEnumerator;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The behaviour every {@link CpuidSource} must have, whatever is behind it (the instruction,
 * the device, a dump, the simulator). Each backend runs it by subclassing, as Netty's
 * transports share one test suite.
 */
public abstract class CpuidSourceContract {

    /** A fresh source for one test. */
    protected abstract CpuidSource source();

    @Test
    void cpusAreAscendingDistinctAndNonEmpty() {
        List<Integer> cpus = source().cpus();
        assertFalse(cpus.isEmpty());
        for (int i = 1; i < cpus.size(); i++) {
            assertTrue(cpus.get(i - 1) < cpus.get(i), "ascending and distinct: " + cpus);
        }
        assertTrue(cpus.getFirst() >= 0);
    }

    @Test
    void leafZeroNamesAVendorAndAMaximumLeaf() {
        CpuidSource s = source();
        CpuidRegs r = s.cpuid(s.cpus().getFirst(), 0, 0);
        assertTrue(Integer.compareUnsigned(r.eax(), 1) >= 0, "max basic leaf >= 1");
        ByteBuffer b = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putInt(r.ebx()).putInt(r.edx()).putInt(r.ecx());
        String vendor = new String(b.array(), StandardCharsets.US_ASCII);
        assertTrue(vendor.chars().allMatch(c -> c >= 0x20 && c < 0x7F), "printable vendor: " + vendor);
    }

    @Test
    void answersAreDeterministic() {
        CpuidSource s = source();
        for (int cpu : s.cpus()) {
            for (int leaf : new int[]{0, 1, 0x80000000}) {
                assertEquals(s.cpuid(cpu, leaf, 0), s.cpuid(cpu, leaf, 0), "CPU " + cpu + " leaf " + leaf);
            }
        }
    }

    @Test
    void everyCpuAgreesOnTheVendor() {
        CpuidSource s = source();
        CpuidRegs first = s.cpuid(s.cpus().getFirst(), 0, 0);
        for (int cpu : s.cpus()) {
            CpuidRegs r = s.cpuid(cpu, 0, 0);
            assertEquals(first.ebx(), r.ebx());
            assertEquals(first.ecx(), r.ecx());
            assertEquals(first.edx(), r.edx());
        }
    }

    @Test
    void readsOfOneCpuMadeAsOneAnswerAsTheReaderDoes() {
        CpuidSource s = source();
        for (int cpu : s.cpus()) {
            List<CpuidLeaf> one = s.onCpu(cpu, SubleafEnumerator::enumerate);
            assertEquals(SubleafEnumerator.enumerate(s.reader(cpu)), one, "CPU " + cpu);
        }
        int missing = s.cpus().getLast() + 1000;
        HwException e = assertThrows(HwException.class, () -> s.onCpu(missing, r -> r.cpuid(0)));
        assertEquals(Cause.NO_SUCH_CPU, e.cause());
    }

    @Test
    void aCpuThatDoesNotExistIsNoSuchCpu() {
        CpuidSource s = source();
        int missing = s.cpus().getLast() + 1000;
        HwException e = assertThrows(HwException.class, () -> s.cpuid(missing, 0, 0));
        assertEquals(Cause.NO_SUCH_CPU, e.cause());
        assertTrue(e.getMessage().contains(Integer.toString(missing)), e.getMessage());
    }

    @Test
    void enumerationStartsAtLeafZeroAndCoversTheBasicRange() {
        CpuidSource s = source();
        int cpu = s.cpus().getFirst();
        List<CpuidLeaf> leaves = SubleafEnumerator.enumerate(s.reader(cpu));
        assertEquals(0, leaves.getFirst().leaf());
        int maxBasic = s.cpuid(cpu, 0, 0).eax();
        List<Integer> basic = new ArrayList<>();
        for (CpuidLeaf l : leaves) {
            if (Integer.compareUnsigned(l.leaf(), 0x20000000) < 0 && !basic.contains(l.leaf())) {
                basic.add(l.leaf());
            }
        }
        assertEquals(maxBasic + 1, basic.size(), "every basic leaf 0.." + maxBasic + " once or more");
    }
}
