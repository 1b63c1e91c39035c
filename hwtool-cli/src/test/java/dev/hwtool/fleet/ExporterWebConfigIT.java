package dev.hwtool.fleet;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.cli.Require;
import dev.hwtool.exporter.TestPki;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.security.crypto.bcrypt.BCrypt;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
    private static final Pattern SERVING = Pattern.compile("serving https://([^/]+)/metrics");
    private static final Duration WAIT = Duration.ofSeconds(90);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

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
            String address = serving(exporter);
            int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));

            // the report's half-open requests, more of them than there are workers
            for (int i = 0; i < 4; i++) {
                Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
                s.getOutputStream().write(new byte[] {0x16, 0x03, 0x01});
                halfOpen.add(s);
            }

            int promPort = freePort();
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
            String api = "http://127.0.0.1:" + promPort + "/api/v1/query?query=";

            // up, scraped at least twice, with the exporter's own series behind it
            waitFor(api, "up{job=\"hwtool\"} == 1 and count_over_time(up{job=\"hwtool\"}[1m]) >= 2", prometheus);
            assertEquals(Map.of("true", 1.0), byLabel(api, "hwtool_cpu_info{job=\"hwtool\"}", "simulated"));
            waitFor(api, "up{job=\"wrong-password\"} == 0", prometheus);
            // down for the right reason: the target's last error names the 401 (polled: a scrape
            // may also have failed otherwise, e.g. timed out on this loaded machine)
            String error = "";
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (!error.contains("401") && System.nanoTime() < deadline) {
                Map<?, ?> targets = JSON.std.mapFrom(get("http://127.0.0.1:" + promPort + "/api/v1/targets"));
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

    private static String serving(Process p) throws Exception {
        BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> serving = CompletableFuture.supplyAsync(() -> {
            StringBuilder seen = new StringBuilder();
            try {
                for (String l = err.readLine(); l != null; l = err.readLine()) {
                    if (SERVING.matcher(l).find()) {
                        return l;
                    }
                    seen.append(l).append('\n');
                }
            } catch (IOException e) {
                seen.append("read failed: ").append(e);
            }
            return seen.toString();
        });
        String line = serving.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        Matcher m = SERVING.matcher(line);
        if (!m.find()) {
            fail("the exporter did not start: " + line);
        }
        Thread.ofVirtual().start(() -> err.lines().forEach(l -> { }));
        return m.group(1);
    }

    private String get(String url) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), url + ": " + r.body());
        return r.body();
    }

    private List<Map<?, ?>> result(String api, String query) throws Exception {
        Map<String, Object> body = JSON.std.mapFrom(get(api + URLEncoder.encode(query, StandardCharsets.UTF_8)));
        assertEquals("success", body.get("status"), query + ": " + body);
        List<Map<?, ?>> out = new ArrayList<>();
        for (Object o : (List<?>) ((Map<?, ?>) body.get("data")).get("result")) {
            out.add((Map<?, ?>) o);
        }
        return out;
    }

    private Map<String, Double> byLabel(String api, String query, String label) throws Exception {
        Map<String, Double> out = new TreeMap<>();
        for (Map<?, ?> series : result(api, query)) {
            out.put(String.valueOf(((Map<?, ?>) series.get("metric")).get(label)),
                    Double.parseDouble(String.valueOf(((List<?>) series.get("value")).get(1))));
        }
        return out;
    }

    private void waitFor(String api, String query, Process prometheus) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            if (!prometheus.isAlive()) {
                fail("prometheus exited " + prometheus.exitValue() + ": " + Files.readString(dir.resolve("prometheus.log")));
            }
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(api
                        + URLEncoder.encode(query, StandardCharsets.UTF_8))).timeout(Duration.ofSeconds(30)).build(),
                        HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200 && !result(api, query).isEmpty()) {
                    return;
                }
                last = r.statusCode() + " " + r.body();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(500);
        }
        fail("Prometheus did not get there within " + WAIT + " (" + query + "): " + last + "\n"
                + Files.readString(dir.resolve("prometheus.log")));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
