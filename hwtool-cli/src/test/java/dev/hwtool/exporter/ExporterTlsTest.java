package dev.hwtool.exporter;

import dev.hwtool.cli.Require;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.security.crypto.bcrypt.BCrypt;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The exporter over TLS with basic auth and client certificates, with Debian's curl as the
 * client and openssl's throw-away certificates (TestPki); everything on 127.0.0.1. curl's
 * --max-time is a hang guard, not an assertion.
 */
class ExporterTlsTest {

    private static final String CURL = "/usr/bin/curl";

    @TempDir
    static Path pkiDir;
    static TestPki pki;

    @TempDir
    Path dir;

    private ExporterServer server;
    private final List<Socket> sockets = new ArrayList<>();

    @BeforeAll
    static void certificates() throws Exception {
        Require.tool(CURL);
        pki = TestPki.create(pkiDir);
    }

    @AfterEach
    void stop() throws IOException {
        for (Socket s : sockets) {
            s.close();
        }
        if (server != null) {
            server.close();
        }
    }

    private void start(String yaml, ExporterServer.Limits limits) throws Exception {
        Path config = dir.resolve("web.yml");
        Files.writeString(config, yaml);
        PrometheusRegistry registry = new PrometheusRegistry();
        Gauge.builder().name("hwtool_test_value").help("a value").register(registry).set(1);
        server = ExporterServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), registry, limits,
                WebConfig.load(config));
    }

    private String tls(String extra) {
        return "tls_server_config:\n  cert_file: " + pki.serverCert() + "\n  key_file: " + pki.serverKey() + "\n" + extra;
    }

    /** curl's outcome: its exit code, the HTTP status (000 when none), the headers and the body. */
    record Curl(int exit, String status, String headers, String body, String err) {
    }

    private Curl curl(String url, String... options) throws Exception {
        Path body = dir.resolve("body");
        Path headers = dir.resolve("headers");
        Files.deleteIfExists(body);
        Files.deleteIfExists(headers);
        // -q: no ~/.curlrc; --noproxy: never a proxy from the environment; --max-time: hang guard
        List<String> cmd = new ArrayList<>(List.of(CURL, "-q", "-sS", "--noproxy", "*", "--max-time", "60",
                "-o", body.toString(), "-D", headers.toString(), "-w", "%{http_code}"));
        cmd.addAll(List.of(options));
        cmd.add(url);
        Process p = new ProcessBuilder(cmd).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(90, TimeUnit.SECONDS), "curl hung");
        return new Curl(p.exitValue(), out.strip(),
                Files.exists(headers) ? Files.readString(headers) : "", Files.exists(body) ? Files.readString(body) : "", err);
    }

    private String https(String path) {
        return "https://127.0.0.1:" + server.address().getPort() + path;
    }

    @Test
    void basicAuthOverTls() throws Exception {
        start(tls("") + "basic_auth_users:\n  prometheus: " + BCrypt.hashpw("right horse", BCrypt.gensalt(4)) + "\n",
                ExporterServer.Limits.DEFAULT);
        String ca = pki.caCert().toString();
        Curl ok = curl(https("/metrics"), "--cacert", ca, "-u", "prometheus:right horse");
        assertEquals("200", ok.status(), ok.toString());
        assertTrue(ok.body().contains("hwtool_test_value 1.0"), ok.body());

        Curl wrong = curl(https("/metrics"), "--cacert", ca, "-u", "prometheus:wrong");
        assertEquals("401", wrong.status(), wrong.toString());
        assertTrue(wrong.headers().contains("WWW-Authenticate: Basic realm=\"hwtool exporter\""), wrong.headers());
        Curl none = curl(https("/metrics"), "--cacert", ca);
        assertEquals("401", none.status(), none.toString());
        Curl stranger = curl(https("/metrics"), "--cacert", ca, "-u", "nobody:right horse");
        assertEquals("401", stranger.status(), stranger.toString());
        assertEquals("401", curl(https("/nothing"), "--cacert", ca).status(), "authentication comes before the path");

        Curl query = curl(https("/metrics?debug=true"), "--cacert", ca, "-u", "prometheus:right horse");
        assertEquals("400", query.status(), query.toString());

        // plain HTTP to the TLS port: no HTTP answer at all
        Curl plain = curl("http://127.0.0.1:" + server.address().getPort() + "/metrics", "-u", "prometheus:right horse");
        assertNotEquals(0, plain.exit(), plain.toString());
        assertEquals("000", plain.status(), plain.toString());
        // and a client that does not trust the CA refuses the server
        Curl untrusted = curl(https("/metrics"), "-u", "prometheus:right horse", "--cacert", pki.strangerCert().toString());
        assertEquals("000", untrusted.status(), untrusted.toString());
    }

    /** Polls (a bounded number of times: a hang guard) until curl sees the status; the last outcome. */
    private Curl until(String status, String url, String... options) throws Exception {
        Curl last = null;
        for (int i = 0; i < 120; i++) {
            last = curl(url, options);
            if (last.status().equals(status)) {
                return last;
            }
            Thread.sleep(250);
        }
        return last;
    }

    @Test
    void aChangedWebConfigIsReadAgainAndABrokenOneKeepsThePrevious() throws Exception {
        Path config = dir.resolve("watched.yml");
        Files.writeString(config, tls("") + "basic_auth_users:\n  alice: " + BCrypt.hashpw("first", BCrypt.gensalt(4)) + "\n");
        List<String> log = new java.util.concurrent.CopyOnWriteArrayList<>();
        PrometheusRegistry registry = new PrometheusRegistry();
        Gauge.builder().name("hwtool_test_value").help("a value").register(registry).set(1);
        server = ExporterServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), registry,
                ExporterServer.Limits.DEFAULT, WebConfigWatch.watching(config, log::add));
        String ca = pki.caCert().toString();
        assertEquals("200", curl(https("/metrics"), "--cacert", ca, "-u", "alice:first").status());

        // a new user, written as a Secret update does it: a new file moved over the old one
        Path next = dir.resolve("watched.yml.new");
        Files.writeString(next, tls("") + "basic_auth_users:\n  bob: " + BCrypt.hashpw("second", BCrypt.gensalt(4)) + "\n");
        Files.move(next, config, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        Curl bob = until("200", https("/metrics"), "--cacert", ca, "-u", "bob:second");
        assertEquals("200", bob.status(), bob + "\n" + log);
        assertEquals("401", curl(https("/metrics"), "--cacert", ca, "-u", "alice:first").status());
        assertTrue(log.stream().anyMatch(l -> l.endsWith("changed: read again")), log.toString());

        // a broken file: said once on the log, and bob still gets in
        Files.writeString(next, tls("  nonsense: 1\n"));
        Files.move(next, config, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        for (int i = 0; i < 120 && log.stream().noneMatch(l -> l.contains("still serving the previous configuration")); i++) {
            curl(https("/metrics"), "--cacert", ca, "-u", "bob:second");
            Thread.sleep(250);
        }
        assertTrue(log.stream().anyMatch(l -> l.contains("unknown key 'tls_server_config.nonsense'")
                && l.contains("still serving the previous configuration")), log.toString());
        assertEquals("200", curl(https("/metrics"), "--cacert", ca, "-u", "bob:second").status());
    }

    @Test
    void mutualTls() throws Exception {
        start(tls("  client_ca_file: " + pki.caCert() + "\n  client_auth_type: RequireAndVerifyClientCert\n"),
                ExporterServer.Limits.DEFAULT);
        String ca = pki.caCert().toString();
        Curl ok = curl(https("/metrics"), "--cacert", ca, "--cert", pki.clientCert().toString(), "--key", pki.clientKey().toString());
        assertEquals("200", ok.status(), ok.toString());
        Curl without = curl(https("/metrics"), "--cacert", ca);
        assertNotEquals(0, without.exit(), without.toString());
        assertEquals("000", without.status(), without.toString());
        Curl stranger = curl(https("/metrics"), "--cacert", ca, "--cert", pki.strangerCert().toString(),
                "--key", pki.strangerKey().toString());
        assertEquals("000", stranger.status(), "a certificate from another CA: " + stranger);
    }

    @Test
    void clientAllowedSans() throws Exception {
        String ca = pki.caCert().toString();
        String[] client = {"--cacert", ca, "--cert", pki.clientCert().toString(), "--key", pki.clientKey().toString()};
        for (String sans : List.of("[prometheus.example]", "[other.example, '0:0:0:0:0:0:0:1']")) {
            start(tls("  client_ca_file: " + ca + "\n  client_auth_type: RequireAndVerifyClientCert\n  client_allowed_sans: " + sans + "\n"),
                    ExporterServer.Limits.DEFAULT);
            assertEquals("200", curl(https("/metrics"), client).status(), "a SAN of the client's is listed: " + sans);
            server.close();
        }
        start(tls("  client_ca_file: " + ca + "\n  client_auth_type: RequireAndVerifyClientCert\n  client_allowed_sans: [other.example]\n"),
                ExporterServer.Limits.DEFAULT);
        Curl refused = curl(https("/metrics"), client);
        assertEquals("000", refused.status(), "none of its SANs is listed: " + refused);
    }

    @Test
    void clientCertificateOnlyIfGiven() throws Exception {
        start(tls("  client_ca_file: " + pki.caCert() + "\n  client_auth_type: VerifyClientCertIfGiven\n"),
                ExporterServer.Limits.DEFAULT);
        String ca = pki.caCert().toString();
        assertEquals("200", curl(https("/metrics"), "--cacert", ca).status());
        assertEquals("200", curl(https("/metrics"), "--cacert", ca, "--cert", pki.clientCert().toString(),
                "--key", pki.clientKey().toString()).status());
        assertEquals("000", curl(https("/metrics"), "--cacert", ca, "--cert", pki.strangerCert().toString(),
                "--key", pki.strangerKey().toString()).status(), "given, it is verified");
    }

    @Test
    void stalledHandshakesDoNotStopScrapes() throws Exception {
        // one worker; six connections that send half a TLS record header and stop, and six silent ones
        start(tls(""), new ExporterServer.Limits(1, 64, 16, java.time.Duration.ofMinutes(5), java.time.Duration.ofMinutes(5),
                java.time.Duration.ofMinutes(5)));
        for (int i = 0; i < 12; i++) {
            Socket s = new Socket(InetAddress.getLoopbackAddress(), server.address().getPort());
            sockets.add(s);
            if (i % 2 == 0) {
                s.getOutputStream().write(new byte[] {0x16, 0x03, 0x01});
                s.getOutputStream().flush();
            }
        }
        Curl ok = curl(https("/metrics"), "--cacert", pki.caCert().toString());
        assertEquals("200", ok.status(), ok.toString());
    }
}
