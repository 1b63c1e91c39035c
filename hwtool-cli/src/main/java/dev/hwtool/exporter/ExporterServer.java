package dev.hwtool.exporter;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.exporter.httpserver.MetricsHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;

/**
 * The exporter's HTTP side: GET or HEAD of {@code /metrics} (the Prometheus client's handler:
 * text format, or OpenMetrics when the Accept header asks for it) and of {@code /} (a short
 * index page). Any other path is 404, any other method 405 with {@code Allow: GET, HEAD}
 * (RFC 9110 15.5.6). Nothing served can change the machine: the collector only reads.
 */
public final class ExporterServer implements AutoCloseable {

    static final String INDEX = """
            <!DOCTYPE html>
            <html><head><title>hwtool exporter</title></head>
            <body><h1>hwtool exporter</h1><p><a href="/metrics">Metrics</a></p></body></html>
            """;

    private final HttpServer server;

    private ExporterServer(HttpServer server) {
        this.server = server;
    }

    /**
     * Binds and starts serving.
     *
     * @throws IOException when the address cannot be bound (in use, not local, no permission)
     */
    public static ExporterServer start(InetSocketAddress address, PrometheusRegistry registry,
                                       ExecutorService executor) throws IOException {
        HttpServer http = HttpServer.create(address, 16);
        MetricsHandler metrics = new MetricsHandler(registry);
        http.createContext("/", exchange -> dispatch(exchange, metrics));
        http.setExecutor(executor);
        http.start();
        return new ExporterServer(http);
    }

    /** The address actually bound (port 0 asks for any free port). */
    public InetSocketAddress address() {
        return server.getAddress();
    }

    private static void dispatch(HttpExchange exchange, HttpHandler metrics) throws IOException {
        try (exchange) {
            String path = exchange.getRequestURI().getPath();
            boolean known = path.equals("/metrics") || path.equals("/");
            if (!known) {
                plain(exchange, 404, "not found: " + path + " (this exporter serves /metrics)\n");
                return;
            }
            String method = exchange.getRequestMethod();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.getResponseHeaders().set("Allow", "GET, HEAD");
                plain(exchange, 405, "method " + method + " not allowed: GET or HEAD\n");
                return;
            }
            if (path.equals("/metrics")) {
                metrics.handle(exchange);
            } else {
                send(exchange, 200, "text/html; charset=utf-8", INDEX);
            }
        }
    }

    private static void plain(HttpExchange exchange, int status, String body) throws IOException {
        send(exchange, status, "text/plain; charset=utf-8", body);
    }

    private static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        boolean head = exchange.getRequestMethod().equals("HEAD");
        // HEAD: the length the GET would have, no body (-1 tells HttpServer there is none)
        if (head) {
            exchange.getResponseHeaders().set("Content-Length", String.valueOf(bytes.length));
        }
        exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
        if (!head) {
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        }
    }

    /** Stops accepting, lets exchanges in progress finish for up to a second. */
    @Override
    public void close() {
        server.stop(1);
    }
}
