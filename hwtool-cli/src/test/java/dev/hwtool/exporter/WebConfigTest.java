package dev.hwtool.exporter;

import dev.hwtool.exporter.WebConfig.ClientAuth;
import dev.hwtool.exporter.WebConfig.WebConfigException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.security.crypto.bcrypt.BCrypt;

import javax.net.ssl.SSLParameters;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The web configuration file: exporter-toolkit's keys and rules, good files and bad ones. */
class WebConfigTest {

    @TempDir
    static Path pkiDir;
    static TestPki pki;
    static final String HASH = BCrypt.hashpw("s3cret", BCrypt.gensalt(4));

    @TempDir
    Path dir;

    @BeforeAll
    static void certificates() throws Exception {
        pki = TestPki.create(pkiDir);
    }

    private WebConfig load(String yaml) throws WebConfigException {
        try {
            Path f = dir.resolve("web.yml");
            Files.writeString(f, yaml);
            return WebConfig.load(f);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }

    private String refused(String yaml) {
        WebConfigException e = assertThrows(WebConfigException.class, () -> load(yaml), yaml);
        assertFalse(e.getMessage().contains("\n"), "one line: " + e.getMessage());
        assertTrue(e.getMessage().startsWith(dir.resolve("web.yml").toString()), "names the file: " + e.getMessage());
        return e.getMessage();
    }

    private String tls(String extra) {
        return "tls_server_config:\n  cert_file: " + pki.serverCert() + "\n  key_file: " + pki.serverKey() + "\n" + extra;
    }

    @Test
    void anEmptyFileIsPlainHttpWithoutUsers() throws Exception {
        assertEquals(WebConfig.NONE, load(""));
        assertEquals(WebConfig.NONE, load("# nothing\n"));
        assertEquals(WebConfig.NONE, load("tls_server_config: {}\n"), "no cert, no key, no CA: no TLS, as exporter-toolkit");
    }

    @Test
    void usersTlsAndHeaders() throws Exception {
        WebConfig c = load(tls("  min_version: TLS13\n") + "basic_auth_users:\n  prometheus: " + HASH + "\n"
                + "http_server_config:\n  http2: false\n  headers:\n    X-Frame-Options: deny\n    X-XSS-Protection: ''\n");
        assertEquals(Map.of("prometheus", HASH), c.users());
        assertEquals(Map.of("X-Frame-Options", "deny"), c.headers(), "blank values unset");
        WebConfig.TlsServerConfig t = c.tls().orElseThrow();
        assertEquals(ClientAuth.NO_CLIENT_CERT, t.clientAuth());
        assertEquals("TLS13", t.minVersion());
        assertEquals("TLS13", t.maxVersion());
        SSLParameters p = TlsContexts.server(t).parameters();
        assertArrayEquals(new String[] {"TLSv1.3"}, p.getProtocols());
        assertFalse(p.getNeedClientAuth());
    }

    @Test
    void relativeFilesAreTheConfigFilesDirectorys() throws Exception {
        Files.copy(pki.serverCert(), dir.resolve("s.crt"));
        Files.copy(pki.serverKey(), dir.resolve("s.key"));
        WebConfig c = load("tls_server_config:\n  cert_file: s.crt\n  key_file: s.key\n");
        assertEquals(dir.resolve("s.crt").toString(), c.tls().orElseThrow().cert().origin());
        TlsContexts.server(c.tls().get());
    }

    @Test
    void clientAuthPolicies() throws Exception {
        String ca = "  client_ca_file: " + pki.caCert() + "\n";
        SSLParameters require = TlsContexts.server(load(tls(ca + "  client_auth_type: RequireAndVerifyClientCert\n"))
                .tls().orElseThrow()).parameters();
        assertTrue(require.getNeedClientAuth());
        SSLParameters ifGiven = TlsContexts.server(load(tls(ca + "  client_auth_type: VerifyClientCertIfGiven\n"))
                .tls().orElseThrow()).parameters();
        assertTrue(ifGiven.getWantClientAuth());
        assertTrue(TlsContexts.server(load(tls("  client_auth_type: RequireAnyClientCert\n")).tls().orElseThrow())
                .parameters().getNeedClientAuth());
        assertEquals(ClientAuth.REQUIRE_ANY_CLIENT_CERT,
                load(tls("  client_auth_type: RequireClientCert\n")).tls().orElseThrow().clientAuth(), "exporter-toolkit's old name");
        assertTrue(refused(tls(ca)).contains("client_auth_type"), "a CA without a policy, as exporter-toolkit");
        assertTrue(refused(tls("  client_auth_type: RequireAndVerifyClientCert\n")).contains("needs client_ca_file"));
        assertTrue(refused(tls("  client_auth_type: Always\n")).contains("'Always' is not one of"));
    }

    @Test
    void keysInEveryPemFormGoTakes() throws Exception {
        for (Path[] pair : List.of(new Path[] {pki.serverCert(), pki.serverKey()}, new Path[] {pki.serverCert(), pki.serverKeySec1()},
                new Path[] {pki.rsaCert(), pki.rsaKey()}, new Path[] {pki.rsaCert(), pki.rsaKeyPkcs1()})) {
            String key = Files.readString(pair[1]);
            WebConfig c = load("tls_server_config:\n  cert_file: " + pair[0] + "\n  key_file: " + pair[1] + "\n");
            TlsContexts.server(c.tls().orElseThrow());
            assertTrue(key.contains("-----BEGIN"), key.lines().findFirst().orElse(""));
        }
        assertTrue(Files.readString(pki.serverKeySec1()).contains("BEGIN EC PRIVATE KEY"));
        assertTrue(Files.readString(pki.rsaKeyPkcs1()).contains("BEGIN RSA PRIVATE KEY"));
        // inline PEM, as exporter-toolkit's cert/key keys
        String inline = "tls_server_config:\n  cert: |\n" + indent(Files.readString(pki.serverCert()))
                + "  key: |\n" + indent(Files.readString(pki.serverKey()));
        TlsContexts.server(load(inline).tls().orElseThrow());
    }

    private static String indent(String pem) {
        return pem.lines().map(l -> "    " + l + "\n").reduce("", String::concat);
    }

    @Test
    void aKeyThatIsNotTheCertificatesIsRefused() throws Exception {
        WebConfig c = load("tls_server_config:\n  cert_file: " + pki.serverCert() + "\n  key_file: " + pki.clientKey() + "\n");
        WebConfigException e = assertThrows(WebConfigException.class, () -> TlsContexts.server(c.tls().orElseThrow()));
        assertTrue(e.getMessage().contains("is not the one of the certificate"), e.getMessage());
        WebConfig rsa = load("tls_server_config:\n  cert_file: " + pki.serverCert() + "\n  key_file: " + pki.rsaKey() + "\n");
        assertThrows(WebConfigException.class, () -> TlsContexts.server(rsa.tls().orElseThrow()));
    }

    @Test
    void badFilesAreOneLineErrors() throws Exception {
        assertTrue(refused("tls_server_config:\n  cert_file: x\n  key_file: y\n  frobnicate: 1\n")
                .contains("unknown key 'tls_server_config.frobnicate'"));
        assertTrue(refused("basic_auth_user:\n  a: " + HASH + "\n").contains("unknown key 'basic_auth_user'"));
        assertTrue(refused("http_server_config:\n  headers:\n    X-Custom: 1\n").contains("unknown key 'http_server_config.headers.X-Custom'"));
        assertTrue(refused("basic_auth_users:\n  a: " + HASH + "\n  a: " + HASH + "\n").contains("not valid YAML"), "duplicate key");
        assertTrue(refused("basic_auth_users: [a\n").contains("not valid YAML"));
        assertTrue(refused("- a\n- b\n").contains("expected a mapping"));
        assertTrue(refused("basic_auth_users:\n  a: plaintext\n").contains("not a bcrypt hash"));
        assertTrue(refused("basic_auth_users:\n  a: 12\n").contains("expected a string"));
        assertTrue(refused("basic_auth_users:\n  'a:b': " + HASH + "\n").contains("RFC 7617"));
        assertTrue(refused("rate_limit:\n  interval: 1s\n  burst: 2\n").contains("not implemented by hwtool"));
        assertTrue(refused(tls("  client_allowed_sans: [a]\n")).contains("client_allowed_sans needs client_auth_type"));
        assertTrue(refused(tls("  client_auth_type: RequireAnyClientCert\n  client_allowed_sans: a\n")).contains("expected a list"));
        assertTrue(refused("tls_server_config:\n  key_file: " + pki.serverKey() + "\n").contains("missing one of cert or cert_file"));
        assertTrue(refused("tls_server_config:\n  cert_file: " + pki.serverCert() + "\n").contains("missing one of key or key_file"));
        assertTrue(refused(tls("  cert: abc\n")).contains("both cert and cert_file"));
        assertTrue(refused(tls("  min_version: TLS14\n")).contains("'TLS14' is not one of"));
        assertTrue(refused(tls("  min_version: TLS13\n  max_version: TLS12\n")).contains("above max_version"));
        assertTrue(refused(tls("  curve_preferences: [P256]\n")).contains("'P256' is not one of"));
        assertTrue(refused("tls_server_config:\n  cert_file: " + dir.resolve("absent.crt") + "\n  key_file: x\n")
                .contains("No such file or directory"));
        Files.write(dir.resolve("bad.yml"), new byte[] {(byte) 0xff, (byte) 0xfe, 'a'});
        assertTrue(assertThrows(WebConfigException.class, () -> WebConfig.load(dir.resolve("bad.yml"))).getMessage().contains("not UTF-8"));
        assertTrue(assertThrows(WebConfigException.class, () -> WebConfig.load(dir.resolve("none.yml"))).getMessage()
                .endsWith("none.yml: No such file or directory"));
    }

    @Test
    void tlsSettingsThatOnlyTheHandshakeWouldShow() throws Exception {
        Path notPem = dir.resolve("not.pem");
        Files.writeString(notPem, "hello\n");
        WebConfig c = load("tls_server_config:\n  cert_file: " + notPem + "\n  key_file: " + pki.serverKey() + "\n");
        assertTrue(assertThrows(WebConfigException.class, () -> TlsContexts.server(c.tls().orElseThrow())).getMessage()
                .contains("no CERTIFICATE block"));
        WebConfig suites = load(tls("  max_version: TLS12\n  cipher_suites: [TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, "
                + "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305]\n  curve_preferences: [X25519, CurveP256]\n"));
        SSLParameters p = TlsContexts.server(suites.tls().orElseThrow()).parameters();
        assertEquals(List.of("TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"),
                List.of(p.getCipherSuites()).subList(0, 2));
        assertArrayEquals(new String[] {"x25519", "secp256r1"}, p.getNamedGroups());
        assertArrayEquals(new String[] {"TLSv1.2"}, p.getProtocols());
        WebConfig bad = load(tls("  cipher_suites: [TLS_RSA_WITH_RC4_128_MD5_NOPE]\n"));
        assertTrue(assertThrows(WebConfigException.class, () -> TlsContexts.server(bad.tls().orElseThrow())).getMessage()
                .contains("not a cipher suite this JDK supports"));
        Path encrypted = dir.resolve("enc.key");
        Files.writeString(encrypted, "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n");
        WebConfig enc = load("tls_server_config:\n  cert_file: " + pki.serverCert() + "\n  key_file: " + encrypted + "\n");
        assertTrue(assertThrows(WebConfigException.class, () -> TlsContexts.server(enc.tls().orElseThrow())).getMessage()
                .contains("encrypted"));
    }

    @Test
    void basicAuthChecksUsersAndPasswords() {
        BasicAuth auth = new BasicAuth(Map.of("prometheus", HASH, "other", BCrypt.hashpw("pass:with:colons", BCrypt.gensalt(4))));
        assertTrue(auth.allows(basic("prometheus:s3cret")));
        assertTrue(auth.allows(basic("prometheus:s3cret")), "remembered, still right");
        assertTrue(auth.allows("bAsIc " + Base64.getEncoder().encodeToString("prometheus:s3cret".getBytes(StandardCharsets.UTF_8))),
                "the scheme is case-insensitive (RFC 7235 2.1)");
        assertTrue(auth.allows(basic("other:pass:with:colons")), "the password may contain colons (RFC 7617 2)");
        assertFalse(auth.allows(basic("prometheus:wrong")));
        assertFalse(auth.allows(basic("nobody:s3cret")));
        assertFalse(auth.allows(basic("prometheus")));
        assertFalse(auth.allows(basic("prometheus:" + "x".repeat(100))), "longer than bcrypt's 72 bytes");
        assertFalse(auth.allows("Bearer abc"));
        assertFalse(auth.allows("Basic !!!"));
        assertFalse(auth.allows(null));
        // $2y$ as htpasswd -B writes it (the same algorithm as $2b$; PHP's name for the fixed one)
        String y = "$2y$" + HASH.substring(4);
        assertTrue(new BasicAuth(Map.of("u", y)).allows(basic("u:s3cret")));
    }

    private static String basic(String userPass) {
        return "Basic " + Base64.getEncoder().encodeToString(userPass.getBytes(StandardCharsets.UTF_8));
    }
}
