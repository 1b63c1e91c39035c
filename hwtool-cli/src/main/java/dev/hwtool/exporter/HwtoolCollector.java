package dev.hwtool.exporter;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.Identity;
import dev.hwtool.api.Verdict;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot.GaugeDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot;
import io.prometheus.metrics.model.snapshots.InfoSnapshot.InfoDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import io.prometheus.metrics.model.snapshots.Unit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.LongSupplier;

/**
 * The exporter's metrics, read at scrape time: identity, one gauge per capability verdict, the
 * selected MSRs of every CPU, and the exporter's own health. Never writes a register.
 *
 * <p>Cost is bounded two ways: on the hardware backend each CPU's registers are read by its own
 * task on {@code pool} (each read of /dev/cpu/N/msr is an IPI to CPU N, rdmsr_safe_on_cpu in
 * arch/x86/lib/msr-smp.c, so CPUs answer concurrently), and with a cache interval above zero
 * a scrape within that interval of the last reading serves that reading again. Scrapes are
 * serialized: two never read at once.
 */
public final class HwtoolCollector implements MultiCollector {

    /** The {@code cause} label of a usable verdict. */
    public static final String NO_CAUSE = "none";

    private final Target target;
    private final List<MsrMetric> msrs;
    private final List<PerfCounter> counters;
    private final Duration cacheInterval;
    private final ExecutorService pool;
    private final LongSupplier nanoTime;
    private final InfoSnapshot info;
    private final Map<Cause, Long> errors = new EnumMap<>(Cause.class);
    /** Each energy series' running total ("domain/package"): kept across readings. */
    private final Map<String, WrapAccumulator> energyTotals = new java.util.HashMap<>();

    private Reading cached;
    private long cachedAt;
    private double lastDuration;

    /** One collection: everything read at scrape time except the health metrics. */
    private record Reading(List<MetricSnapshot> snapshots) {
    }

    /**
     * @param pool the threads that read CPUs concurrently (used only when the target allows it);
     *             owned by the caller
     */
    public HwtoolCollector(Target target, List<MsrMetric> msrs, Duration cacheInterval, ExecutorService pool,
                           LongSupplier nanoTime) {
        this(target, msrs, List.of(), cacheInterval, pool, nanoTime);
    }

    /**
     * @param counters events counted on whole CPUs (the hardware backend's {@code --events}), read
     *                 at each reading
     */
    public HwtoolCollector(Target target, List<MsrMetric> msrs, List<PerfCounter> counters, Duration cacheInterval,
                           ExecutorService pool, LongSupplier nanoTime) {
        this.target = target;
        this.msrs = List.copyOf(msrs);
        this.counters = List.copyOf(counters);
        this.cacheInterval = cacheInterval;
        this.pool = pool;
        this.nanoTime = nanoTime;
        this.info = info(target.cpu(), target.simulated());
    }

    @Override
    public synchronized MetricSnapshots collect() {
        long start = nanoTime.getAsLong();
        boolean fresh = cached == null || cacheInterval.isZero() || start - cachedAt >= cacheInterval.toNanos();
        if (fresh) {
            cached = read();
            cachedAt = start;
            lastDuration = Unit.nanosToSeconds(nanoTime.getAsLong() - start);
        }
        List<MetricSnapshot> all = new ArrayList<>(cached.snapshots());
        all.add(GaugeSnapshot.builder().name("hwtool_scrape_duration_seconds").unit(Unit.SECONDS)
                .help("Time the last reading of capabilities and registers took (a cached reading keeps its time)")
                .dataPoint(GaugeDataPointSnapshot.builder().value(lastDuration).build()).build());
        CounterSnapshot.Builder err = CounterSnapshot.builder().name("hwtool_scrape_errors")
                .help("Reads that failed while collecting, by cause (the hwtool Cause, lower case)");
        synchronized (errors) {
            for (Cause c : Cause.values()) {
                err.dataPoint(CounterDataPointSnapshot.builder().labels(Labels.of("cause", label(c)))
                        .value(errors.getOrDefault(c, 0L)).build());
            }
        }
        all.add(err.build());
        return new MetricSnapshots(all);
    }

    private Reading read() {
        List<MetricSnapshot> out = new ArrayList<>();
        out.add(info);
        out.add(capabilities());
        if (!msrs.isEmpty()) {
            out.addAll(registers());
        }
        for (PerfCounter c : counters) {
            out.add(perf(c));
        }
        return new Reading(out);
    }

    /** Each CPU's count: a read(2) of its perf fd, cheap enough to do one after another. */
    private MetricSnapshot perf(PerfCounter c) {
        CounterSnapshot.Builder b = CounterSnapshot.builder().name(c.metric())
                .help("perf event " + c.event() + " counted on each whole CPU (user and kernel, every task), since the exporter started");
        if (c.scale() != 1) {
            b.unit(Unit.SECONDS);
        }
        new TreeMap<>(c.perCpu()).forEach((cpu, running) -> {
            try {
                b.dataPoint(CounterDataPointSnapshot.builder().labels(Labels.of("cpu", String.valueOf(cpu)))
                        .value(unsigned(running.getAsLong()) * c.scale()).build());
            } catch (HwException e) {
                count(e.cause());
            }
        });
        return b.build();
    }

    private MetricSnapshot capabilities() {
        GaugeSnapshot.Builder g = GaugeSnapshot.builder().name("hwtool_capability_usable")
                .help("1 when the facility is usable here, else 0 with the cause (hwtool caps gives the reason and fix)");
        List<Verdict> verdicts;
        try {
            verdicts = target.verdicts().get();
        } catch (HwException e) {
            count(e.cause());
            return g.build();
        }
        for (Verdict v : verdicts) {
            g.dataPoint(GaugeDataPointSnapshot.builder()
                    .labels(Labels.of("facility", facility(v), "cause", v.cause().map(HwtoolCollector::label).orElse(NO_CAUSE)))
                    .value(v.usable() ? 1 : 0).build());
        }
        return g.build();
    }

    /** The facility as {@code hwtool caps --json} names it. */
    static String facility(Verdict v) {
        return v.facility().name().toLowerCase(Locale.ROOT);
    }

    static String label(Cause c) {
        return c.name().toLowerCase(Locale.ROOT);
    }

    /**
     * One CPU's values: {@link #msrs}' registers at 0..n-1, each one's companion register (the
     * RAPL unit, the TCC activation temperature) at n..2n-1; null where the read failed or where
     * a package-scope register is read on another CPU of the package.
     */
    private Long[] readCpu(MsrAccess access, int cpu, boolean firstOfPackage) {
        int n = msrs.size();
        Long[] values = new Long[2 * n];
        for (int i = 0; i < n; i++) {
            MsrMetric m = msrs.get(i);
            if (m.packageScope() && !firstOfPackage) {
                continue;
            }
            try {
                values[i] = access.read(cpu, (int) m.address());
                long companion = switch (m) {
                    case MsrMetric.Energy e -> e.unitAddress();
                    case MsrMetric.Thermal t -> Decoded.TEMPERATURE_TARGET;
                    case MsrMetric.Counter c -> -1;
                    case MsrMetric.Raw r -> -1;
                };
                if (companion >= 0) {
                    values[n + i] = access.read(cpu, (int) companion);
                }
            } catch (HwException e) {
                count(e.cause());
            }
        }
        return values;
    }

    private List<MetricSnapshot> registers() {
        MsrAccess access;
        try {
            access = target.msr().get();
        } catch (HwException e) {
            count(e.cause());
            return List.of();
        }
        Map<Integer, Long[]> byCpu = new LinkedHashMap<>();
        Map<Integer, Integer> packageOf = target.packageOfCpu();
        java.util.Set<Integer> firsts = new java.util.HashSet<>(Packages.firsts(packageOf));
        if (target.parallel() && target.cpus().size() > 1) {
            Map<Integer, Future<Long[]>> tasks = new LinkedHashMap<>();
            for (int cpu : target.cpus()) {
                tasks.put(cpu, pool.submit(() -> readCpu(access, cpu, firsts.contains(cpu))));
            }
            tasks.forEach((cpu, f) -> byCpu.put(cpu, join(f)));
        } else {
            for (int cpu : target.cpus()) {
                byCpu.put(cpu, readCpu(access, cpu, firsts.contains(cpu)));
            }
        }
        int n = msrs.size();
        List<MetricSnapshot> out = new ArrayList<>();
        GaugeSnapshot.Builder raw = null;
        CounterSnapshot.Builder energy = null;
        GaugeSnapshot.Builder coreTemp = null;
        GaugeSnapshot.Builder packageTemp = null;
        for (int i = 0; i < msrs.size(); i++) {
            MsrMetric m = msrs.get(i);
            switch (m) {
                case MsrMetric.Counter c -> {
                    CounterSnapshot.Builder b = CounterSnapshot.builder().name(c.metric()).help(c.help());
                    for (Map.Entry<Integer, Long[]> e : byCpu.entrySet()) {
                        Long v = e.getValue()[i];
                        if (v != null) {
                            b.dataPoint(CounterDataPointSnapshot.builder()
                                    .labels(Labels.of("cpu", String.valueOf(e.getKey())))
                                    .value(unsigned(v)).build());
                        }
                    }
                    out.add(b.build());
                }
                case MsrMetric.Raw r -> {
                    if (raw == null) {
                        raw = GaugeSnapshot.builder().name("hwtool_msr_value")
                                .help("Raw value of a selected MSR (read only; a float64, exact below 2^53)");
                    }
                    for (Map.Entry<Integer, Long[]> e : byCpu.entrySet()) {
                        Long v = e.getValue()[i];
                        if (v != null) {
                            raw.dataPoint(GaugeDataPointSnapshot.builder()
                                    .labels(Labels.of("cpu", String.valueOf(e.getKey()), "msr", r.hex(), "name", r.name()))
                                    .value(unsigned(v)).build());
                        }
                    }
                }
                case MsrMetric.Energy en -> {
                    if (energy == null) {
                        energy = CounterSnapshot.builder().name("hwtool_rapl_energy").unit(Unit.JOULES)
                                .help("Energy used by a RAPL domain (package, core = PP0, uncore = PP1, dram; AMD: package) since"
                                        + " reset, per package, accumulated across the 32-bit counter's wrap-around");
                    }
                    for (Map.Entry<Integer, Long[]> e : byCpu.entrySet()) {
                        Long v = e.getValue()[i];
                        Long unit = e.getValue()[n + i];
                        if (v != null && unit != null) {
                            String pkg = String.valueOf(packageOf.get(e.getKey()));
                            long total = energyTotals.computeIfAbsent(en.domain() + "/" + pkg,
                                    k -> new WrapAccumulator(Decoded.ENERGY_BITS)).add(v);
                            energy.dataPoint(CounterDataPointSnapshot.builder()
                                    .labels(Labels.of("domain", en.domain(), "package", pkg))
                                    .value(Decoded.joules(total, unit, en, target.cpu().identity())).build());
                        }
                    }
                }
                case MsrMetric.Thermal t -> {
                    GaugeSnapshot.Builder g;
                    if (t.packageScope()) {
                        if (packageTemp == null) {
                            packageTemp = GaugeSnapshot.builder().name("hwtool_thermal_package_celsius").unit(Unit.CELSIUS)
                                    .help("Package temperature: MSR_TEMPERATURE_TARGET minus IA32_PACKAGE_THERM_STATUS.DIGITAL_READOUT");
                        }
                        g = packageTemp;
                    } else {
                        if (coreTemp == null) {
                            coreTemp = GaugeSnapshot.builder().name("hwtool_thermal_core_celsius").unit(Unit.CELSIUS)
                                    .help("Core temperature: MSR_TEMPERATURE_TARGET minus IA32_THERM_STATUS.DIGITAL_READOUT,"
                                            + " when READING_VALID");
                        }
                        g = coreTemp;
                    }
                    for (Map.Entry<Integer, Long[]> e : byCpu.entrySet()) {
                        Long v = e.getValue()[i];
                        Long tcc = e.getValue()[n + i];
                        if (v != null && tcc != null) {
                            java.util.OptionalLong c = Decoded.celsius(t, v, tcc);
                            if (c.isPresent()) {
                                Labels l = t.packageScope()
                                        ? Labels.of("package", String.valueOf(packageOf.get(e.getKey())))
                                        : Labels.of("cpu", String.valueOf(e.getKey()));
                                g.dataPoint(GaugeDataPointSnapshot.builder().labels(l).value(c.getAsLong()).build());
                            }
                        }
                    }
                }
            }
        }
        if (raw != null) {
            out.add(raw.build());
        }
        if (energy != null) {
            out.add(energy.build());
        }
        if (coreTemp != null) {
            out.add(coreTemp.build());
        }
        if (packageTemp != null) {
            out.add(packageTemp.build());
        }
        return out;
    }

    private Long[] join(Future<Long[]> f) {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading MSRs", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("reading MSRs failed", e.getCause());
        }
    }

    /** Called from the reading tasks too: guarded by the map, not by this (collect holds this while it waits). */
    private void count(Cause cause) {
        synchronized (errors) {
            errors.merge(cause, 1L, Long::sum);
        }
    }

    /** A 64-bit register as the unsigned number it is. */
    static double unsigned(long v) {
        return v >= 0 ? v : (double) (v >>> 1) * 2.0 + (v & 1);
    }

    /** {@code hwtool_cpu_info}: the CPU's identity as labels, value 1 (the node_exporter node_cpu_info style). */
    static InfoSnapshot info(CpuCapabilities cpu, boolean simulated) {
        Identity id = cpu.identity();
        Labels labels = Labels.of(
                "vendor", id.vendor(),
                "family", String.valueOf(id.family()),
                "model", String.valueOf(id.model()),
                "stepping", String.valueOf(id.stepping()),
                "microarchitecture", cpu.microarchitecture().name(),
                "model_name", id.brand().strip(),
                "hypervisor", cpu.hypervisor().present() ? cpu.hypervisor().name() : "",
                "simulated", String.valueOf(simulated));
        return InfoSnapshot.builder().name("hwtool_cpu")
                .help("The CPU's identity from CPUID (CPU 0); simulated=\"true\" only on the simulator")
                .dataPoint(InfoDataPointSnapshot.builder().labels(labels).build()).build();
    }
}
