package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.arch.msr.MeteredRegisters;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.exporter.ExporterServer;
import dev.hwtool.exporter.HwtoolCollector;
import dev.hwtool.exporter.MsrMetric;
import dev.hwtool.exporter.Packages;
import dev.hwtool.exporter.PerfCounter;
import dev.hwtool.exporter.Target;
import dev.hwtool.exporter.WebConfigWatch;
import dev.hwtool.exporter.WebConfig;
import dev.hwtool.linux.LinuxCapabilities;
import dev.hwtool.linux.LinuxPlatform;
import dev.hwtool.linux.perf.CpuWideCounters;
import dev.hwtool.linux.perf.PerfPmus;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.LongSupplier;

/**
 * A Prometheus exporter of this machine's (or a simulated CPU's) identity, capability verdicts
 * and selected MSRs. Read-only: it never writes a register. Runs until SIGTERM or SIGINT.
 */
@Command(name = "exporter", sortOptions = false,
        description = {"Serve Prometheus metrics at http://HOST:PORT/metrics: the CPU's identity, whether each facility "
                + "is usable and why not, selected MSRs per CPU. Read-only. Stops on SIGTERM (exit 143) or SIGINT (130)."})
final class ExporterCommand implements Callable<Integer> {

    /** Outside the ports the Prometheus wiki's "Default port allocations" lists, as far as we know (README). */
    static final int DEFAULT_PORT = 9777;
    static final List<String> DEFAULT_EVENTS = List.of("cycles", "instructions");

    @Spec
    CommandSpec spec;

    @Option(names = "--listen", paramLabel = "HOST:PORT", defaultValue = "127.0.0.1:" + DEFAULT_PORT,
            description = "Address to serve on, port 0 to 65535 (default: ${DEFAULT-VALUE}; other interfaces only when asked, e.g. 0.0.0.0:9777).")
    String listen;

    @Mixin
    BackendOptions backend;

    @Option(names = "--msr", paramLabel = "REG",
            description = "An MSR to read on every CPU at each scrape (name or number; repeatable). IA32_APERF/IA32_MPERF "
                    + "become counters, others the raw gauge hwtool_msr_value. 'frequency': this CPU's MPERF/APERF pair "
                    + "(AMD's read-only copies where it has them); 'rapl': its package-wide RAPL energy registers "
                    + "(Intel's or AMD's).")
    List<String> msrNames = new ArrayList<>();

    @Option(names = "--events", paramLabel = "EVENT,...", split = ",",
            description = "Hardware backend: events to count on every whole CPU, as hwtool_perf_EVENT_total{cpu} "
                    + "(default: cycles,instructions; the clocks as _seconds_total). Needs CAP_PERFMON or "
                    + "perf_event_paranoid <= 0. An event the PMU cannot count is left out (the verdicts say why).")
    List<String> events;

    @Option(names = "--cache-interval", paramLabel = "D", defaultValue = "0",
            description = "Serve a reading again to scrapes within D of it (0, or 1ms to 24h, e.g. 5s; default 0: read at every scrape).")
    String cacheInterval;

    @Option(names = "--web.config.file", paramLabel = "FILE",
            description = "TLS, client certificates and basic auth, in the web configuration format of Prometheus "
                    + "exporters (prometheus/exporter-toolkit: tls_server_config, http_server_config, basic_auth_users).")
    Path webConfigFile;

    @Option(names = "--web.max-requests", paramLabel = "N", defaultValue = "4",
            description = "Scrapes handled at once, the rest wait (1 to 256; default ${DEFAULT-VALUE}).")
    int maxRequests;

    @Option(names = "--web.max-connections", paramLabel = "N", defaultValue = "64",
            description = "Connections open at once; more are closed on accept (1 to 65536; default ${DEFAULT-VALUE}).")
    int maxConnections;

    @Option(names = "--web.max-connections-per-client", paramLabel = "N", defaultValue = "8",
            description = "Connections open at once from one IP address (1 to --web.max-connections; default ${DEFAULT-VALUE}).")
    int maxConnectionsPerClient;

    @Option(names = "--web.header-timeout", paramLabel = "D", defaultValue = "10s",
            description = "Time from connecting to the end of the request headers, TLS handshake included (1s to 5m; default ${DEFAULT-VALUE}).")
    String headerTimeout;

    @Option(names = "--web.request-timeout", paramLabel = "D", defaultValue = "30s",
            description = "Time from connecting to the end of the response (--web.header-timeout to 10m; default ${DEFAULT-VALUE}).")
    String requestTimeout;

    @Option(names = "--web.idle-timeout", paramLabel = "D", defaultValue = "2m",
            description = "Time a kept-alive connection may wait for its next request (1s to 1h; default ${DEFAULT-VALUE}).")
    String idleTimeout;

    @Override
    public Integer call() throws InterruptedException {
        InetSocketAddress address = listenAddress(listen);
        ExporterServer.Limits limits = limits();
        WebConfigWatch web = webConfig(webConfigFile, spec.commandLine().getErr());
        Duration cache = cacheInterval.strip().equals("0") ? Duration.ZERO : interval(cacheInterval);
        msrMetrics(msrNames, Optional.empty(), null); // the names, checked before anything is opened
        if (events != null && backend.simulated()) {
            throw new UsageException("--events applies to the hardware backend: the simulated CPUs run nothing between"
                    + " scrapes, so there is nothing to count");
        }
        Platform platform = backend.open();
        ExecutorService readers = Executors.newFixedThreadPool(8, daemon("hwtool-exporter-read"));
        ExporterServer server;
        try {
            PrometheusRegistry registry = new PrometheusRegistry();
            List<PerfCounter> counters = platform instanceof LinuxPlatform linux
                    ? counters(linux, events == null ? DEFAULT_EVENTS : events) : List.of();
            Target target = target(platform);
            List<MsrMetric> msrs = msrMetrics(msrNames, Optional.of(target.context()), spec.commandLine().getErr());
            registry.register(new HwtoolCollector(target, msrs, counters, cache, readers, System::nanoTime));
            server = ExporterServer.start(address, registry, limits, web);
        } catch (BindException e) {
            platform.close();
            throw new HwException(Cause.OS_ERROR, "cannot listen on " + listen + ": " + e.getMessage(),
                    "give another address or port with --listen HOST:PORT");
        } catch (IOException e) {
            platform.close();
            throw new HwException(Cause.OS_ERROR, "cannot listen on " + listen + ": " + e.getMessage());
        } catch (RuntimeException e) {
            platform.close(); // e.g. --msr frequency resolving to a register also named on its own
            throw e;
        }
        CountDownLatch stopped = new CountDownLatch(1);
        // SIGTERM and SIGINT run the shutdown hooks; the JVM then exits with 128+signal (143, 130).
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            platform.close();
            stopped.countDown();
        }, "hwtool-exporter-stop"));
        PrintWriter err = spec.commandLine().getErr();
        InetSocketAddress bound = server.address();
        err.println("hwtool exporter: serving " + (server.tls() ? "https" : "http") + "://" + hostPort(bound) + "/metrics ("
                + platform.description() + (web.current().auth().isEmpty() ? "" : "; basic auth") + ")");
        err.flush();
        stopped.await();
        return ExitCodes.OK;
    }

    /** The server's limits from the options; one out of its documented range is a usage error (exit 2). */
    ExporterServer.Limits limits() {
        range("--web.max-requests", maxRequests, 1, 256);
        range("--web.max-connections", maxConnections, 1, 65536);
        range("--web.max-connections-per-client", maxConnectionsPerClient, 1, maxConnections);
        Duration header = duration("--web.header-timeout", headerTimeout, Duration.ofSeconds(1), Duration.ofMinutes(5));
        Duration request = duration("--web.request-timeout", requestTimeout, header, Duration.ofMinutes(10));
        Duration idle = duration("--web.idle-timeout", idleTimeout, Duration.ofSeconds(1), Duration.ofHours(1));
        return new ExporterServer.Limits(maxRequests, maxConnections, maxConnectionsPerClient, header, request, idle);
    }

    private static void range(String option, int value, int min, int max) {
        if (value < min || value > max) {
            throw new UsageException(option + " " + value + " is out of range (" + min + " to " + max + ")");
        }
    }

    private static Duration duration(String option, String text, Duration min, Duration max) {
        Duration d;
        try {
            d = IntervalArg.parse(text);
        } catch (picocli.CommandLine.TypeConversionException e) {
            throw new UsageException(option + ": " + e.getMessage());
        }
        if (d.compareTo(min) < 0 || d.compareTo(max) > 0) {
            throw new UsageException(option + " " + text + " is out of range (" + human(min) + " to " + human(max) + ")");
        }
        return d;
    }

    private static String human(Duration d) {
        return d.toMillis() % 3_600_000 == 0 ? d.toHours() + "h" : d.toMillis() % 60_000 == 0 ? d.toMinutes() + "m" : d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
    }

    /**
     * The web configuration, or none; a file that cannot be used is one line and exit 3 (bad
     * input), checked (key pair, CA, suites included) before the backend opens. Later changes to
     * its files are read again by the server, each noted on stderr in one line.
     */
    static WebConfigWatch webConfig(Path file, PrintWriter err) {
        try {
            if (file == null) {
                return WebConfigWatch.fixed(WebConfig.NONE);
            }
            return WebConfigWatch.watching(file, line -> {
                synchronized (err) {
                    err.println(line);
                    err.flush();
                }
            });
        } catch (WebConfig.WebConfigException e) {
            throw new HwException(Cause.BAD_INPUT, "--web.config.file " + e.getMessage(),
                    "see the web configuration in the README (hwtool exporter), the format of prometheus/exporter-toolkit");
        }
    }

    /** Opens the events on every CPU; one that cannot be counted is named on stderr and left out. */
    private List<PerfCounter> counters(LinuxPlatform linux, List<String> names) {
        List<Integer> cpus = linux.cpuid().cpus();
        CpuWideCounters opened = CpuWideCounters.open(linux.perf(), new PerfPmus(Path.of("/sys"), linux.perf().errors()),
                names, cpus);
        List<PerfCounter> out = new ArrayList<>();
        Map<String, String> metrics = new LinkedHashMap<>();
        PrintWriter err = spec.commandLine().getErr();
        for (CpuWideCounters.Event e : opened.events()) {
            if (e.failure().isPresent()) {
                err.println("hwtool exporter: not counting " + e.name() + ": " + e.failure().get().getMessage());
                continue;
            }
            Map<Integer, LongSupplier> perCpu = new LinkedHashMap<>();
            e.perCpu().forEach((cpu, event) -> perCpu.put(cpu, event::value));
            PerfCounter c = PerfCounter.of(e.name(), perCpu);
            String before = metrics.putIfAbsent(c.metric(), e.name());
            if (before != null) {
                opened.close();
                throw new UsageException("--events " + before + " and " + e.name() + " would both be " + c.metric());
            }
            out.add(c);
        }
        err.flush();
        return out;
    }

    private static Target target(Platform platform) {
        CpuidReading cpuid = CpuidReading.of(platform.cpuid());
        int first = cpuid.defaultCpu();
        // CpuContext.of decodes the CPU; its capabilities are that decoding, read in one pinned section.
        CpuContext context = cpuid.onCpu(first, CpuContext::of);
        CpuCapabilities cpu = context.capabilities();
        if (platform instanceof LinuxPlatform linux) {
            return new Target(cpu, context, false, cpuid.cpus(), () -> linux.capabilities().verdicts(), linux::msr, true,
                    Packages.of(cpuid));
        }
        // The simulated CPU judged under this host's kernel, drivers and privileges: what this
        // host would report if it had that CPU (README, "hwtool exporter").
        return new Target(cpu, context, true, cpuid.cpus(), () -> LinuxCapabilities.judgedHere(cpu),
                platform::msr, false, Packages.of(cpuid));
    }

    /** {@code --msr frequency}: this CPU's MPERF/APERF pair, by vendor and CPUID ({@link MeteredRegisters#frequencyOn}). */
    static final String FREQUENCY = "frequency";
    /** {@code --msr rapl}: this CPU's package-wide RAPL energy registers ({@link MeteredRegisters#raplOn}). */
    static final String RAPL = "rapl";

    /**
     * The metrics of {@code names}: catalog names or numbers, and the sets {@value #FREQUENCY} and
     * {@value #RAPL}, which the catalog resolves for {@code cpu} (not resolved when it is empty: a
     * check of the names alone). A set the CPU lacks is named on {@code err} and left out, so one
     * command line serves a mixed fleet. Two registers that would make the same counter (IA32_MPERF
     * and AMD's MPerfReadOnly) are refused.
     */
    static List<MsrMetric> msrMetrics(List<String> names, Optional<CpuContext> cpu, PrintWriter err) {
        Map<Long, MsrMetric> byAddress = new LinkedHashMap<>();
        for (String n : names) {
            String key = n.strip().toLowerCase(Locale.ROOT);
            if (key.equals(FREQUENCY) || key.equals(RAPL)) {
                if (cpu.isEmpty()) {
                    continue;
                }
                List<MsrDef> set = key.equals(FREQUENCY) ? MeteredRegisters.frequencyOn(cpu.get())
                        : MeteredRegisters.raplOn(cpu.get(), true);
                if (set.isEmpty() && err != null) {
                    err.println("hwtool exporter: --msr " + key + ": this CPU has no " + (key.equals(FREQUENCY)
                            ? "MPERF/APERF (CPUID.06H:ECX[0]) or AMD read-only copies (CPUID 8000_0007H:EDX[10])"
                            : "RAPL energy registers the catalog knows for it") + "; not exported");
                    err.flush();
                }
                for (MsrDef d : set) {
                    byAddress.putIfAbsent(d.address(), MsrMetric.of(d.address(), Optional.of(d)));
                }
                continue;
            }
            RegisterArg r = RegisterArg.parse(n);
            byAddress.putIfAbsent(r.address(), MsrMetric.of(r.address(), r.def()));
        }
        Map<String, String> counters = new LinkedHashMap<>();
        for (MsrMetric m : byAddress.values()) {
            if (m instanceof MsrMetric.Counter c) {
                String before = counters.putIfAbsent(c.metric(), c.name());
                if (before != null) {
                    throw new UsageException("--msr " + before + " and " + c.name() + " would both be " + c.metric()
                            + "_total: give one of them");
                }
            }
        }
        return List.copyOf(byAddress.values());
    }

    static InetSocketAddress listenAddress(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            throw new UsageException("--listen '" + text + "' is not HOST:PORT (e.g. 127.0.0.1:" + DEFAULT_PORT + ")");
        }
        String host = text.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(text.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 0 || port > 65535) {
            throw new UsageException("--listen '" + text + "': the port must be a number from 0 to 65535");
        }
        InetSocketAddress a = new InetSocketAddress(host, port);
        if (a.isUnresolved()) {
            throw new UsageException("--listen '" + text + "': cannot resolve host '" + host + "'");
        }
        return a;
    }

    private static Duration interval(String text) {
        try {
            return IntervalArg.parse(text);
        } catch (picocli.CommandLine.TypeConversionException e) {
            throw new UsageException("--cache-interval: " + e.getMessage().replace("(1ms to 24h)", "(0, or 1ms to 24h)"));
        }
    }

    private static String hostPort(InetSocketAddress a) {
        String h = a.getAddress().getHostAddress();
        return (h.contains(":") ? "[" + h + "]" : h) + ":" + a.getPort();
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
