package dev.hwtool.exporter;

import dev.hwtool.arch.msr.MeteredRegisters;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;

import java.util.Locale;
import java.util.Optional;

/**
 * One register the exporter reads, and how it is exposed. Free-running counters the catalog
 * knows ({@link MeteredRegisters#freeRunning}: IA32_APERF and IA32_MPERF, SDM Vol. 3B 15.2, 64-bit,
 * counting while in C0; AMD's read-only copies APerfReadOnly/MPerfReadOnly under the same metric
 * names; AMD's IRPerfCount) are Prometheus counters; the package-wide RAPL energy status
 * registers, Intel's and AMD's ({@link MeteredRegisters#rapl}), are joules, each decoded with its
 * own unit register, and the thermal status registers degrees Celsius, decoded through the
 * catalog; any other register (AMD's per-core energy counter too) is its raw value as a gauge,
 * named by the catalog.
 */
public sealed interface MsrMetric {

    long address();

    /** The catalog's name, or "" for a register outside it. */
    String name();

    /** {@code hwtool_msr_<name>_total{cpu}}: a 64-bit free-running count. */
    record Counter(long address, String name, String metric, String help) implements MsrMetric {
    }

    /** {@code hwtool_msr_value{cpu,msr,name}}: the raw 64-bit value (a float64: exact below 2^53). */
    record Raw(long address, String name) implements MsrMetric {
    }

    /**
     * {@code hwtool_rapl_energy_joules_total{domain,package}}: a RAPL energy status register read
     * on the first CPU of each package, scaled by its unit register's ENERGY_STATUS_UNITS
     * (MSR_RAPL_POWER_UNIT, or MSR_AMD_RAPL_POWER_UNIT for AMD's) and accumulated across its 32-bit
     * wrap-around ({@link WrapAccumulator}).
     *
     * @param domain      node_exporter's RAPL zone names: package, core (PP0), uncore (PP1), dram
     * @param unitAddress the register holding its energy unit, read on the same CPU
     */
    record Energy(long address, String name, String domain, long unitAddress) implements MsrMetric {
    }

    /**
     * {@code hwtool_thermal_core_celsius{cpu}} (IA32_THERM_STATUS, every CPU) or
     * {@code hwtool_thermal_package_celsius{package}} (IA32_PACKAGE_THERM_STATUS, first CPU of each
     * package): MSR_TEMPERATURE_TARGET.TEMPERATURE_TARGET − DIGITAL_READOUT (SDM Vol. 3B 14.7.5.2:
     * the readout is degrees below the TCC activation temperature).
     */
    record Thermal(long address, String name, boolean packageScope) implements MsrMetric {
    }

    /** The exposition of a register given by address, catalogued or not. */
    public static MsrMetric of(long address, Optional<MsrDef> def) {
        String name = def.map(MsrDef::name).orElse("");
        if (def.isPresent()) {
            Optional<MeteredRegisters.FreeRunning> count = MeteredRegisters.freeRunning(def.get());
            if (count.isPresent()) {
                return new Counter(address, name, "hwtool_msr_" + count.get().metric(),
                        name + " (" + def.get().source() + "): " + def.get().description() + ", per logical CPU");
            }
            Optional<MeteredRegisters.RaplDomain> rapl = MeteredRegisters.rapl(def.get()).filter(r -> !r.perCore());
            if (rapl.isPresent()) {
                long unit = MsrCatalog.byName(rapl.get().unit()).orElseThrow().address();
                return new Energy(address, name, rapl.get().domain(), unit);
            }
        }
        return switch (name) {
            case "IA32_THERM_STATUS" -> new Thermal(address, name, false);
            case "IA32_PACKAGE_THERM_STATUS" -> new Thermal(address, name, true);
            default -> new Raw(address, name);
        };
    }

    /** Whether it is read once per package rather than on every CPU. */
    default boolean packageScope() {
        return this instanceof Energy || this instanceof Thermal t && t.packageScope();
    }

    /** {@code "0x000001a0"}: the address as msr-tools and the catalog print it. */
    default String hex() {
        return String.format(Locale.ROOT, "0x%08x", address());
    }
}
