package dev.hwtool.cli;

import dev.hwtool.arch.decode.CpuDecoder;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.exporter.HwtoolCollector;
import dev.hwtool.exporter.MsrMetric;
import dev.hwtool.exporter.Packages;
import dev.hwtool.exporter.Target;
import dev.hwtool.sim.SimulatedPlatform;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The exporter's energy and frequency metrics from AMD's registers, chosen by the catalog per CPU. */
class ExporterAmdTest {

    private static final Path GUEST = Path.of("../simulator-fallback/src/main/resources/dev/hwtool/sim/profiles/"
            + "amd-epyc-kvm-guest.cpuid-r.txt");

    @TempDir
    Path dir;

    /**
     * A Zen 4 `cpuid -r` dump made from the guest's by setting, per AMD APM Vol. 3 Appendix E:
     * family 19h model 11h, no hypervisor bit, 06H:ECX[0] APERFMPERF, 80000001H:ECX[10] IBS and [23]
     * PerfCtrExtCore, 80000007H:EDX[7] HwPstate, [9] CPB, [10] EffFreqRO, [14] RAPL, 80000008H:EBX[1]
     * IRPERF, and leaf 80000022H (PerfMonV2, LbrExtV2, LbrAndPmcFreeze; 6 counters, 16 LBRs).
     * A test fixture, not a dump of a real part.
     */
    private Path zen4Dump() throws IOException {
        String t = Files.readString(GUEST, StandardCharsets.ISO_8859_1)
                .replace("0x00000001 0x00: eax=0x00b00f21 ebx=0x00020800 ecx=0xfffa3203",
                        "0x00000001 0x00: eax=0x00a10f11 ebx=0x00020800 ecx=0x7ffa3203")
                .replace("0x00000006 0x00: eax=0x00000004 ebx=0x00000000 ecx=0x00000000",
                        "0x00000006 0x00: eax=0x00000004 ebx=0x00000000 ecx=0x00000001")
                .replace("0x80000000 0x00: eax=0x80000021", "0x80000000 0x00: eax=0x80000022")
                .replace("0x80000001 0x00: eax=0x00b00f21 ebx=0x40000000 ecx=0x004003f3",
                        "0x80000001 0x00: eax=0x00a10f11 ebx=0x40000000 ecx=0x00c007f3")
                .replace("0x80000007 0x00: eax=0x00000000 ebx=0x00000000 ecx=0x00000000 edx=0x00000100",
                        "0x80000007 0x00: eax=0x00000000 ebx=0x00000000 ecx=0x00000000 edx=0x00004780")
                .replace("0x80000008 0x00: eax=0x00303030 ebx=0x50020005", "0x80000008 0x00: eax=0x00303030 ebx=0x50020007")
                .replace("   0x80000021 0x00: eax=0x00000204 ebx=0x00000000 ecx=0x00000086 edx=0x00000000\n",
                        "   0x80000021 0x00: eax=0x00000204 ebx=0x00000000 ecx=0x00000086 edx=0x00000000\n"
                                + "   0x80000022 0x00: eax=0x00000007 ebx=0x00000106 ecx=0x00000000 edx=0x00000000\n");
        Path p = dir.resolve("zen4-synthetic.cpuid-r.txt");
        Files.writeString(p, t, StandardCharsets.ISO_8859_1);
        return p;
    }

    private static CpuContext context(SimulatedPlatform p) {
        CpuidReading cpuid = CpuidReading.of(p.cpuid());
        return CpuContext.of(cpuid.reader(cpuid.cpus().getFirst()));
    }

    private static List<String> names(List<MsrMetric> m) {
        return m.stream().map(MsrMetric::name).toList();
    }

    @Test
    void amdRegistersBecomeTheSameMetricsAsIntels() {
        MsrMetric pkg = MsrMetric.of(0xC001_029BL, MsrCatalog.byAddress(0xC001_029BL));
        assertEquals(new MsrMetric.Energy(0xC001_029BL, "MSR_AMD_PKG_ENERGY_STATUS", "package", 0xC001_0299L), pkg,
                "joules, decoded with MSR_AMD_RAPL_POWER_UNIT");
        assertEquals(new MsrMetric.Energy(0x611, "MSR_PKG_ENERGY_STATUS", "package", 0x606),
                MsrMetric.of(0x611, MsrCatalog.byAddress(0x611)));
        assertInstanceOf(MsrMetric.Raw.class, MsrMetric.of(0xC001_029AL, MsrCatalog.byAddress(0xC001_029AL)),
                "the per-core counter stays a raw gauge: one core's energy is not a package's");
        assertEquals("hwtool_msr_mperf", ((MsrMetric.Counter) MsrMetric.of(0xC000_00E7L,
                MsrCatalog.byAddress(0xC000_00E7L))).metric());
        assertEquals("hwtool_msr_aperf", ((MsrMetric.Counter) MsrMetric.of(0xE8, MsrCatalog.byAddress(0xE8))).metric());
        assertEquals("hwtool_msr_irperf", ((MsrMetric.Counter) MsrMetric.of(0xC000_00E9L,
                MsrCatalog.byAddress(0xC000_00E9L))).metric());
    }

    @Test
    void frequencyAndRaplResolvePerVendor() throws IOException {
        try (SimulatedPlatform zen4 = SimulatedPlatform.of(zen4Dump().toString());
             SimulatedPlatform skl = SimulatedPlatform.of("skylake");
             SimulatedPlatform guest = SimulatedPlatform.of("amd-epyc-kvm-guest")) {
            List<String> sets = List.of("frequency", "RAPL");
            assertEquals(List.of("MPerfReadOnly", "APerfReadOnly", "MSR_AMD_PKG_ENERGY_STATUS"),
                    names(ExporterCommand.msrMetrics(sets, Optional.of(context(zen4)), null)));
            assertEquals(List.of("IA32_MPERF", "IA32_APERF", "MSR_PKG_ENERGY_STATUS", "MSR_PP0_ENERGY_STATUS",
                    "MSR_PP1_ENERGY_STATUS", "MSR_DRAM_ENERGY_STATUS"),
                    names(ExporterCommand.msrMetrics(sets, Optional.of(context(skl)), null)));
            StringWriter err = new StringWriter();
            assertEquals(List.of(), ExporterCommand.msrMetrics(sets, Optional.of(context(guest)), new PrintWriter(err)));
            assertTrue(err.toString().contains("--msr frequency: this CPU has no MPERF/APERF"), err.toString());
            assertTrue(err.toString().contains("--msr rapl: this CPU has no RAPL"), err.toString());
            assertThrows(UsageException.class, () -> ExporterCommand.msrMetrics(List.of("frequency", "IA32_MPERF"),
                    Optional.of(context(zen4)), null), "IA32_MPERF and MPerfReadOnly would both be hwtool_msr_mperf");
        }
    }

    @Test
    void amdPackageJoulesComeFromAmdsUnit() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (SimulatedPlatform p = SimulatedPlatform.of(zen4Dump().toString())) {
            CpuidReading cpuid = CpuidReading.of(p.cpuid());
            int first = cpuid.cpus().getFirst();
            Target t = new Target(CpuDecoder.decode(cpuid.reader(first)), context(p), true, cpuid.cpus(),
                    List::of, p::msr, false, Packages.of(cpuid));
            List<MsrMetric> msrs = ExporterCommand.msrMetrics(List.of("rapl", "frequency"), Optional.of(context(p)), null);
            HwtoolCollector c = new HwtoolCollector(t, msrs, Duration.ZERO, pool, System::nanoTime);
            String one = scrape(c);
            p.clock().advance(1_000_000_000L);
            String two = scrape(c);
            String series = "hwtool_rapl_energy_joules_total{domain=\"package\",package=\"0\"}";
            double joules = value(two, series) - value(one, series);
            // 10 W for one simulated second, in RAPL_PWR_UNIT 0xA1003's 2^-16 J: read with Intel's
            // 2^-14 J this would be 40 J.
            assertTrue(joules >= 10.0 - 1e-3 && joules < 10.1, "package joules over one simulated second: " + joules);
            assertTrue(two.contains("hwtool_msr_mperf_total{cpu=\"0\"}"), two);
            assertTrue(two.contains("hwtool_msr_aperf_total{cpu=\"0\"}"), two);
        } finally {
            pool.shutdownNow();
        }
    }

    private static String scrape(HwtoolCollector c) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, c.collect());
        return out.toString(StandardCharsets.UTF_8);
    }

    private static double value(String body, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(body);
        assertTrue(m.find(), series + " missing in\n" + body);
        return Double.parseDouble(m.group(1));
    }
}
