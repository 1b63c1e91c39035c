package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidSnapshot;
import org.junit.jupiter.api.Test;

import static dev.hwtool.arch.decode.Dumps.leaf;
import static dev.hwtool.arch.decode.Dumps.snapshot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HybridDecoderTest {

    @Test
    void alderLakePCoreIsCore() {
        assertTrue(HybridDecoder.isHybrid(Dumps.alderlakePCore()));
        assertEquals("Core", HybridDecoder.coreType(Dumps.alderlakePCore()));
    }

    @Test
    void alderLakeECoreIsAtom() {
        assertTrue(HybridDecoder.isHybrid(Dumps.alderlakeECore()));
        assertEquals("Atom", HybridDecoder.coreType(Dumps.alderlakeECore()));
    }

    @Test
    void nonHybridPartsHaveNoCoreType() {
        for (CpuidSnapshot s : new CpuidSnapshot[] {Dumps.skylake(), Dumps.icelake(), Dumps.core2(), Dumps.epycKvmGuest()}) {
            assertFalse(HybridDecoder.isHybrid(s), s.toString());
            assertEquals("", HybridDecoder.coreType(s));
        }
    }

    @Test
    void unknownCoreTypeIsNamedWithItsValue() {
        CpuidSnapshot s = snapshot(
                leaf(0x0, 0x1A, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x7, 0, 0, 0, 1 << 15),
                leaf(0x1A, 0x30000001, 0, 0, 0));
        assertEquals("unknown (0x30)", HybridDecoder.coreType(s));
    }

    @Test
    void leaf1AOutOfRangeIsNotRead() {
        // Hybrid bit set, leaf 1AH recorded, but CPUID.0:EAX = 19H: Intel would answer leaf 1AH
        // with leaf 19H's data, so the recorded value must not be trusted.
        CpuidSnapshot s = snapshot(
                leaf(0x0, 0x19, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x7, 0, 0, 0, 1 << 15),
                leaf(0x19, 0x40000007, 0x14, 3, 0),
                leaf(0x1A, 0x40000001, 0, 0, 0));
        assertTrue(HybridDecoder.isHybrid(s));
        assertEquals("", HybridDecoder.coreType(s));
        assertEquals("", HybridDecoder.coreType(new IntelOutOfRange(s)));
    }

    @Test
    void coreTypeNames() {
        assertEquals("Atom", HybridDecoder.coreTypeName(0x20));
        assertEquals("Core", HybridDecoder.coreTypeName(0x40));
        assertEquals("", HybridDecoder.coreTypeName(0));
        assertEquals("unknown (0xFF)", HybridDecoder.coreTypeName(0xFF));
    }
}
