package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static dev.hwtool.arch.decode.Dumps.leaf;
import static dev.hwtool.arch.decode.Dumps.snapshot;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

class FeaturesDecoderTest {

    static Stream<Arguments> dumps() {
        //                                   msr   ds    dtes64 dsCpl pdcm  archLbr pt   bld    rtm    tsc   rdtscp hv
        return Stream.of(
                Arguments.of("core2", Dumps.core2(),
                        new Features(true, true, true, true, true, false, false, false, false, true, false, false)),
                Arguments.of("haswell (TSX fused off)", Dumps.haswell(),
                        new Features(true, true, true, true, true, false, false, false, false, true, true, false)),
                Arguments.of("skylake", Dumps.skylake(),
                        new Features(true, true, true, true, true, false, true, false, true, true, true, false)),
                Arguments.of("goldmont", Dumps.goldmont(),
                        new Features(true, true, true, true, true, false, true, false, false, true, true, false)),
                Arguments.of("alderlake", Dumps.alderlakePCore(),
                        new Features(true, true, true, true, true, true, true, false, false, true, true, false)),
                Arguments.of("epyc guest", Dumps.epycKvmGuest(),
                        new Features(true, false, false, false, false, false, false, false, false, true, true, true)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dumps")
    void decodesTheDumpedFlags(String name, CpuidSnapshot dump, Features expected) {
        assertEquals(expected, FeaturesDecoder.decode(dump));
    }

    @Test
    void leaf7FlagsNeedLeaf7InRange() {
        // CPUID.0:EAX = 6 but leaf 7 recorded with every bit set: must read as absent.
        CpuidSnapshot s = snapshot(
                leaf(0x0, 0x6, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x1, 0x000006FB, 0, 0, 0),
                leaf(0x6, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF),
                leaf(0x7, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0xFFFFFFFF));
        for (var reader : new dev.hwtool.arch.cpuid.CpuidReader[] {s, new IntelOutOfRange(s)}) {
            Features f = FeaturesDecoder.decode(reader);
            assertFalse(f.archLbr());
            assertFalse(f.pt());
            assertFalse(f.rtm());
            assertFalse(f.busLockDetect());
            assertFalse(f.rdtscp(), "no extended leaves, so no 80000001H");
        }
    }
}
