package dev.hwtool.fleet;

import dev.hwtool.exporter.TestPki;
import dev.hwtool.exporter.TlsContexts;
import dev.hwtool.exporter.WebConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * deploy/kubernetes parsed as YAML and held to what the README promises: least privilege in the
 * default DaemonSet, the documented port everywhere, monitors that select the Service's pods.
 */
class DeployManifestsTest {

    private static final Path DIR = Path.of(System.getProperty("hwtool.root.dir", "..")).toAbsolutePath().normalize()
            .resolve("deploy/kubernetes");
    private static final int PORT = 9777;

    private static Map<String, Object> load(String file) throws IOException {
        List<Map<String, Object>> docs = new ArrayList<>();
        for (Object o : new Yaml(new SafeConstructor(new LoaderOptions())).loadAll(Files.readString(DIR.resolve(file)))) {
            @SuppressWarnings("unchecked")
            Map<String, Object> m = (Map<String, Object>) o;
            docs.add(m);
        }
        assertEquals(1, docs.size(), file + ": one object per file");
        return docs.getFirst();
    }

    @SuppressWarnings("unchecked")
    private static <T> T at(Object o, String... path) {
        Object cur = o;
        for (String p : path) {
            if (cur == null) {
                return null;
            }
            cur = cur instanceof List<?> l ? l.get(Integer.parseInt(p)) : ((Map<String, Object>) cur).get(p);
        }
        return (T) cur;
    }

    @Test
    void everyManifestParsesAndNamesItsKind() throws IOException {
        try (Stream<Path> files = Files.list(DIR)) {
            List<String> names = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".yaml")).sorted().toList();
            assertEquals(List.of("daemonset-msr.yaml", "daemonset-tls.yaml", "daemonset.yaml", "podmonitor.yaml", "secret-web.yaml",
                    "service.yaml", "servicemonitor-tls.yaml", "servicemonitor.yaml"), names);
            for (String n : names) {
                Map<String, Object> m = load(n);
                assertTrue(m.containsKey("apiVersion") && m.containsKey("kind"), n);
                assertEquals("hwtool-exporter", at(m, "metadata", "name"), n);
            }
        }
    }

    @Test
    void theDefaultDaemonSetHoldsOnlyCapPerfmonAndNoDevice() throws IOException {
        Map<String, Object> ds = load("daemonset.yaml");
        assertEquals("DaemonSet", ds.get("kind"));
        List<Map<String, Object>> all = new ArrayList<>(at(ds, "spec", "template", "spec", "initContainers"));
        all.addAll(at(ds, "spec", "template", "spec", "containers"));
        for (Map<String, Object> c : all) {
            Map<String, Object> sc = at(c, "securityContext");
            assertNotEquals(Boolean.TRUE, sc.get("privileged"), c.get("name") + " must not be privileged");
            assertEquals(false, sc.get("allowPrivilegeEscalation"));
            assertEquals(true, sc.get("readOnlyRootFilesystem"));
            assertEquals(List.of("ALL"), at(sc, "capabilities", "drop"));
            assertEquals(List.of("PERFMON"), at(sc, "capabilities", "add"));
        }
        List<Map<String, Object>> volumes = at(ds, "spec", "template", "spec", "volumes");
        assertFalse(volumes.stream().anyMatch(v -> String.valueOf((Object) at(v, "hostPath", "path")).startsWith("/dev")),
                "no device in the perf-only DaemonSet: " + volumes);
        List<String> args = at(ds, "spec", "template", "spec", "containers", "0", "args");
        assertEquals(List.of("exporter", "--listen", "$(POD_IP):" + PORT), args);
        assertEquals(PORT, (int) at(ds, "spec", "template", "spec", "containers", "0", "ports", "0", "containerPort"));
        assertEquals(List.of("caps", "--nfd", "-o", "/etc/kubernetes/node-feature-discovery/features.d/hwtool"),
                at(ds, "spec", "template", "spec", "initContainers", "0", "args"));
    }

    @Test
    void theMsrVariantMountsDevCpuReadOnlyAndOnlyReads() throws IOException {
        Map<String, Object> ds = load("daemonset-msr.yaml");
        List<Map<String, Object>> mounts = at(ds, "spec", "template", "spec", "containers", "0", "volumeMounts");
        Map<String, Object> dev = mounts.stream().filter(m -> "/dev/cpu".equals(m.get("mountPath"))).findFirst().orElseThrow();
        assertEquals(true, dev.get("readOnly"));
        List<String> args = at(ds, "spec", "template", "spec", "containers", "0", "args");
        assertEquals("exporter", args.getFirst());
        assertTrue(args.contains("--msr"), args.toString());
    }

    @Test
    void monitorsSelectTheServiceAndItsPort() throws IOException {
        Map<String, Object> svc = load("service.yaml");
        Map<String, Object> podLabels = at(load("daemonset.yaml"), "spec", "template", "metadata", "labels");
        Map<String, Object> selector = at(svc, "spec", "selector");
        assertTrue(podLabels.entrySet().containsAll(selector.entrySet()), "the Service selects the exporter pods");
        assertEquals(PORT, (int) at(svc, "spec", "ports", "0", "port"));
        assertEquals("metrics", at(svc, "spec", "ports", "0", "name"));
        Map<String, Object> sm = load("servicemonitor.yaml");
        assertEquals("ServiceMonitor", sm.get("kind"));
        Map<String, Object> svcLabels = at(svc, "metadata", "labels");
        assertTrue(svcLabels.entrySet().containsAll(((Map<String, Object>) at(sm, "spec", "selector", "matchLabels")).entrySet()));
        assertEquals("metrics", at(sm, "spec", "endpoints", "0", "port"));
        Map<String, Object> pm = load("podmonitor.yaml");
        assertEquals("PodMonitor", pm.get("kind"));
        assertTrue(podLabels.entrySet().containsAll(((Map<String, Object>) at(pm, "spec", "selector", "matchLabels")).entrySet()));
        assertEquals("metrics", at(pm, "spec", "podMetricsEndpoints", "0", "port"));
    }

    @Test
    void theTlsVariantServesTheSecretsWebConfig(@TempDir Path tmp) throws Exception {
        Map<String, Object> ds = load("daemonset-tls.yaml");
        Map<String, Object> plain = load("daemonset.yaml");
        // the same pod as the default DaemonSet but for the web configuration and the probe
        assertEquals((Object) at(plain, "spec", "template", "spec", "initContainers"),
                at(ds, "spec", "template", "spec", "initContainers"));
        assertEquals((Object) at(plain, "spec", "template", "spec", "containers", "0", "securityContext"),
                at(ds, "spec", "template", "spec", "containers", "0", "securityContext"));
        List<String> args = at(ds, "spec", "template", "spec", "containers", "0", "args");
        assertEquals(List.of("exporter", "--listen", "$(POD_IP):" + PORT, "--web.config.file", "/etc/hwtool/web/web.yml"), args);
        List<Map<String, Object>> mounts = at(ds, "spec", "template", "spec", "containers", "0", "volumeMounts");
        Map<String, Object> web = mounts.stream().filter(m -> "/etc/hwtool/web".equals(m.get("mountPath"))).findFirst().orElseThrow();
        assertEquals(true, web.get("readOnly"));
        List<Map<String, Object>> volumes = at(ds, "spec", "template", "spec", "volumes");
        Map<String, Object> secretVolume = volumes.stream().filter(v -> web.get("name").equals(v.get("name"))).findFirst().orElseThrow();
        Map<String, Object> secret = load("secret-web.yaml");
        assertEquals("Secret", secret.get("kind"));
        assertEquals((Object) at(secret, "metadata", "name"), at(secretVolume, "secret", "secretName"));
        assertEquals("metrics", at(ds, "spec", "template", "spec", "containers", "0", "readinessProbe", "tcpSocket", "port"),
                "kubelet has no client certificate: a TCP probe");

        // the Secret's web.yml is a web configuration the exporter takes, with the files the
        // manifests tell to add (made here by openssl, as the comments tell)
        String yml = at(secret, "stringData", "web.yml");
        TestPki pki = TestPki.create(Files.createDirectories(tmp.resolve("pki")));
        Files.copy(pki.serverCert(), tmp.resolve("tls.crt"));
        Files.copy(pki.serverKey(), tmp.resolve("tls.key"));
        Files.copy(pki.caCert(), tmp.resolve("ca.crt"));
        Files.writeString(tmp.resolve("web.yml"), yml);
        WebConfig config = WebConfig.load(tmp.resolve("web.yml"));
        assertEquals(WebConfig.ClientAuth.REQUIRE_AND_VERIFY_CLIENT_CERT, config.tls().orElseThrow().clientAuth());
        TlsContexts.server(config.tls().get());
        String comment = Files.readString(DIR.resolve("secret-web.yaml"));
        for (String key : List.of("--from-file=web.yml", "tls.crt=", "tls.key=", "ca.crt=")) {
            assertTrue(comment.contains(key), "the Secret's comment says how to add " + key);
        }

        Map<String, Object> sm = load("servicemonitor-tls.yaml");
        assertEquals("https", at(sm, "spec", "endpoints", "0", "scheme"));
        assertEquals("metrics", at(sm, "spec", "endpoints", "0", "port"));
        assertTrue(at(sm, "spec", "endpoints", "0", "tlsConfig", "keySecret") != null, "a client key for RequireAndVerifyClientCert");
    }
}
