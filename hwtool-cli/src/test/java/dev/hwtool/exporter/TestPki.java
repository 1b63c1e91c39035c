package dev.hwtool.exporter;

import dev.hwtool.cli.Require;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Throw-away certificates for the exporter's TLS tests, made at test time by Debian's openssl in
 * a temporary directory (nothing private is committed): a CA, a server certificate for
 * 127.0.0.1 signed by it (EC P-256, PKCS#8), a client certificate signed by it, a client
 * certificate signed by another CA (both clients with the SANs DNS:prometheus.example and IP:::1), an RSA key pair, and the same keys in the older PEM forms
 * (PKCS#1 "RSA PRIVATE KEY", SEC1 "EC PRIVATE KEY"). Valid for two days.
 */
public record TestPki(Path dir) {

    public static final String OPENSSL = "/usr/bin/openssl";

    public Path caCert() {
        return dir.resolve("ca.crt");
    }

    public Path serverCert() {
        return dir.resolve("server.crt");
    }

    public Path serverKey() {
        return dir.resolve("server.key");
    }

    public Path serverKeySec1() {
        return dir.resolve("server-sec1.key");
    }

    public Path rsaCert() {
        return dir.resolve("rsa.crt");
    }

    public Path rsaKey() {
        return dir.resolve("rsa.key");
    }

    public Path rsaKeyPkcs1() {
        return dir.resolve("rsa-pkcs1.key");
    }

    public Path clientCert() {
        return dir.resolve("client.crt");
    }

    public Path clientKey() {
        return dir.resolve("client.key");
    }

    public Path strangerCert() {
        return dir.resolve("stranger.crt");
    }

    public Path strangerKey() {
        return dir.resolve("stranger.key");
    }

    /** Makes the files under {@code dir}; fails (CI) or skips (locally) without openssl. */
    public static TestPki create(Path dir) throws IOException, InterruptedException {
        Require.tool(OPENSSL);
        TestPki p = new TestPki(dir);
        Files.writeString(dir.resolve("server.ext"), "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n");
        Files.writeString(dir.resolve("client.ext"), "subjectAltName=DNS:prometheus.example,IP:::1\nextendedKeyUsage=clientAuth\n");
        p.openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=hwtool test CA");
        p.openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                "-keyout", "other-ca.key", "-out", "other-ca.crt", "-days", "2", "-subj", "/CN=another CA");
        p.signed("server", "ca", "server.ext", "ec");
        p.signed("client", "ca", "client.ext", "ec");
        p.signed("stranger", "other-ca", "client.ext", "ec");
        p.signed("rsa", "ca", "server.ext", "rsa");
        p.openssl("pkey", "-in", "server.key", "-traditional", "-out", "server-sec1.key");
        p.openssl("pkey", "-in", "rsa.key", "-traditional", "-out", "rsa-pkcs1.key");
        return p;
    }

    private void signed(String name, String ca, String ext, String type) throws IOException, InterruptedException {
        List<String> key = type.equals("ec") ? List.of("-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1")
                : List.of("-newkey", "rsa:2048");
        List<String> req = new ArrayList<>(List.of("req"));
        req.addAll(key);
        req.addAll(List.of("-nodes", "-keyout", name + ".key", "-out", name + ".csr", "-subj", "/CN=" + name));
        openssl(req.toArray(String[]::new));
        openssl("x509", "-req", "-in", name + ".csr", "-CA", ca + ".crt", "-CAkey", ca + ".key", "-set_serial",
                String.valueOf(System.nanoTime() & 0xffffffL), "-days", "2", "-extfile", ext, "-out", name + ".crt");
    }

    private void openssl(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(OPENSSL));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("openssl " + String.join(" ", args) + " failed: " + out);
        }
    }
}
