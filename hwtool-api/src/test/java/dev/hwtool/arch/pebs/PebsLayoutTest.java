package dev.hwtool.arch.pebs;

import dev.hwtool.arch.decode.Identity;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** PEBS record layouts against Linux's structs (arch/x86/events/intel/ds.c, asm/perf_event.h), field by field. */
class PebsLayoutTest {

    @Test
    void legacyRecordSizesAreTheSizesOfLinuxsStructs() {
        // struct pebs_record_core: 18 u64; _nhm: + 4; _hsw: + 2; _skl: + 1 (intel_ds_init's pebs_record_size)
        assertEquals(18 * 8, PebsRecordFormat.of(0).size());
        assertEquals(22 * 8, PebsRecordFormat.of(1).size());
        assertEquals(24 * 8, PebsRecordFormat.of(2).size());
        assertEquals(25 * 8, PebsRecordFormat.of(3).size());
        assertThrows(IllegalArgumentException.class, () -> PebsRecordFormat.of(4));
    }

    @Test
    void legacyFieldsFollowTheStructsInOrder() {
        // flags, ip, ax, bx, cx, dx, si, di, bp, sp, r8..r15, status, dla, dse, lat, real_ip, tsx_tuning, tsc
        int[] order = {PebsRecordFormat.FLAGS, PebsRecordFormat.IP, PebsRecordFormat.AX, PebsRecordFormat.BX,
                PebsRecordFormat.CX, PebsRecordFormat.DX, PebsRecordFormat.SI, PebsRecordFormat.DI,
                PebsRecordFormat.BP, PebsRecordFormat.SP, PebsRecordFormat.R8};
        for (int i = 0; i < order.length; i++) {
            assertEquals(8 * i, order[i], "field " + i);
        }
        assertEquals(PebsRecordFormat.R8 + 8 * 8, PebsRecordFormat.STATUS, "status follows r15");
        assertEquals(PebsRecordFormat.CORE.size(), PebsRecordFormat.STATUS);
        assertEquals(PebsRecordFormat.NHM.size(), PebsRecordFormat.REAL_IP);
        assertEquals(PebsRecordFormat.HSW.size(), PebsRecordFormat.TSC);
        assertEquals(PebsRecordFormat.SKL.size(), PebsRecordFormat.TSC + 8);
        assertTrue(PebsRecordFormat.SKL.hasTsc() && !PebsRecordFormat.HSW.hasTsc());
        assertTrue(PebsRecordFormat.HSW.hasRealIp() && !PebsRecordFormat.NHM.hasRealIp());
        assertTrue(PebsRecordFormat.NHM.hasStatus() && !PebsRecordFormat.CORE.hasStatus());
    }

    @Test
    void adaptiveRecordsAreTheBasicGroupPlusTheSelectedGroups() {
        // adaptive_pebs_record_size_update: basic 32, meminfo 32, gprs 144, xmm 256, lbr 24 a entry
        assertEquals(32, AdaptivePebs.recordSize(0));
        assertEquals(64, AdaptivePebs.recordSize(AdaptivePebs.DATACFG_MEMINFO));
        assertEquals(32 + 144, AdaptivePebs.recordSize(AdaptivePebs.DATACFG_GP));
        assertEquals(32 + 256, AdaptivePebs.recordSize(AdaptivePebs.DATACFG_XMMS));
        long lbr8 = AdaptivePebs.DATACFG_LBRS | 7L << AdaptivePebs.DATACFG_LBR_SHIFT;
        assertEquals(8, AdaptivePebs.lbrEntries(lbr8));
        assertEquals(0, AdaptivePebs.lbrEntries(7L << AdaptivePebs.DATACFG_LBR_SHIFT), "entries count only with LBRS");
        long all = 0xF | 31L << AdaptivePebs.DATACFG_LBR_SHIFT;
        assertEquals(32 + 32 + 144 + 256 + 32 * 24, AdaptivePebs.recordSize(all));
        assertEquals(32, AdaptivePebs.meminfoOffset(all));
        assertEquals(64, AdaptivePebs.gprsOffset(all));
        assertEquals(64 + 144, AdaptivePebs.xmmsOffset(all));
        assertEquals(64 + 144 + 256, AdaptivePebs.lbrOffset(all));
        assertEquals(32, AdaptivePebs.gprsOffset(AdaptivePebs.DATACFG_GP), "no meminfo before it");
        assertEquals(-1, AdaptivePebs.xmmsOffset(AdaptivePebs.DATACFG_GP));
        // format_size: size in 63:48 (Linux basic->format_size >> 48), groups in 31:0
        assertEquals(208L << 48 | 3, AdaptivePebs.formatSize(3));
        // struct pebs_gprs: flags, ip, ax, cx, dx, bx, sp, bp, si, di, r8..
        assertEquals(0x28, AdaptivePebs.GPRS_BX);
        assertEquals(0x30, AdaptivePebs.GPRS_SP);
        assertEquals(0x50, AdaptivePebs.GPRS_R8);
    }

    @Test
    void theModelTableGivesEachGenerationItsFormat() {
        assertEquals(new PebsSupport.Flavour(0, false, false), PebsSupport.of(intel(0x0F)).orElseThrow(), "Core 2: fmt0-");
        assertEquals(new PebsSupport.Flavour(0, true, false), PebsSupport.of(intel(0x1C)).orElseThrow(), "Atom: fmt0+");
        assertEquals(1, PebsSupport.of(intel(0x1E)).orElseThrow().format(), "Nehalem");
        assertEquals(1, PebsSupport.of(intel(0x2A)).orElseThrow().format(), "Sandy Bridge");
        assertEquals(2, PebsSupport.of(intel(0x3C)).orElseThrow().format(), "Haswell");
        assertEquals(2, PebsSupport.of(intel(0x37)).orElseThrow().format(), "Silvermont");
        assertEquals(3, PebsSupport.of(intel(0x5E)).orElseThrow().format(), "Skylake");
        assertEquals(3, PebsSupport.of(intel(0x7A)).orElseThrow().format(), "Goldmont Plus");
        assertEquals(new PebsSupport.Flavour(4, true, true), PebsSupport.of(intel(0x7E)).orElseThrow(), "Ice Lake");
        assertTrue(PebsSupport.of(intel(0x97)).orElseThrow().baseline(), "Alder Lake");
        assertTrue(PebsSupport.of(intel(0x01)).isEmpty(), "an unlisted model has none");
        assertTrue(PebsSupport.of(new Identity("AuthenticAMD", "", 0x17, 0x31, 0, 0, 0, 0)).isEmpty());
    }

    private static Identity intel(int model) {
        return new Identity("GenuineIntel", "", 6, model, 0, 0, 0, 0);
    }
}
