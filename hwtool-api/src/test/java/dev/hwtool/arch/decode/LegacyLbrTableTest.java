package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidSnapshot;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LegacyLbrTableTest {

    private static LegacyLbr of(CpuidSnapshot s) {
        return LegacyLbrTable.lookup(IdentityDecoder.decode(s));
    }

    private static Identity intel(int family, int model, int stepping) {
        return new Identity("GenuineIntel", "", family, model, stepping, 0, 0, 0);
    }

    @Test
    void core2() {
        assertEquals(new LegacyLbr(-1, 4, 0x40, 0x60, -1, false,
                "model table (Core, 06_0FH); IA32_PERF_CAPABILITIES not read"), of(Dumps.core2()));
    }

    @Test
    void bonnellBeforeStepping10IsNotUsed() {
        LegacyLbr l = of(Dumps.bonnell());
        assertFalse(l.present());
        assertTrue(l.source().contains("Bonnell, 06_1CH stepping 2"), l.source());
        LegacyLbr fixed = LegacyLbrTable.lookup(intel(6, 0x1C, 10));
        assertEquals(8, fixed.depth());
        assertEquals(0x40, fixed.fromMsr());
    }

    @Test
    void silvermont() {
        assertEquals(new LegacyLbr(-1, 8, 0x40, 0x60, -1, false,
                "model table (Silvermont, 06_37H); IA32_PERF_CAPABILITIES not read"), of(Dumps.silvermont()));
    }

    @Test
    void nehalem() {
        assertEquals(new LegacyLbr(3, 16, 0x680, 0x6C0, -1, false,
                "model table (Nehalem, 06_1EH); IA32_PERF_CAPABILITIES not read"), of(Dumps.nehalem()));
    }

    @Test
    void haswellHasCallStack() {
        assertEquals(new LegacyLbr(4, 16, 0x680, 0x6C0, -1, true,
                "model table (Haswell, 06_3CH); IA32_PERF_CAPABILITIES not read"), of(Dumps.haswell()));
    }

    @Test
    void skylake() {
        assertEquals(new LegacyLbr(5, 32, 0x680, 0x6C0, 0xDC0, true,
                "model table (Skylake, 06_5EH); IA32_PERF_CAPABILITIES not read"), of(Dumps.skylake()));
    }

    @Test
    void iceLakeStillLegacy() {
        assertEquals(new LegacyLbr(5, 32, 0x680, 0x6C0, 0xDC0, true,
                "model table (Ice Lake, 06_7EH); IA32_PERF_CAPABILITIES not read"), of(Dumps.icelake()));
    }

    @Test
    void goldmontFormat6WithoutLbrInfo() {
        assertEquals(new LegacyLbr(6, 32, 0x680, 0x6C0, -1, true,
                "model table (Goldmont, 06_5CH); IA32_PERF_CAPABILITIES not read"), of(Dumps.goldmont()));
    }

    @Test
    void goldmontPlusFormat7() {
        assertEquals(new LegacyLbr(7, 32, 0x680, 0x6C0, 0xDC0, true,
                "model table (Goldmont Plus, 06_7AH); IA32_PERF_CAPABILITIES not read"), of(Dumps.goldmontPlus()));
    }

    @Test
    void knightsLanding() {
        assertEquals(new LegacyLbr(1, 8, 0x680, 0x6C0, -1, false,
                "model table (Knights Landing, 06_57H); IA32_PERF_CAPABILITIES not read"),
                LegacyLbrTable.lookup(intel(6, 0x57, 1)));
    }

    @Test
    void archLbrPartsDoNotUseLegacyLbr() {
        for (int model : new int[] {0x97, 0x8F, 0xAD, 0xAF, 0xBE}) {
            LegacyLbr l = LegacyLbrTable.lookup(intel(6, model, 0));
            assertEquals(0, l.depth());
            assertTrue(l.source().contains("architectural LBR"), l.source());
        }
        assertTrue(of(Dumps.alderlakePCore()).source().startsWith("model table (Alder Lake, 06_97H)"));
    }

    @Test
    void unknownModelIsSaidSo() {
        LegacyLbr l = LegacyLbrTable.lookup(intel(6, 0xFF, 0));
        assertFalse(l.present());
        assertEquals(-1, l.format());
        assertEquals("model 06_FFH not in the legacy LBR model table; IA32_PERF_CAPABILITIES not read", l.source());
    }

    @Test
    void amdHasNoLegacyLbrTable() {
        LegacyLbr l = of(Dumps.epycKvmGuest());
        assertFalse(l.present());
        assertTrue(l.source().contains("AuthenticAMD"), l.source());
    }
}
