package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidSnapshot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MicroarchitecturesTest {

    static Stream<Arguments> dumps() {
        return Stream.of(
                Arguments.of(Dumps.core2(), "Core", "Merom"),
                Arguments.of(Dumps.bonnell(), "Bonnell", "Bonnell (Diamondville, Pineview)"),
                Arguments.of(Dumps.silvermont(), "Silvermont", "Silvermont (Bay Trail, Valleyview)"),
                Arguments.of(Dumps.nehalem(), "Nehalem", "Nehalem"),
                Arguments.of(Dumps.haswell(), "Haswell", "Haswell"),
                Arguments.of(Dumps.skylake(), "Skylake", "Skylake"),
                Arguments.of(Dumps.goldmont(), "Goldmont", "Goldmont (Apollo Lake)"),
                Arguments.of(Dumps.goldmontPlus(), "Goldmont Plus", "Goldmont Plus (Gemini Lake)"),
                Arguments.of(Dumps.icelake(), "Ice Lake", "Sunny Cove"),
                Arguments.of(Dumps.alderlakePCore(), "Alder Lake", "Golden Cove + Gracemont"),
                Arguments.of(Dumps.alderlakeECore(), "Alder Lake", "Golden Cove + Gracemont"),
                Arguments.of(Dumps.epycKvmGuest(), "Zen 5", "Zen 5"));
    }

    @ParameterizedTest
    @MethodSource("dumps")
    void namesTheDumpedProcessors(CpuidSnapshot dump, String name, String cores) {
        assertEquals(new Microarchitecture(name, cores), Microarchitectures.lookup(IdentityDecoder.decode(dump)));
    }

    @ParameterizedTest(name = "{0} {1}_{2} → {3}")
    @CsvSource({
            "GenuineIntel, 6, 0x8F, Sapphire Rapids",
            "GenuineIntel, 6, 0xCF, Emerald Rapids",
            "GenuineIntel, 6, 0xAD, Granite Rapids",
            "GenuineIntel, 6, 0xAF, Crestmont",
            "GenuineIntel, 6, 0xDD, Darkmont",
            "GenuineIntel, 6, 0xAA, Meteor Lake",
            "GenuineIntel, 6, 0xBD, Lunar Lake",
            "GenuineIntel, 6, 0xC6, Arrow Lake",
            "GenuineIntel, 6, 0xCC, Panther Lake",
            "GenuineIntel, 6, 0xBE, Gracemont",
            "GenuineIntel, 6, 0x86, Tremont",
            "GenuineIntel, 6, 0x4C, Airmont",
            "GenuineIntel, 6, 0x36, Saltwell",
            "GenuineIntel, 6, 0x57, Knights Landing",
            "GenuineIntel, 6, 0x85, Knights Mill",
            "GenuineIntel, 6, 0x17, Core",
            "GenuineIntel, 19, 0x01, Diamond Rapids",
            "GenuineIntel, 18, 0x01, Nova Lake",
            "AuthenticAMD, 15, 0x41, K8",
            "AuthenticAMD, 16, 0x04, K10",
            "AuthenticAMD, 20, 0x02, Bobcat",
            "AuthenticAMD, 21, 0x01, Bulldozer",
            "AuthenticAMD, 21, 0x02, Piledriver",
            "AuthenticAMD, 21, 0x13, Piledriver",
            "AuthenticAMD, 21, 0x30, Steamroller",
            "AuthenticAMD, 21, 0x65, Excavator",
            "AuthenticAMD, 22, 0x00, Jaguar",
            "AuthenticAMD, 22, 0x30, Puma",
            "AuthenticAMD, 23, 0x01, Zen",
            "AuthenticAMD, 23, 0x08, Zen+",
            "AuthenticAMD, 23, 0x18, Zen+",
            "AuthenticAMD, 23, 0x31, Zen 2",
            "AuthenticAMD, 23, 0x71, Zen 2",
            "AuthenticAMD, 25, 0x01, Zen 3",
            "AuthenticAMD, 25, 0x21, Zen 3",
            "AuthenticAMD, 25, 0x11, Zen 4",
            "AuthenticAMD, 25, 0x61, Zen 4",
            "AuthenticAMD, 26, 0x44, Zen 5",
            "AuthenticAMD, 26, 0x50, Zen 6",
            "HygonGenuine, 24, 0x00, Dhyana",
    })
    void tableRows(String vendor, int family, String model, String name) {
        Identity id = new Identity(vendor, "", family, Integer.decode(model), 0, 0, 0, 0);
        assertEquals(name, Microarchitectures.lookup(id).name());
    }

    @ParameterizedTest(name = "{0} {1}_{2} → unknown")
    @CsvSource({
            "GenuineIntel, 6, 0xFF",
            "GenuineIntel, 6, 0x00",
            "GenuineIntel, 18, 0x02",
            "GenuineIntel, 5, 0x09",
            "AuthenticAMD, 6, 0x08",
            "AuthenticAMD, 21, 0x20",
            "AuthenticAMD, 23, 0x80",
            "AuthenticAMD, 27, 0x00",
            "CentaurHauls, 6, 0x0F",
            "HygonGenuine, 23, 0x01",
    })
    void unknownRatherThanGuess(String vendor, int family, String model) {
        Identity id = new Identity(vendor, "", family, Integer.decode(model), 0, 0, 0, 0);
        Microarchitecture m = Microarchitectures.lookup(id);
        assertEquals(Microarchitecture.UNKNOWN, m);
        assertFalse(m.known());
    }

    /**
     * Rows of one vendor/family may overlap only where a narrower row precedes a wider one
     * (Zen+ inside Zen): otherwise the table order would silently decide.
     */
    @Test
    void overlappingRowsAreNarrowerFirst() {
        List<Microarchitectures.Entry> t = Microarchitectures.table();
        for (int i = 0; i < t.size(); i++) {
            for (int j = i + 1; j < t.size(); j++) {
                Microarchitectures.Entry a = t.get(i);
                Microarchitectures.Entry b = t.get(j);
                boolean overlap = a.vendor().equals(b.vendor()) && a.family() == b.family()
                        && a.first() <= b.last() && b.first() <= a.last();
                if (overlap) {
                    assertTrue(a.first() >= b.first() && a.last() <= b.last() && !a.equals(b),
                            a + " overlaps the later " + b + " without being inside it");
                }
            }
        }
    }
}
