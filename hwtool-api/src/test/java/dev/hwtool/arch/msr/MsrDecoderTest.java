package dev.hwtool.arch.msr;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MsrDecoderTest {

    private final CpuContext skylake = ShippedCpus.cpu("skylake.txt");
    private final MsrDef debugctl = MsrCatalog.byName("IA32_DEBUGCTL").orElseThrow();

    @Test
    void decodesDebugctlFieldsAndRunsOfReservedBits() {
        long value = 1L | 1L << 2 | 1L << 7 | 1L << 11 | 0b111L << 20;
        List<DecodedField> d = MsrDecoder.decode(debugctl, value, skylake);
        DecodedField lbr = d.stream().filter(f -> f.name().equals("LBR")).findFirst().orElseThrow();
        assertEquals(1, lbr.value());
        assertEquals(1, d.stream().filter(f -> f.name().equals("BTS")).findFirst().orElseThrow().value());
        assertEquals(0, d.stream().filter(f -> f.name().equals("BTINT")).findFirst().orElseThrow().value());
        List<DecodedField> reserved = d.stream().filter(DecodedField::reserved).toList();
        assertEquals(2, reserved.size(), reserved.toString());
        assertEquals(2, reserved.get(0).lo());
        assertEquals(2, reserved.get(0).hi());
        assertEquals(22, reserved.get(1).hi());
        assertEquals(20, reserved.get(1).lo());
        assertEquals(0b111, reserved.get(1).value());
        assertTrue(d.stream().noneMatch(f -> f.name().equals("BUS_LOCK_DETECT")), "not on Skylake");
    }

    @Test
    void countersDecodeToTheirImplementedWidth() {
        MsrDef pmc = MsrCatalog.byName("IA32_PMC0").orElseThrow();
        List<DecodedField> d = MsrDecoder.decode(pmc, -1L, skylake);
        assertEquals(47, d.get(0).hi());
        assertEquals((1L << 48) - 1, d.get(0).value());
        assertEquals(DecodedField.RESERVED, d.get(1).name());
        assertEquals(48, d.get(1).lo());
    }

    @Test
    void fieldPathsNameARegisterAndField() {
        FieldRef r = MsrCatalog.parseFieldPath("ia32_debugctl.freeze_lbrs_on_pmi").orElseThrow();
        assertEquals("IA32_DEBUGCTL", r.register().name());
        assertEquals(11, r.field().lo());
        assertEquals("IA32_DEBUGCTL.FREEZE_LBRS_ON_PMI", r.path());
        assertEquals(0x390, MsrCatalog.parseFieldPath("IA32_PERF_GLOBAL_STATUS_RESET.CLR_LBR_FRZ").orElseThrow()
                .register().address());
        assertTrue(MsrCatalog.parseFieldPath("IA32_DEBUGCTL").isEmpty());
        assertTrue(MsrCatalog.parseFieldPath("IA32_DEBUGCTL.NOPE").isEmpty());
        assertTrue(MsrCatalog.parseFieldPath("NOPE.LBR").isEmpty());
        assertTrue(MsrCatalog.parseFieldPath("IA32_DEBUGCTL.").isEmpty());
    }

    @Test
    void fieldWritesReplaceOnlyTheFieldAndRejectValuesThatDoNotFit() {
        MsrDef evtsel = MsrCatalog.byName("IA32_PERFEVTSEL0").orElseThrow();
        MsrField umask = evtsel.field("UMASK").orElseThrow();
        assertEquals(0x4300C0L | 0x0100, MsrFieldWrite.apply(evtsel, umask, 0x4300C0L, 0x01));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MsrFieldWrite.apply(evtsel, umask, 0, 0x100));
        assertEquals("value 0x100 does not fit IA32_PERFEVTSEL0.UMASK [15:8] (8 bits, max 0xff)", e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> MsrFieldWrite.apply(evtsel, debugctl.field("LBR").orElseThrow(), 0, 1));
        MsrField count = MsrCatalog.byName("IA32_PMC0").orElseThrow().field("COUNT").orElseThrow();
        MsrDef pmc = MsrCatalog.byName("IA32_PMC0").orElseThrow();
        assertEquals(-1L, MsrFieldWrite.apply(pmc, count, 0, -1L));
        assertThrows(IllegalArgumentException.class, () -> MsrFieldWrite.apply(pmc, count, 0, 1L << 48, skylake));
        assertEquals((1L << 48) - 1, MsrFieldWrite.apply(pmc, count, 0, (1L << 48) - 1, skylake));
    }
}
