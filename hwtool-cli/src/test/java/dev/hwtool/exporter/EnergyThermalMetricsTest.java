package dev.hwtool.exporter;

import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuDecoder;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.sim.SimulatedPlatform;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** RAPL joules and DTS temperatures decoded from the simulated Skylake's registers. */
class EnergyThermalMetricsTest {

    private static final List<String> REGS = List.of("MSR_PKG_ENERGY_STATUS", "MSR_PP0_ENERGY_STATUS",
            "MSR_PP1_ENERGY_STATUS", "MSR_DRAM_ENERGY_STATUS", "IA32_THERM_STATUS", "IA32_PACKAGE_THERM_STATUS");

    private static String scrape(HwtoolCollector c) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, c.collect());
        return out.toString(UTF_8);
    }

    private static double value(String body, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(body);
        assertTrue(m.find(), series + " missing in\n" + body);
        return Double.parseDouble(m.group(1));
    }

    @Test
    void joulesIncreaseBetweenScrapesAndTemperaturesAreDecoded() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake")) {
            CpuidReading cpuid = CpuidReading.of(p.cpuid());
            int first = cpuid.cpus().getFirst();
            CpuCapabilities cpu = CpuDecoder.decode(cpuid.reader(first));
            Map<Integer, Integer> packages = Packages.of(cpuid);
            Target t = new Target(cpu, CpuContext.of(cpuid.reader(first)), true, cpuid.cpus(), List::of,
                    p::msr, false, packages);
            List<MsrMetric> msrs = REGS.stream().map(n -> MsrCatalog.byName(n).orElseThrow())
                    .map(d -> MsrMetric.of(d.address(), java.util.Optional.of(d))).toList();
            HwtoolCollector c = new HwtoolCollector(t, msrs, Duration.ZERO, pool, System::nanoTime);

            String one = scrape(c);
            p.clock().advance(1_000_000_000L); // one simulated second
            String two = scrape(c);

            assertTrue(two.contains("# TYPE hwtool_rapl_energy_joules_total counter"), two);
            assertEquals(1, packages.values().stream().distinct().count(), "the simulated Skylake is one package");
            for (String domain : List.of("package", "core", "uncore", "dram")) {
                String series = "hwtool_rapl_energy_joules_total{domain=\"" + domain + "\",package=\"0\"}";
                double before = value(one, series);
                double after = value(two, series);
                assertTrue(after > before, domain + ": " + before + " -> " + after);
            }
            // 10 W for at least the second advanced (register reads add their own ticks).
            double pkg = value(two, "hwtool_rapl_energy_joules_total{domain=\"package\",package=\"0\"}")
                    - value(one, "hwtool_rapl_energy_joules_total{domain=\"package\",package=\"0\"}");
            assertTrue(pkg >= 10.0 - 1e-3 && pkg < 10.1, "package joules over one simulated second: " + pkg);
            assertEquals(1, two.lines().filter(l -> l.startsWith("hwtool_rapl_energy_joules_total{domain=\"package\"")).count(),
                    "one series per package, not per CPU");
            // TEMPERATURE_TARGET 100 minus the readouts 55 (core, valid) and 52 (package)
            for (int c0 : cpuid.cpus()) {
                assertEquals(45.0, value(two, "hwtool_thermal_core_celsius{cpu=\"" + c0 + "\"}"));
            }
            assertEquals(48.0, value(two, "hwtool_thermal_package_celsius{package=\"0\"}"));
            assertFalse(two.contains("hwtool_msr_value"), "decoded registers are not also raw gauges");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aCoreReadingThatIsNotValidIsNotExported() {
        MsrMetric.Thermal core = new MsrMetric.Thermal(0x19C, "IA32_THERM_STATUS", false);
        assertTrue(Decoded.celsius(core, 55L << 16, 100L << 16).isEmpty());
        assertEquals(45, Decoded.celsius(core, 1L << 31 | 55L << 16, 100L << 16).getAsLong());
    }
}
