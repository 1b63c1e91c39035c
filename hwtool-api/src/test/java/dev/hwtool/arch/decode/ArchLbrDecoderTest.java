package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.hwtool.arch.decode.Dumps.leaf;
import static dev.hwtool.arch.decode.Dumps.snapshot;
import static org.junit.jupiter.api.Assertions.assertEquals;

class ArchLbrDecoderTest {

    @Test
    void alderLakePCore() {
        // 1CH: EAX 4000000B (depths 8,16,32; deep-C reset), EBX 7, ECX 7
        assertEquals(new ArchLbr(true, List.of(8, 16, 32), true, false, true, true, true, true, true, true),
                ArchLbrDecoder.decode(Dumps.alderlakePCore()));
    }

    @Test
    void alderLakeECoreRecordsLinearIps() {
        // 1CH: EAX C000000B — as the P-core, plus EAX[31] LIP
        assertEquals(new ArchLbr(true, List.of(8, 16, 32), true, true, true, true, true, true, true, true),
                ArchLbrDecoder.decode(Dumps.alderlakeECore()));
    }

    @Test
    void legacyPartsHaveNone() {
        assertEquals(ArchLbr.NONE, ArchLbrDecoder.decode(Dumps.skylake()));
        assertEquals(ArchLbr.NONE, ArchLbrDecoder.decode(Dumps.icelake()));
        assertEquals(ArchLbr.NONE, ArchLbrDecoder.decode(Dumps.epycKvmGuest()));
    }

    @Test
    void leaf1COutOfRange() {
        CpuidSnapshot s = snapshot(
                leaf(0x0, 0x1B, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x7, 0, 0, 0, 1 << 19),
                leaf(0x1B, 0x0000000B, 7, 7, 0),
                leaf(0x1C, 0x4000000B, 7, 7, 0));
        assertEquals(ArchLbr.NONE, ArchLbrDecoder.decode(s));
        assertEquals(ArchLbr.NONE, ArchLbrDecoder.decode(new IntelOutOfRange(s)));
    }

    @Test
    void noDepthMeansNoArchLbr() {
        CpuidSnapshot s = snapshot(
                leaf(0x0, 0x1C, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x7, 0, 0, 0, 1 << 19),
                leaf(0x1C, 0x40000000, 7, 7, 0));
        assertEquals(ArchLbr.NONE, ArchLbrDecoder.decode(s));
    }

    @Test
    void depthBitmap() {
        assertEquals(List.of(8, 16, 24, 32, 40, 48, 56, 64), ArchLbrDecoder.depths(0xFF));
        assertEquals(List.of(64), ArchLbrDecoder.depths(0x80));
        assertEquals(List.of(), ArchLbrDecoder.depths(0));
    }
}
