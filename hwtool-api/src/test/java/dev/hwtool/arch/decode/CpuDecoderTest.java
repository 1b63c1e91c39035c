package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidLeaf;
import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.cpuid.CpuidSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuDecoderTest {

    @Test
    void core2() {
        CpuCapabilities c = CpuDecoder.decode(Dumps.core2());
        assertEquals(0x0F, c.identity().model());
        assertEquals(0xB, c.identity().stepping());
        assertEquals("Core", c.microarchitecture().name());
        assertFalse(c.hybrid());
        assertEquals("", c.coreType());
        assertEquals(Hypervisor.NONE, c.hypervisor());
        assertTrue(c.features().ds() && c.features().dsCpl() && c.features().pdcm());
        assertEquals(2, c.archPerfmon().version());
        assertEquals(ArchLbr.NONE, c.archLbr());
        assertEquals(4, c.legacyLbr().depth());
    }

    @Test
    void alderLakePCore() {
        CpuCapabilities c = CpuDecoder.decode(Dumps.alderlakePCore());
        assertEquals("Alder Lake", c.microarchitecture().name());
        assertTrue(c.hybrid());
        assertEquals("Core", c.coreType());
        assertEquals(5, c.archPerfmon().version());
        assertTrue(c.archLbr().supported());
        assertEquals(List.of(8, 16, 32), c.archLbr().depths());
        assertFalse(c.legacyLbr().present());
        assertTrue(c.legacyLbr().source().contains("architectural LBR"), c.legacyLbr().source());
    }

    @Test
    void alderLakeECore() {
        CpuCapabilities c = CpuDecoder.decode(Dumps.alderlakeECore());
        assertTrue(c.hybrid());
        assertEquals("Atom", c.coreType());
        assertTrue(c.archLbr().lip());
    }

    @Test
    void skylakeGoldmontHaswell() {
        assertEquals(32, CpuDecoder.decode(Dumps.skylake()).legacyLbr().depth());
        assertEquals(6, CpuDecoder.decode(Dumps.goldmont()).legacyLbr().format());
        assertEquals(7, CpuDecoder.decode(Dumps.goldmontPlus()).legacyLbr().format());
        CpuCapabilities hsw = CpuDecoder.decode(Dumps.haswell());
        assertEquals("Haswell", hsw.microarchitecture().name());
        assertTrue(hsw.legacyLbr().callStack());
        assertEquals(3, hsw.archPerfmon().version());
    }

    @Test
    void epycKvmGuest() {
        CpuCapabilities c = CpuDecoder.decode(Dumps.epycKvmGuest());
        assertEquals(0x1A, c.identity().family());
        assertEquals(0x02, c.identity().model());
        assertEquals("Zen 5", c.microarchitecture().name());
        assertEquals(new Hypervisor(true, "KVMKVMKVM"), c.hypervisor());
        assertEquals(ArchPerfmon.NONE, c.archPerfmon());
        assertEquals(ArchLbr.NONE, c.archLbr());
        assertFalse(c.legacyLbr().present());
        assertFalse(c.hybrid());
    }

    /**
     * The Intel dumps whose highest basic leaf is not all zeros (Ice Lake's leaf 1BH is, and AMD
     * answers out-of-range leaves with zeros), so the hostile reader below has garbage to give.
     */
    /**
     * Alder Lake with CPUID.0:EAX limited to 07H (IA32_MISC_ENABLE[22] "Limit CPUID Maxval",
     * set by some firmware): leaf 7 still says hybrid and arch LBR, but leaves 0AH, 1AH and 1CH
     * are out of range and must not be read.
     */
    @Test
    void limitedMaxBasicLeaf() {
        List<CpuidLeaf> leaves = new ArrayList<>(Dumps.alderlakePCore().leaves());
        leaves.replaceAll(l -> l.leaf() == 0 ? Dumps.leaf(0, 0x7, l.regs().ebx(), l.regs().ecx(), l.regs().edx()) : l);
        CpuidSnapshot limited = new CpuidSnapshot(0, leaves);
        for (CpuidReader r : new CpuidReader[] {limited, new IntelOutOfRange(limited)}) {
            CpuCapabilities c = CpuDecoder.decode(r);
            assertEquals(7, c.identity().maxBasicLeaf());
            assertTrue(c.hybrid());
            assertEquals("", c.coreType());
            assertTrue(c.features().archLbr(), "the CPUID.(07H,0):EDX[19] flag itself is in range");
            assertEquals(ArchLbr.NONE, c.archLbr());
            assertEquals(ArchPerfmon.NONE, c.archPerfmon());
            assertEquals("Alder Lake", c.microarchitecture().name());
        }
    }

    static Stream<CpuidSnapshot> intelDumps() {
        return Stream.of(Dumps.core2(), Dumps.bonnell(), Dumps.silvermont(), Dumps.nehalem(), Dumps.haswell(),
                Dumps.skylake(), Dumps.goldmont(), Dumps.goldmontPlus(),
                Dumps.alderlakePCore(), Dumps.alderlakeECore());
    }

    /**
     * Intel answers out-of-range leaves with the highest basic leaf's data; decoding through
     * such a reader must give exactly what the recorded leaves (absent = zero) give.
     */
    @ParameterizedTest
    @MethodSource("intelDumps")
    void outOfRangeLeavesAreNeverRead(CpuidSnapshot dump) {
        IntelOutOfRange hostile = new IntelOutOfRange(dump);
        int maxBasic = dump.cpuid(0).eax();
        // The hostile reader really does return garbage beyond the range (the decoders mostly
        // gate on in-range flags first; limitedMaxBasicLeaf covers a flag that points out of range).
        assertNotEquals(dev.hwtool.arch.cpuid.CpuidRegs.ZERO, hostile.cpuid(maxBasic + 1, 0));
        assertEquals(CpuDecoder.decode(dump), CpuDecoder.decode(hostile));
    }
}
