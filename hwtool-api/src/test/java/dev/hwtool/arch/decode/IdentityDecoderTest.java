package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.cpuid.CpuidSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static dev.hwtool.arch.decode.Dumps.leaf;
import static dev.hwtool.arch.decode.Dumps.snapshot;
import static org.junit.jupiter.api.Assertions.assertEquals;

class IdentityDecoderTest {

    static Stream<Arguments> dumps() {
        String intel = "GenuineIntel";
        return Stream.of(
                Arguments.of("core2", Dumps.core2(), new Identity(intel,
                        "Intel(R) Core(TM)2 Duo CPU     E6750  @ 2.66GHz", 6, 0x0F, 0xB, 0x6FB, 0xA, 0x80000008)),
                Arguments.of("bonnell", Dumps.bonnell(), new Identity(intel,
                        "Intel(R) Atom(TM) CPU  230   @ 1.60GHz", 6, 0x1C, 2, 0x106C2, 0xA, 0x80000008)),
                Arguments.of("silvermont", Dumps.silvermont(), new Identity(intel,
                        "Intel(R) Celeron(R) CPU  J1900  @ 1.99GHz", 6, 0x37, 3, 0x30673, 0xB, 0x80000008)),
                Arguments.of("nehalem", Dumps.nehalem(), new Identity(intel,
                        "Intel(R) Core(TM) i7 CPU       Q 720  @ 1.60GHz", 6, 0x1E, 5, 0x106E5, 0xB, 0x80000008)),
                Arguments.of("haswell", Dumps.haswell(), new Identity(intel,
                        "Intel(R) Core(TM) i7-4770 CPU @ 3.40GHz", 6, 0x3C, 3, 0x306C3, 0xD, 0x80000008)),
                Arguments.of("skylake", Dumps.skylake(), new Identity(intel,
                        "Intel(R) Core(TM) i7-6700K CPU @ 4.00GHz", 6, 0x5E, 3, 0x506E3, 0x16, 0x80000008)),
                Arguments.of("goldmont", Dumps.goldmont(), new Identity(intel,
                        "Intel(R) Celeron(R) CPU J3455 @ 1.50GHz", 6, 0x5C, 9, 0x506C9, 0x15, 0x80000008)),
                Arguments.of("goldmont-plus", Dumps.goldmontPlus(), new Identity(intel,
                        "Intel(R) Celeron(R) J4105 CPU @ 1.50GHz", 6, 0x7A, 1, 0x706A1, 0x18, 0x80000008)),
                Arguments.of("icelake", Dumps.icelake(), new Identity(intel,
                        "Intel(R) Core(TM) i7-1065G7 CPU @ 1.30GHz", 6, 0x7E, 5, 0x706E5, 0x1B, 0x80000008)),
                Arguments.of("alderlake", Dumps.alderlakePCore(), new Identity(intel,
                        "12th Gen Intel(R) Core(TM) i9-12900K", 6, 0x97, 2, 0x90672, 0x20, 0x80000008)),
                // 00B00F21: base family F + extended family 0B = 1AH; AMD adds no extended model
                // below family F, but here base family is F, and the extended model is 0.
                Arguments.of("epyc", Dumps.epycKvmGuest(), new Identity("AuthenticAMD",
                        "AMD EPYC", 0x1A, 0x02, 1, 0xB00F21, 0x1C, 0x80000021)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dumps")
    void decodesTheDumpedProcessor(String name, CpuidSnapshot dump, Identity expected) {
        assertEquals(expected, IdentityDecoder.decode(dump));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("dumps")
    void ignoresIntelStyleOutOfRangeAnswers(String name, CpuidSnapshot dump, Identity expected) {
        assertEquals(expected, IdentityDecoder.decode(new IntelOutOfRange(dump)));
    }

    @Test
    void printsCpuidValuesInHexNotAsNegativeInts() {
        // an AMD Zen 4 reports extended leaves up to 0x80000021, which as an int is -2147483615
        Identity zen4 = new Identity("AuthenticAMD", "AMD EPYC", 0x19, 0x11, 1, 0x00A10F11, 0x10, 0x80000021);
        assertEquals("Identity[vendor=AuthenticAMD, brand=AMD EPYC, family=25, model=0x11, stepping=1,"
                + " signature=0x00a10f11, maxBasicLeaf=0x10, maxExtendedLeaf=0x80000021]", zen4.toString());
    }

    @Test
    void noExtendedLeavesMeansNoBrand() {
        // A processor with basic leaves 0..2 only: 80000000H answers with leaf 2's data.
        CpuidSnapshot p6 = snapshot(
                leaf(0x0, 0x2, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x1, 0x00000652, 0, 0, 0x0183FBFF),
                leaf(0x2, 0x03020101, 0, 0, 0x0C040843));
        Identity id = IdentityDecoder.decode(new IntelOutOfRange(p6));
        assertEquals(0, id.maxExtendedLeaf());
        assertEquals("", id.brand());
        assertEquals(6, id.family());
        assertEquals(5, id.model());
        assertEquals(2, id.stepping());
    }

    @Test
    void brandNeedsLeaf80000004() {
        CpuidSnapshot s = snapshot(
                leaf(0x0, 0x1, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x80000000, 0x80000003, 0, 0, 0),
                leaf(0x80000002, 0x65746E49, 0x2952286C, 0x726F4320, 0x4D542865),
                leaf(0x80000003, 0x44203229, 0x43206F75, 0x20205550, 0x45202020),
                leaf(0x80000004, 0x30353736, 0x20402020, 0x36362E32, 0x007A4847));
        assertEquals("", IdentityDecoder.decode(s).brand());
    }

    @Test
    void emptyReaderGivesEmptyIdentity() {
        CpuidReader zeros = (leaf, sub) -> dev.hwtool.arch.cpuid.CpuidRegs.ZERO;
        assertEquals(new Identity("", "", 0, 0, 0, 0, 0, 0), IdentityDecoder.decode(zeros));
    }
}
