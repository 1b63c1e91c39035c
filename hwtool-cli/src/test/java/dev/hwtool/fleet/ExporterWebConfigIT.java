package dev.hwtool.fleet;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.cli.Require;
import dev.hwtool.exporter.TestPki;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.security.crypto.bcrypt.BCrypt;

import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The exporter as a fleet runs it with a web configuration: the jar, started with
 * --web.config.file (TLS, a client CA, basic auth), scraped by the real Debian Prometheus over
 * TLS with a client certificate and basic auth; the target must be up. A second job with a wrong
 * password must see it down (401), so that "up" is not the same answer whatever the password.
 * While half-open connections hold on, Prometheus's scrapes still succeed. Everything on
 * 127.0.0.1; the certificates are made at test time (TestPki). Machinery as FleetPrometheusIT.
 */
class ExporterWebConfigIT {

    private static final Path ROOT = Path.of(System.getProperty("hwtool.root.dir", "..")).toAbsolutePath().normalize();
    private static final Path JAR = ROOT.resolve("hwtool-cli/target/hwtool.jar");

    private final HttpClient http = PrometheusQueries.client();

    @TempDir
    Path dir;

    @Test
    void prometheusScrapesOverTlsWithBasicAuthAndAClientCertificate() throws Exception {
        Require.that(Files.isExecutable(Path.of("/usr/bin/prometheus")), "/usr/bin/prometheus is not installed (apt-get install prometheus)");
        TestPki pki = TestPki.create(Files.createDirectories(dir.resolve("pki")));
        Path web = dir.resolve("web.yml");
        Files.writeString(web, "tls_server_config:\n"
                + "  cert_file: pki/server.crt\n"
                + "  key_file: pki/server.key\n"
                + "  client_ca_file: pki/ca.crt\n"
                + "  client_auth_type: RequireAndVerifyClientCert\n"
                + "basic_auth_users:\n"
                + "  prometheus: " + BCrypt.hashpw("scrape me", BCrypt.gensalt(8)) + "\n");
        Path password = dir.resolve("password");
        Files.writeString(password, "scrape me");
        Files.writeString(dir.resolve("wrong"), "not me");

        List<Process> started = new ArrayList<>();
        List<Socket> halfOpen = new ArrayList<>();
        try {
            List<String> cmd = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED", "-jar", JAR.toString(), "exporter", "--listen", "127.0.0.1:0",
                    "--backend", "sim", "--profile", "skylake", "--web.config.file", web.toString(),
                    "--web.max-requests", "1");
            Process exporter = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            started.add(exporter);
            String address = ExporterStart.address(exporter, "the TLS", "https");
            int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));

            // the report's half-open requests, more of them than there are workers
            for (int i = 0; i < 4; i++) {
                Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
                s.getOutputStream().write(new byte[] {0x16, 0x03, 0x01});
                halfOpen.add(s);
            }

            int promPort = PrometheusQueries.freePort();
            Path config = dir.resolve("prometheus.yml");
            String tls = "    scheme: https\n"
                    + "    tls_config:\n"
                    + "      ca_file: " + pki.caCert() + "\n"
                    + "      cert_file: " + pki.clientCert() + "\n"
                    + "      key_file: " + pki.clientKey() + "\n";
            Files.writeString(config, "global:\n  scrape_interval: 2s\n  scrape_timeout: 2s\n  evaluation_interval: 1s\nscrape_configs:\n"
                    + "  - job_name: hwtool\n" + tls
                    + "    basic_auth:\n      username: prometheus\n      password_file: " + password + "\n"
                    + "    static_configs:\n      - targets: ['" + address + "']\n"
                    + "  - job_name: wrong-password\n" + tls
                    + "    basic_auth:\n      username: prometheus\n      password_file: " + dir.resolve("wrong") + "\n"
                    + "    static_configs:\n      - targets: ['" + address + "']\n");
            Process prometheus = new ProcessBuilder("/usr/bin/prometheus", "--config.file=" + config,
                    "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + promPort)
                    .redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile()).start();
            started.add(prometheus);
            PrometheusQueries prom = new PrometheusQueries(http, promPort, prometheus, dir.resolve("prometheus.log"));

            // up, scraped at least twice, with the exporter's own series behind it
            prom.waitFor("up{job=\"hwtool\"} == 1 and count_over_time(up{job=\"hwtool\"}[1m]) >= 2");
            assertEquals(Map.of("true", 1.0), prom.byLabel("hwtool_cpu_info{job=\"hwtool\"}", "simulated"));
            prom.waitFor("up{job=\"wrong-password\"} == 0");
            // down for the right reason: the target's last error names the 401 (polled: a scrape
            // may also have failed otherwise, e.g. timed out on this loaded machine)
            String error = "";
            long deadline = System.nanoTime() + PrometheusQueries.WAIT.toNanos();
            while (!error.contains("401") && System.nanoTime() < deadline) {
                Map<?, ?> targets = JSON.std.mapFrom(prom.get("/api/v1/targets"));
                for (Object t : (List<?>) ((Map<?, ?>) targets.get("data")).get("activeTargets")) {
                    Map<?, ?> target = (Map<?, ?>) t;
                    if ("wrong-password".equals(((Map<?, ?>) target.get("labels")).get("job"))) {
                        error = String.valueOf(target.get("lastError"));
                    }
                }
                Thread.sleep(500);
            }
            assertTrue(error.contains("401"), "the wrong password is refused with 401: " + error);
        } finally {
            for (Socket s : halfOpen) {
                s.close();
            }
            for (Process p : started) {
                p.destroy();
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
    }

}
