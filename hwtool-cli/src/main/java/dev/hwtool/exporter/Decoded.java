package dev.hwtool.exporter;

import dev.hwtool.arch.decode.Identity;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.arch.msr.MsrField;

import java.util.OptionalLong;
import java.util.Set;

/** The catalog fields the energy and temperature metrics decode. */
final class Decoded {

    static final long TEMPERATURE_TARGET = def("MSR_TEMPERATURE_TARGET").address();

    private static final MsrField ENERGY_STATUS_UNITS = field("MSR_RAPL_POWER_UNIT", "ENERGY_STATUS_UNITS");
    private static final MsrField TOTAL_ENERGY_CONSUMED = field("MSR_PKG_ENERGY_STATUS", "TOTAL_ENERGY_CONSUMED");
    private static final MsrField TJ = field("MSR_TEMPERATURE_TARGET", "TEMPERATURE_TARGET");
    private static final MsrField CORE_READOUT = field("IA32_THERM_STATUS", "DIGITAL_READOUT");
    private static final MsrField READING_VALID = field("IA32_THERM_STATUS", "READING_VALID");
    private static final MsrField PACKAGE_READOUT = field("IA32_PACKAGE_THERM_STATUS", "DIGITAL_READOUT");

    /** TOTAL_ENERGY_CONSUMED's real width: 32 bits. */
    static final int ENERGY_BITS = TOTAL_ENERGY_CONSUMED.bits();

    /**
     * Parts whose DRAM domain counts in a fixed 2^-16 J (15.3 µJ) whatever
     * ENERGY_STATUS_UNITS says: Linux arch/x86/events/rapl.c RAPL_UNIT_QUIRK_INTEL_HSW (model_hsx,
     * model_knl: Haswell-X, Broadwell-X/-D, Skylake-X, Ice Lake-X/-D, Xeon Phi); the SDM's Vol. 4
     * tables for those server parts give the DRAM domain's unit as 15.3 micro-joules.
     */
    private static final Set<Integer> DRAM_FIXED_UNIT = Set.of(0x3F, 0x4F, 0x56, 0x55, 0x6A, 0x6C, 0x57, 0x85);
    private static final int DRAM_FIXED_BITS = 16;

    private Decoded() {
    }

    /**
     * Joules for {@code total} energy units: total × 2^-ESU, ESU being ENERGY_STATUS_UNITS of the
     * energy register's own unit register (Intel's MSR_RAPL_POWER_UNIT or AMD's
     * MSR_AMD_RAPL_POWER_UNIT: both bits 12:8, rapl.c).
     */
    static double joules(long total, long powerUnit, MsrMetric.Energy e, Identity cpu) {
        MsrField unitField = MsrCatalog.byAddress(e.unitAddress()).flatMap(d -> d.field("ENERGY_STATUS_UNITS"))
                .orElse(ENERGY_STATUS_UNITS);
        int esu = (int) unitField.extract(powerUnit);
        if (e.domain().equals("dram") && cpu.isIntel() && cpu.family() == 6 && DRAM_FIXED_UNIT.contains(cpu.model())) {
            esu = DRAM_FIXED_BITS;
        }
        return Math.scalb((double) total, -esu);
    }

    /** TEMPERATURE_TARGET − DIGITAL_READOUT, or empty when a core reading is not valid. */
    static OptionalLong celsius(MsrMetric.Thermal t, long status, long target) {
        if (!t.packageScope() && READING_VALID.extract(status) == 0) {
            return OptionalLong.empty();
        }
        long readout = (t.packageScope() ? PACKAGE_READOUT : CORE_READOUT).extract(status);
        return OptionalLong.of(TJ.extract(target) - readout);
    }

    private static MsrDef def(String name) {
        return MsrCatalog.byName(name).orElseThrow(() -> new IllegalStateException(name + " not catalogued"));
    }

    private static MsrField field(String reg, String field) {
        return def(reg).field(field).orElseThrow(() -> new IllegalStateException(reg + "." + field + " not catalogued"));
    }
}
