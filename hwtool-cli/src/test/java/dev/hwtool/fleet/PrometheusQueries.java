package dev.hwtool.fleet;

import com.fasterxml.jackson.jr.ob.JSON;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
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

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * PromQL instant queries against a real Prometheus the test started (HTTP API v1, /api/v1/query),
 * and the wait for its scrapes: shared by the fleet and the web-config tests.
 */
record PrometheusQueries(HttpClient http, int port, Process prometheus, Path log) {
    static final Duration WAIT = Duration.ofSeconds(90);

    static HttpClient client() {
        return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    }

    /** A loopback port free now, for Prometheus's --web.listen-address. */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** The body of a 200 answer to GET url; any other status fails the test. */
    static String get(HttpClient http, String url) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, r.statusCode(), url + ": " + r.body());
        return r.body();
    }

    String get(String path) throws Exception {
        return get(http, "http://127.0.0.1:" + port + path);
    }

    private String query(String promql) {
        return "/api/v1/query?query=" + URLEncoder.encode(promql, StandardCharsets.UTF_8);
    }

    /** The instant vector a PromQL query returns: one map per series, {metric: {...}, value: [t, "v"]}. */
    List<Map<?, ?>> result(String promql) throws Exception {
        Map<String, Object> body = JSON.std.mapFrom(get(query(promql)));
        assertEquals("success", body.get("status"), promql + ": " + body);
        List<Map<?, ?>> out = new ArrayList<>();
        for (Object o : (List<?>) ((Map<?, ?>) body.get("data")).get("result")) {
            out.add((Map<?, ?>) o);
        }
        return out;
    }

    static double value(Map<?, ?> series) {
        return Double.parseDouble(String.valueOf(((List<?>) series.get("value")).get(1)));
    }

    double scalar(String promql) throws Exception {
        List<Map<?, ?>> r = result(promql);
        assertEquals(1, r.size(), promql + ": " + r);
        return value(r.getFirst());
    }

    /** Each series' value under its LABEL, sorted by label. */
    Map<String, Double> byLabel(String promql, String label) throws Exception {
        Map<String, Double> out = new TreeMap<>();
        for (Map<?, ?> series : result(promql)) {
            out.put(String.valueOf(((Map<?, ?>) series.get("metric")).get(label)), value(series));
        }
        return out;
    }

    /** Polls until the query returns a non-empty vector: 503 until the TSDB is open, empty until the scrapes are in. */
    void waitFor(String promql) throws Exception {
        long deadline = System.nanoTime() + WAIT.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            if (!prometheus.isAlive()) {
                fail("prometheus exited " + prometheus.exitValue() + ": " + Files.readString(log));
            }
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + query(promql)))
                        .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200 && !result(promql).isEmpty()) {
                    return;
                }
                last = r.statusCode() + " " + r.body();
            } catch (IOException e) {
                last = e.toString(); // not listening yet
            }
            Thread.sleep(500);
        }
        fail("Prometheus did not get there within " + WAIT + " (" + promql + "): " + last + "\n" + Files.readString(log));
    }
}
