package dev.hwtool.fleet;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.cli.Require;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * One machine standing in for a fleet: hwtool exporters for a simulated Skylake, Alder Lake and
 * AMD EPYC guest and for this host's hardware backend, scraped by the real Debian Prometheus; the
 * fleet questions asked in PromQL through its HTTP API, the answers checked against what each
 * exporter serves; promtool lints every exporter's output; every query of the Grafana dashboard
 * returns data.
 */
class FleetPrometheusIT {

    private static final Path ROOT = Path.of(System.getProperty("hwtool.root.dir", "..")).toAbsolutePath().normalize();
    private static final Path JAR = ROOT.resolve("hwtool-cli/target/hwtool.jar");
    private static final Path DASHBOARD = ROOT.resolve("deploy/grafana/hwtool-fleet.json");

    private final HttpClient http = PrometheusQueries.client();

    @TempDir
    Path dir;

    /** A started exporter: its process and the host:port it serves on. */
    private record Exporter(String name, Process process, String address) {
    }

    @Test
    void prometheusAnswersTheFleetQuestions() throws Exception {
        for (String tool : List.of("/usr/bin/prometheus", "/usr/bin/promtool")) {
            Require.that(Files.isExecutable(Path.of(tool)), tool + " is not installed (apt-get install prometheus)");
        }
        List<Process> started = new ArrayList<>();
        try {
            Map<String, Exporter> exporters = new LinkedHashMap<>();
            for (String profile : List.of("skylake", "alderlake", "amd-epyc-kvm-guest")) {
                exporters.put(profile, exporter(started, profile, "--backend", "sim", "--profile", profile,
                        "--msr", "IA32_APERF", "--msr", "IA32_MISC_ENABLE", "--msr", "MSR_PKG_ENERGY_STATUS",
                        "--msr", "MSR_PP0_ENERGY_STATUS", "--msr", "MSR_PP1_ENERGY_STATUS", "--msr", "MSR_DRAM_ENERGY_STATUS",
                        "--msr", "IA32_THERM_STATUS", "--msr", "IA32_PACKAGE_THERM_STATUS"));
            }
            exporters.put("host", exporter(started, "host", "--backend", "hw", "--events", "context-switches,cycles"));

            Map<String, String> served = new LinkedHashMap<>();
            for (Exporter e : exporters.values()) {
                String text = PrometheusQueries.get(http, "http://" + e.address() + "/metrics");
                served.put(e.name(), text);
                promtoolFindsNothing(e.name(), text);
            }

            int port = PrometheusQueries.freePort();
            Path config = dir.resolve("prometheus.yml");
            StringBuilder targets = new StringBuilder();
            for (Exporter e : exporters.values()) {
                targets.append("        - ").append(e.address()).append('\n');
            }
            Files.writeString(config, """
                    global:
                      scrape_interval: 1s
                      evaluation_interval: 1s
                    scrape_configs:
                      - job_name: hwtool
                        static_configs:
                          - targets:
                    """ + targets);
            Process prometheus = new ProcessBuilder("/usr/bin/prometheus", "--config.file=" + config,
                    "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port)
                    .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
            started.add(prometheus);
            PrometheusQueries prom = new PrometheusQueries(http, port, prometheus, dir.resolve("prometheus.log"));

            // all targets up, and each scraped at least twice (rate() in the dashboard needs two samples)
            prom.waitFor("count(up{job=\"hwtool\"} == 1) == 4 and count(count_over_time(up[1m]) >= 2) == 4");

            // the fleet question: how many nodes can use LBR, and why not the others
            Map<String, String> lbrUsable = new TreeMap<>();
            Map<String, Double> expectedCauses = new TreeMap<>();
            for (Map.Entry<String, String> s : served.entrySet()) {
                String line = capabilityLine(s.getValue(), "lbr_perf");
                String cause = label(line, "cause");
                lbrUsable.put(s.getKey(), cause);
                if (!cause.equals("none")) {
                    expectedCauses.merge(cause, 1.0, Double::sum);
                }
            }
            long usable = lbrUsable.values().stream().filter("none"::equals).count();
            assertEquals(usable, prom.scalar("count(hwtool_capability_usable{facility=\"lbr_perf\"} == 1) or vector(0)"),
                    "LBR-usable nodes: " + lbrUsable);
            Map<String, Double> causes = prom.byLabel("sum by (cause) (1 - hwtool_capability_usable{facility=\"lbr_perf\"})",
                    "cause");
            causes.values().removeIf(v -> v == 0);
            assertEquals(expectedCauses, causes);

            // host-independent: the simulated AMD guest has no BTS whatever this host's kernel offers
            // (BTS is an Intel facility; the tests run as root, so no perf_event_paranoid blocker comes first)
            String amd = exporters.get("amd-epyc-kvm-guest").address();
            assertEquals(Map.of("unsupported", 0.0), prom.byLabel(
                    "hwtool_capability_usable{facility=\"bts_perf\",instance=\"" + amd + "\"}", "cause"));
            assertEquals(8.0, prom.scalar("count(hwtool_capability_usable{instance=\"" + amd + "\"})"),
                    "one series per facility");

            // the simulated label: three simulated targets, this host not
            assertEquals(3.0, prom.scalar("count(hwtool_cpu_info{simulated=\"true\"})"));
            assertEquals(Map.of(exporters.get("host").address(), 1.0),
                    prom.byLabel("hwtool_cpu_info{simulated=\"false\"}", "instance"));
            assertEquals(Map.of("GenuineIntel", 2.0, "AuthenticAMD", 1.0),
                    prom.byLabel("count by (vendor) (hwtool_cpu_info{simulated=\"true\"})", "vendor"));

            // the registers: APERF per simulated CPU as a counter where the CPU has it (CPUID.06H:ECX[0]);
            // the KVM guest profile does not, and its reads are counted as register faults instead
            String skylake = exporters.get("skylake").address();
            assertTrue(prom.scalar("count(hwtool_msr_aperf_total{instance=\"" + skylake + "\"})") >= 1);
            assertTrue(prom.result("hwtool_msr_aperf_total{instance=\"" + amd + "\"}").isEmpty());
            assertTrue(prom.scalar("hwtool_scrape_errors_total{cause=\"register_fault\",instance=\"" + amd + "\"}") > 0);

            // RAPL and the thermal sensor, decoded: one energy series per domain of the one simulated
            // package (Skylake client: package, core, uncore, dram; Linux rapl.c model_skl), the
            // simulator's fixed temperatures; none on the AMD guest, whose reads fault
            assertEquals(Map.of("package", 1.0, "core", 1.0, "uncore", 1.0, "dram", 1.0),
                    prom.byLabel("count by (domain) (hwtool_rapl_energy_joules_total{instance=\"" + skylake + "\"})", "domain"));
            assertEquals(48.0, prom.scalar("hwtool_thermal_package_celsius{instance=\"" + skylake + "\"}"));
            assertEquals(45.0, prom.scalar("max(hwtool_thermal_core_celsius{instance=\"" + skylake + "\"})"));
            assertTrue(prom.result("hwtool_rapl_energy_joules_total{instance=\"" + amd + "\"}").isEmpty());

            // CPU-wide counts on this host: software events always, cycles exactly where the PMU counts
            String host = exporters.get("host").address();
            double hostCpus = prom.scalar("count(hwtool_perf_context_switches_total{instance=\"" + host + "\"})");
            assertTrue(hostCpus >= 1);
            boolean counters = label(capabilityLine(served.get("host"), "hw_counters"), "cause").equals("none");
            assertEquals(counters ? List.of(hostCpus) : List.of(),
                    prom.result("count(hwtool_perf_cycles_total{instance=\"" + host + "\"})").stream()
                            .map(PrometheusQueries::value).toList(), "cycles per CPU exactly when hw_counters is usable");

            // every query of the Grafana dashboard returns data
            Map<String, Object> dashboard = JSON.std.mapFrom(Files.readString(DASHBOARD));
            List<String> exprs = new ArrayList<>();
            for (Object p : (List<?>) dashboard.get("panels")) {
                for (Object t : (List<?>) ((Map<?, ?>) p).get("targets")) {
                    exprs.add((String) ((Map<?, ?>) t).get("expr"));
                }
            }
            assertFalse(exprs.isEmpty());
            for (String expr : exprs) {
                assertFalse(prom.result(expr).isEmpty(), "the dashboard query returns no data: " + expr);
            }

            // SIGTERM stops an exporter cleanly: the JVM's exit status for it, 128 + 15
            Process stopping = exporters.get("skylake").process();
            stopping.destroy();
            assertTrue(stopping.waitFor(30, TimeUnit.SECONDS), "the exporter did not stop on SIGTERM");
            assertEquals(143, stopping.exitValue());
        } finally {
            for (Process p : started) {
                p.destroy();
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
    }

    private Exporter exporter(List<Process> started, String name, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-jar", JAR.toString(), "exporter", "--listen", "127.0.0.1:0"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        started.add(p);
        return new Exporter(name, p, ExporterStart.address(p, name, "http"));
    }

    private void promtoolFindsNothing(String name, String text) throws Exception {
        Process p = new ProcessBuilder("/usr/bin/promtool", "check", "metrics").redirectErrorStream(true).start();
        p.getOutputStream().write(text.getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), name + ": promtool: " + out);
        assertEquals("", out.strip(), name + ": promtool: " + out);
    }

    private static String capabilityLine(String text, String facility) {
        return text.lines().filter(l -> l.startsWith("hwtool_capability_usable{") && l.contains("facility=\"" + facility + "\""))
                .findFirst().orElseThrow(() -> new AssertionError("no " + facility + " verdict in:\n" + text));
    }

    private static String label(String line, String name) {
        Matcher m = Pattern.compile(name + "=\"([^\"]*)\"").matcher(line);
        assertTrue(m.find(), line);
        return m.group(1);
    }

}
