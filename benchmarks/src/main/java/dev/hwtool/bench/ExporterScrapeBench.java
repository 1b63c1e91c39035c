package dev.hwtool.bench;

import dev.hwtool.api.MsrAccess;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuDecoder;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.api.Verdict;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.caps.Verdicts;
import dev.hwtool.exporter.HwtoolCollector;
import dev.hwtool.exporter.MsrMetric;
import dev.hwtool.exporter.Target;
import dev.hwtool.linux.sys.LinuxProbe;
import dev.hwtool.sim.SimulatedPlatform;
import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * What one {@code hwtool exporter} scrape costs, as the number of CPUs and selected MSRs grows:
 * the collection ({@link HwtoolCollector#collect()}) and the text exposition the Prometheus
 * client writes from it.
 *
 * <ul>
 *   <li>{@code scrapeRegisters}: the exporter's own per-CPU, per-MSR work over a register file
 *       that answers from memory (so that hundreds of CPUs can be measured on a 2-CPU machine;
 *       a real read of /dev/cpu/N/msr adds one IPI per CPU and MSR, CPUs in parallel), with the
 *       verdicts fixed;</li>
 *   <li>{@code scrapeSimulatedSkylake}: a whole scrape of the simulated Skylake (8 CPUs), verdicts
 *       judged again from this host's /proc and /sys each time, as the exporter does.</li>
 * </ul>
 * Scratch figures only (benchmarks/scripts/exporter_scrape.sh); not part of results.md.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class ExporterScrapeBench {

    /** Register addresses the scrape reads: APERF and MPERF (counters), then raw-gauge registers. */
    private static final long[] ADDRESSES = {0xE8, 0xE7, 0x1A0, 0x1D9, 0x38F, 0x38D, 0x345, 0x10, 0x1B, 0x277,
            0xC0000080L, 0xC0000103L, 0x186, 0x187, 0xC1, 0xC2};

    @State(Scope.Benchmark)
    public static class Registers {
        @Param({"8", "64", "256", "1024"})
        int cpus;

        @Param({"1", "4", "16"})
        int msrs;

        HwtoolCollector collector;
        SimulatedPlatform identity;

        @Setup(Level.Trial)
        public void setUp() {
            identity = SimulatedPlatform.of("skylake");
            CpuidReading cpuid = CpuidReading.of(identity.cpuid());
            int first = cpuid.cpus().getFirst();
            CpuCapabilities cpu = CpuDecoder.decode(cpuid.reader(first));
            List<Verdict> verdicts = Verdicts.assess(cpu, LinuxProbe.probe());
            List<Integer> cpuList = IntStream.range(0, cpus).boxed().toList();
            MsrAccess memory = new MsrAccess() {
                @Override
                public List<Integer> cpus() {
                    return cpuList;
                }

                @Override
                public long read(int c, int msr) {
                    return 0x1234_5678L * (c + 1) + msr;
                }

                @Override
                public void write(int c, int msr, long value) {
                    throw new UnsupportedOperationException("the exporter never writes");
                }

                /** The skylake identity's CPUs and journal: the exporter never writes carefully either. */
                @Override
                public Origin origin() {
                    return identity.msr().origin();
                }

                @Override
                public void close() {
                }
            };
            List<MsrMetric> selected = new ArrayList<>();
            for (int i = 0; i < msrs; i++) {
                selected.add(MsrMetric.of(ADDRESSES[i], MsrCatalog.byAddress(ADDRESSES[i])));
            }
            Target target = new Target(cpu, CpuContext.of(cpuid.reader(first)), false, cpuList,
                    () -> verdicts, () -> memory, false);
            collector = new HwtoolCollector(target, selected, Duration.ZERO, null, System::nanoTime);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            identity.close();
        }
    }

    @State(Scope.Benchmark)
    public static class Simulated {
        SimulatedPlatform platform;
        ExecutorService pool;
        HwtoolCollector collector;

        @Setup(Level.Trial)
        public void setUp() {
            platform = SimulatedPlatform.of("skylake");
            CpuidReading cpuid = CpuidReading.of(platform.cpuid());
            int first = cpuid.cpus().getFirst();
            CpuCapabilities cpu = CpuDecoder.decode(cpuid.reader(first));
            Target target = new Target(cpu, CpuContext.of(cpuid.reader(first)), true, cpuid.cpus(),
                    () -> Verdicts.assess(cpu, LinuxProbe.probe()), platform::msr, false);
            List<MsrMetric> selected = List.of(MsrMetric.of(0xE8, MsrCatalog.byAddress(0xE8)),
                    MsrMetric.of(0xE7, MsrCatalog.byAddress(0xE7)), MsrMetric.of(0x1A0, MsrCatalog.byAddress(0x1A0)));
            pool = Executors.newSingleThreadExecutor();
            collector = new HwtoolCollector(target, selected, Duration.ZERO, pool, System::nanoTime);
        }

        @TearDown(Level.Trial)
        public void tearDown() {
            pool.shutdownNow();
            platform.close();
        }
    }

    private static final PrometheusTextFormatWriter TEXT = PrometheusTextFormatWriter.create();

    private static int expose(HwtoolCollector c) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 16);
        TEXT.write(out, c.collect(), EscapingScheme.ALLOW_UTF8);
        return out.size();
    }

    @Benchmark
    public int scrapeRegisters(Registers r) throws IOException {
        return expose(r.collector);
    }

    @Benchmark
    public int scrapeSimulatedSkylake(Simulated s) throws IOException {
        return expose(s.collector);
    }
}
