package dev.hwtool.api;

import dev.hwtool.arch.cpuid.CpuidLeaf;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.arch.cpuid.SubleafEnumerator;
import dev.hwtool.caps.CpuidReading;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The behaviour every {@link CpuidSource} must have, whatever is behind it (the instruction,
 * the device, a dump, the simulator). Each backend runs it by subclassing, as Netty's
 * transports share one test suite.
 */
public abstract class CpuidSourceContract {

    /** A fresh source for one test. */
    protected abstract CpuidReading source();

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
        CpuidReading s = source();
        CpuidRegs r = s.regs(s.cpus().getFirst(), 0, 0);
        assertTrue(Integer.compareUnsigned(r.eax(), 1) >= 0, "max basic leaf >= 1");
        ByteBuffer b = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN).putInt(r.ebx()).putInt(r.edx()).putInt(r.ecx());
        String vendor = new String(b.array(), StandardCharsets.US_ASCII);
        assertTrue(vendor.chars().allMatch(c -> c >= 0x20 && c < 0x7F), "printable vendor: " + vendor);
    }

    @Test
    void theContractsAnswerIsTheDecodersAnswer() {
        CpuidReading s = source();
        int cpu = s.defaultCpu();
        for (int leaf : new int[]{0, 1, 0x80000000}) {
            CpuidRegs r = s.regs(cpu, leaf, 0);
            assertEquals(new CpuidResult(r.eax(), r.ebx(), r.ecx(), r.edx()), s.cpuid(cpu, leaf, 0), "leaf " + leaf);
        }
        assertSame(s, CpuidReading.of(s), "hwtool's sources are read as they are");
    }

    @Test
    void answersAreDeterministic() {
        CpuidReading s = source();
        for (int cpu : s.cpus()) {
            for (int leaf : new int[]{0, 1, 0x80000000}) {
                assertEquals(s.regs(cpu, leaf, 0), s.regs(cpu, leaf, 0), "CPU " + cpu + " leaf " + leaf);
            }
        }
    }

    @Test
    void everyCpuAgreesOnTheVendor() {
        CpuidReading s = source();
        CpuidRegs first = s.regs(s.cpus().getFirst(), 0, 0);
        for (int cpu : s.cpus()) {
            CpuidRegs r = s.regs(cpu, 0, 0);
            assertEquals(first.ebx(), r.ebx());
            assertEquals(first.ecx(), r.ecx());
            assertEquals(first.edx(), r.edx());
        }
    }

    @Test
    void readsOfOneCpuMadeAsOneAnswerAsTheReaderDoes() {
        CpuidReading s = source();
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
        CpuidReading s = source();
        int missing = s.cpus().getLast() + 1000;
        HwException e = assertThrows(HwException.class, () -> s.regs(missing, 0, 0));
        assertEquals(Cause.NO_SUCH_CPU, e.cause());
        assertTrue(e.getMessage().contains(Integer.toString(missing)), e.getMessage());
    }

    @Test
    void enumerationStartsAtLeafZeroAndCoversTheBasicRange() {
        CpuidReading s = source();
        int cpu = s.cpus().getFirst();
        List<CpuidLeaf> leaves = SubleafEnumerator.enumerate(s.reader(cpu));
        assertEquals(0, leaves.getFirst().leaf());
        int maxBasic = s.regs(cpu, 0, 0).eax();
        List<Integer> basic = new ArrayList<>();
        for (CpuidLeaf l : leaves) {
            if (Integer.compareUnsigned(l.leaf(), 0x20000000) < 0 && !basic.contains(l.leaf())) {
                basic.add(l.leaf());
            }
        }
        assertEquals(maxBasic + 1, basic.size(), "every basic leaf 0.." + maxBasic + " once or more");
    }
}
