package dev.hwtool.exporter;

import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuDecoder;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.caps.Verdicts;
import dev.hwtool.linux.sys.LinuxProbe;
import dev.hwtool.sim.SimulatedPlatform;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The exporter's HTTP surface and metrics on a simulated Skylake, in process. */
class ExporterServerTest {

    private final HttpClient client = HttpClient.newHttpClient();
    private final AtomicLong now = new AtomicLong();
    private SimulatedPlatform platform;
    private ExecutorService pool;
    private ExporterServer server;
    private HwtoolCollector collector;

    @BeforeEach
    void start() throws Exception {
        platform = SimulatedPlatform.of("skylake");
        CpuidReading cpuid = CpuidReading.of(platform.cpuid());
        int first = cpuid.cpus().getFirst();
        CpuCapabilities cpu = CpuDecoder.decode(cpuid.reader(first));
        Target target = new Target(cpu, CpuContext.of(cpuid.reader(first)), true, cpuid.cpus(),
                () -> Verdicts.assess(cpu, LinuxProbe.probe()), platform::msr, false);
        List<MsrMetric> msrs = List.of(
                MsrMetric.of(0xE8, MsrCatalog.byAddress(0xE8)),
                MsrMetric.of(0x1A0, MsrCatalog.byAddress(0x1A0)),
                MsrMetric.of(0x1234, MsrCatalog.byAddress(0x1234)));
        pool = Executors.newFixedThreadPool(2);
        collector = new HwtoolCollector(target, msrs, Duration.ofSeconds(5), pool, now::get);
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(collector);
        server = ExporterServer.start(new java.net.InetSocketAddress("127.0.0.1", 0), registry);
    }

    @AfterEach
    void stop() {
        server.close();
        pool.shutdownNow();
        platform.close();
    }

    private HttpResponse<String> send(String method, String path, String accept) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.address().getPort() + path))
                .method(method, HttpRequest.BodyPublishers.noBody());
        if (accept != null) {
            b.header("Accept", accept);
        }
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void textFormatCarriesIdentityVerdictsRegistersAndHealth() throws Exception {
        HttpResponse<String> r = send("GET", "/metrics", null);
        assertEquals(200, r.statusCode());
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain; version=0.0.4"));
        String body = r.body();
        assertTrue(body.contains("hwtool_cpu_info{family=\"6\",hypervisor=\"\",microarchitecture=\"Skylake\",model=\"94\","
                + "model_name=\"Intel(R) Core(TM) i7-6700K CPU @ 4.00GHz\",simulated=\"true\",stepping=\"3\","
                + "vendor=\"GenuineIntel\"} 1"), body);
        for (String f : List.of("cpuid", "msr_read", "msr_write", "lbr_perf", "bts_perf", "hw_counters", "rdpmc", "pebs_perf")) {
            List<String> lines = body.lines().filter(l -> l.startsWith("hwtool_capability_usable{")
                    && l.contains("facility=\"" + f + "\"")).toList();
            assertEquals(1, lines.size(), f + ": " + lines);
            String line = lines.getFirst();
            assertEquals(line.contains("cause=\"none\""), line.endsWith(" 1.0"), "cause none exactly when usable: " + line);
        }
        assertTrue(body.contains("# TYPE hwtool_msr_aperf_total counter"), body);
        assertTrue(body.contains("hwtool_msr_aperf_total{cpu=\"7\"} "), body);
        // IA32_MISC_ENABLE of the simulated Skylake: fast strings (bit 0) and the perfmon-available bit 7
        assertTrue(body.contains("hwtool_msr_value{cpu=\"0\",msr=\"0x000001a0\",name=\"IA32_MISC_ENABLE\"} 129.0"), body);
        assertFalse(body.contains("msr=\"0x00001234\""), "an unimplemented MSR #GPs and is counted, not exported");
        assertTrue(body.contains("hwtool_scrape_errors_total{cause=\"register_fault\"} 8.0"), body);
        assertTrue(body.contains("# TYPE hwtool_scrape_duration_seconds gauge"), body);
    }

    @Test
    void aReadingIsServedAgainWithinTheCacheIntervalOnly() throws Exception {
        send("GET", "/metrics", null);
        now.addAndGet(Duration.ofSeconds(4).toNanos());
        assertTrue(send("GET", "/metrics", null).body().contains("hwtool_scrape_errors_total{cause=\"register_fault\"} 8.0"),
                "within 5 s the registers are not read again");
        now.addAndGet(Duration.ofSeconds(1).toNanos());
        assertTrue(send("GET", "/metrics", null).body().contains("hwtool_scrape_errors_total{cause=\"register_fault\"} 16.0"),
                "after 5 s they are");
    }

    @Test
    void openMetricsByContentNegotiation() throws Exception {
        HttpResponse<String> r = send("GET", "/metrics", "application/openmetrics-text; version=1.0.0; charset=utf-8");
        assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("application/openmetrics-text"));
        assertTrue(r.body().contains("# TYPE hwtool_cpu info"), r.body());
        assertTrue(r.body().endsWith("# EOF\n"), r.body());
    }

    @Test
    void onlyGetAndHeadOfTwoPaths() throws Exception {
        assertEquals(200, send("GET", "/", null).statusCode());
        assertEquals(200, send("HEAD", "/", null).statusCode());
        assertEquals(200, send("HEAD", "/metrics", null).statusCode());
        for (String m : List.of("POST", "PUT", "DELETE", "PATCH")) {
            HttpResponse<String> r = send(m, "/metrics", null);
            assertEquals(405, r.statusCode(), m);
            assertEquals("GET, HEAD", r.headers().firstValue("Allow").orElse(""), m);
        }
        assertEquals(404, send("GET", "/metrics/x", null).statusCode());
        assertEquals(404, send("GET", "/-/healthy", null).statusCode());
        assertEquals(404, send("GET", "/debug", null).statusCode());
    }

    @Test
    void largeRegisterValuesAreUnsigned() {
        assertEquals(18446744073709551615.0, HwtoolCollector.unsigned(-1L));
        assertEquals(9223372036854775808.0, HwtoolCollector.unsigned(Long.MIN_VALUE));
        assertEquals(5.0, HwtoolCollector.unsigned(5));
    }
}
