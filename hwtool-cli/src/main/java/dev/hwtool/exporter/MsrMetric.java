package dev.hwtool.exporter;

import dev.hwtool.arch.msr.MsrDef;

import java.util.Locale;
import java.util.Optional;

/**
 * One register the exporter reads on every CPU, and how it is exposed. Free-running counters the
 * catalog knows (IA32_APERF and IA32_MPERF, SDM Vol. 3B 15.2: 64-bit, counting while in C0) are
 * Prometheus counters; any other register is its raw value as a gauge, named by the catalog.
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

    /** The exposition of a register given by address, catalogued or not. */
    public static MsrMetric of(long address, Optional<MsrDef> def) {
        String name = def.map(MsrDef::name).orElse("");
        return switch (name) {
            case "IA32_APERF", "IA32_MPERF" -> new Counter(address, name,
                    "hwtool_msr_" + name.substring("IA32_".length()).toLowerCase(Locale.ROOT),
                    name + " (SDM Vol. 3B 15.2): " + def.get().description() + ", per logical CPU");
            default -> new Raw(address, name);
        };
    }

    /** {@code "0x000001a0"}: the address as msr-tools and the catalog print it. */
    default String hex() {
        return String.format(Locale.ROOT, "0x%08x", address());
    }
}
