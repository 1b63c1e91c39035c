package dev.hwtool.arch.decode;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The display family/model rules (SDM Vol. 2A CPUID "Processor Version Information"; AMD APM
 * Vol. 3 CPUID Fn0000_0001_EAX) as properties over CPUID.1:EAX signatures.
 */
class IdentityPropertiesTest {

    /** Encodes a display family/model the way the processor does: the inverse of the rules. */
    private static int signature(int displayFamily, int displayModel, int stepping, int otherBits) {
        int baseFamily = Math.min(displayFamily, 0xF);
        int extFamily = displayFamily - baseFamily;
        return (otherBits & 0xF000_3000) | extFamily << 20 | (displayModel >> 4) << 16
                | baseFamily << 8 | (displayModel & 0xF) << 4 | stepping;
    }

    @Provide
    Arbitrary<String> vendors() {
        return Arbitraries.of(IdentityDecoder.INTEL, IdentityDecoder.AMD, IdentityDecoder.HYGON, "CentaurHauls");
    }

    @Property
    void familyRoundTrips(@ForAll @IntRange(min = 0, max = 0xF + 0xFF) int family,
                          @ForAll @IntRange(min = 0, max = 0xF) int model,
                          @ForAll @IntRange(min = 0, max = 0xF) int stepping,
                          @ForAll int noise) {
        assertEquals(family, IdentityDecoder.displayFamily(signature(family, model, stepping, noise)));
    }

    @Property
    void extendedModelCountsForFamilies6And15OnIntel(@ForAll("intelExtendedFamilies") int family,
                                                     @ForAll @IntRange(min = 0, max = 0xFF) int model,
                                                     @ForAll int noise) {
        int sig = signature(family, model, 0, noise);
        assertEquals(model, IdentityDecoder.displayModel(IdentityDecoder.INTEL, sig));
    }

    @Provide
    Arbitrary<Integer> intelExtendedFamilies() {
        return Arbitraries.oneOf(Arbitraries.just(6), Arbitraries.integers().between(0xF, 0xF + 0xFF));
    }

    @Property
    void extendedModelCountsForBaseFamily15OnAmd(@ForAll @IntRange(min = 0xF, max = 0xF + 0xFF) int family,
                                                 @ForAll @IntRange(min = 0, max = 0xFF) int model,
                                                 @ForAll int noise) {
        int sig = signature(family, model, 0, noise);
        assertEquals(model, IdentityDecoder.displayModel(IdentityDecoder.AMD, sig));
        assertEquals(model, IdentityDecoder.displayModel(IdentityDecoder.HYGON, sig));
    }

    @Property
    void extendedModelIgnoredOtherwise(@ForAll("vendors") String vendor,
                                       @ForAll @IntRange(min = 0, max = 0xE) int family,
                                       @ForAll @IntRange(min = 0, max = 0xF) int extModel,
                                       @ForAll @IntRange(min = 0, max = 0xF) int baseModel) {
        boolean amdRule = !vendor.equals(IdentityDecoder.INTEL) && !vendor.equals("CentaurHauls");
        boolean extendedApplies = !amdRule && family == 6;
        int sig = extModel << 16 | family << 8 | baseModel << 4;
        int expected = extendedApplies ? baseModel + (extModel << 4) : baseModel;
        assertEquals(expected, IdentityDecoder.displayModel(vendor, sig));
    }

    @Property
    void reservedAndTypeBitsNeverMatter(@ForAll("vendors") String vendor, @ForAll int sig,
                                        @ForAll int noise) {
        int noisy = (sig & 0x0FFF_CFFF) | (noise & 0xF000_3000);
        assertEquals(IdentityDecoder.displayFamily(sig), IdentityDecoder.displayFamily(noisy));
        assertEquals(IdentityDecoder.displayModel(vendor, sig), IdentityDecoder.displayModel(vendor, noisy));
    }
}
