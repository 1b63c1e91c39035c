package dev.hwtool.exporter;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuDecoder;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.sim.SimulatedPlatform;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.config.EscapingScheme;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CPU-wide perf counts as node_exporter's perf collector names them. */
class PerfCounterTest {

    @Test
    void namesFollowNodeExportersPerfCollector() {
        assertEquals("hwtool_perf_instructions", PerfCounter.of("instructions", Map.of()).metric());
        assertEquals("hwtool_perf_branch_misses", PerfCounter.of("branch-misses", Map.of()).metric());
        assertEquals("hwtool_perf_cycles_u", PerfCounter.of("cycles:u", Map.of()).metric());
        PerfCounter clock = PerfCounter.of("cpu-clock", Map.of());
        assertEquals("hwtool_perf_cpu_clock_seconds", clock.metric());
        assertEquals(1e-9, clock.scale());
    }

    @Test
    void eachCpuIsASeriesAndAFailedReadIsCountedNotExported() throws Exception {
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake")) {
            CpuidReading cpuid = CpuidReading.of(p.cpuid());
            CpuCapabilities cpu = CpuDecoder.decode(cpuid.reader(0));
            Target t = new Target(cpu, CpuContext.of(cpuid.reader(0)), false, List.of(0, 1), List::of, p::msr, false);
            LongSupplier broken = () -> {
                throw new HwException(Cause.OS_ERROR, "read of perf fd 7: EIO");
            };
            List<PerfCounter> counters = List.of(
                    PerfCounter.of("context-switches", Map.of(0, () -> 42L, 1, broken)),
                    PerfCounter.of("cpu-clock", Map.of(0, () -> 1_500_000_000L)));
            HwtoolCollector c = new HwtoolCollector(t, List.of(), counters, Duration.ZERO, null, System::nanoTime);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PrometheusTextFormatWriter.create().write(out, c.collect(), EscapingScheme.ALLOW_UTF8);
            String text = out.toString(StandardCharsets.UTF_8);
            assertTrue(text.contains("hwtool_perf_context_switches_total{cpu=\"0\"} 42.0"), text);
            assertFalse(text.contains("hwtool_perf_context_switches_total{cpu=\"1\"}"), text);
            assertTrue(text.contains("hwtool_perf_cpu_clock_seconds_total{cpu=\"0\"} 1.5"), text);
            assertTrue(text.contains("hwtool_scrape_errors_total{cause=\"os_error\"} 1.0"), text);
        }
    }
}
