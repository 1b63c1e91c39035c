package dev.hwtool.exporter;

import dev.hwtool.exporter.TlsContexts.ServerTls;
import dev.hwtool.exporter.WebConfig.WebConfigException;
import io.prometheus.metrics.exporter.common.PrometheusHttpExchange;
import io.prometheus.metrics.exporter.common.PrometheusHttpRequest;
import io.prometheus.metrics.exporter.common.PrometheusHttpResponse;
import io.prometheus.metrics.exporter.common.PrometheusScrapeHandler;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import javax.net.ssl.SSLSocket;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The exporter's HTTP/1.1 server: GET or HEAD of {@code /metrics} (the Prometheus client's scrape
 * handler: text format, or OpenMetrics when the Accept header asks for it) and of {@code /} (a
 * short index page). Any other path is 404, any other method 405 with {@code Allow: GET, HEAD}
 * (RFC 9110 15.5.6), a query parameter the handler does not know 400. Nothing served can change
 * the machine: the collector only reads.
 *
 * <p>Why not the JDK's {@code com.sun.net.httpserver}: its ServerImpl (JDK 25) reads a request's
 * headers on an executor thread once the first byte has arrived, so with a bounded executor a
 * few clients that send half a request hold every thread (the reported failure: two half-open
 * connections against the two-thread pool stopped all scrapes); {@code sun.net.httpserver.maxReqTime}
 * and {@code jdk.httpserver.maxConnections} bound that in time and in all, but are JVM-wide
 * system properties read once in ServerConfig's static initializer, and nothing in it sees a
 * connection before its request is parsed, so no limit per client is possible. Here each
 * connection has a virtual thread of its own, so a slow one holds nothing but itself; the limits
 * are applied when a connection is accepted, before a byte is read; a watchdog closes a
 * connection whose headers (TLS handshake included) or whole exchange overrun their time; and
 * the work of a scrape (authentication, collection, exposition) runs under a bounded number of
 * permits, the worker pool.
 */
public final class ExporterServer implements AutoCloseable {

    static final String INDEX = """
            <!DOCTYPE html>
            <html><head><title>hwtool exporter</title></head>
            <body><h1>hwtool exporter</h1><p><a href="/metrics">Metrics</a></p></body></html>
            """;

    /** A request line or header line longer than this is refused (431/400); JDK's HttpServer allows far more. */
    static final int MAX_LINE = 8192;
    /** Header lines per request; a scrape sends about six. */
    static final int MAX_HEADERS = 64;

    /**
     * The server's limits (README, "hwtool exporter"; ranges checked by the command).
     *
     * @param maxRequests             scrapes handled at once (the worker pool); more wait for a
     *                                worker until their request timeout, then get 503
     * @param maxConnections          connections open at once; one more is closed on accept
     * @param maxConnectionsPerClient connections open at once from one IP address
     * @param headerTimeout           from accept (or the first byte of a further request on a
     *                                kept-alive connection) to the end of the request's headers,
     *                                the TLS handshake included
     * @param requestTimeout          from the same start to the last byte of the response
     * @param idleTimeout             how long a kept-alive connection may wait for its next request
     */
    public record Limits(int maxRequests, int maxConnections, int maxConnectionsPerClient,
                         Duration headerTimeout, Duration requestTimeout, Duration idleTimeout) {
        public static final Limits DEFAULT = new Limits(4, 64, 8, Duration.ofSeconds(10), Duration.ofSeconds(30),
                Duration.ofMinutes(2));

        public Limits {
            if (maxRequests < 1 || maxConnections < 1 || maxConnectionsPerClient < 1
                    || headerTimeout.isNegative() || headerTimeout.isZero()
                    || requestTimeout.compareTo(headerTimeout) < 0 || idleTimeout.isNegative() || idleTimeout.isZero()) {
                throw new IllegalArgumentException("limits out of range: " + maxRequests + ", " + maxConnections + ", "
                        + maxConnectionsPerClient + ", " + headerTimeout + ", " + requestTimeout + ", " + idleTimeout);
            }
        }
    }

    private final ServerSocket listener;
    private final Limits limits;
    private final WebConfigWatch web;
    private final PrometheusScrapeHandler scrape;
    private final Semaphore workers;
    private final AtomicInteger open = new AtomicInteger();
    private final Map<InetAddress, Integer> perClient = new ConcurrentHashMap<>();
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService watchdog;
    private final Thread acceptor;
    private volatile boolean closing;

    private ExporterServer(ServerSocket listener, PrometheusRegistry registry, Limits limits, WebConfigWatch web) {
        this.listener = listener;
        this.limits = limits;
        this.web = web;
        this.scrape = new PrometheusScrapeHandler(registry);
        this.workers = new Semaphore(limits.maxRequests(), true);
        ScheduledThreadPoolExecutor dog = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "hwtool-exporter-watchdog");
            t.setDaemon(true);
            return t;
        });
        // each phase of each connection re-arms its deadline: cancelled ones leave the queue at once
        dog.setRemoveOnCancelPolicy(true);
        this.watchdog = dog;
        this.acceptor = new Thread(this::acceptLoop, "hwtool-exporter-accept");
        this.acceptor.setDaemon(true);
    }

    /** Plain HTTP with the default limits, as before the web configuration. */
    public static ExporterServer start(InetSocketAddress address, PrometheusRegistry registry) throws IOException {
        try {
            return start(address, registry, Limits.DEFAULT, WebConfig.NONE);
        } catch (WebConfigException e) {
            throw new IllegalStateException("no web configuration, no error", e);
        }
    }

    /**
     * Sets TLS up from the web configuration, binds and starts serving.
     *
     * @throws WebConfigException when the TLS settings cannot be used (key, certificates, suites)
     * @throws IOException        when the address cannot be bound (in use, not local, no permission)
     */
    public static ExporterServer start(InetSocketAddress address, PrometheusRegistry registry, Limits limits,
                                       WebConfig web) throws IOException, WebConfigException {
        return start(address, registry, limits, WebConfigWatch.fixed(web));
    }

    /** Binds and starts serving with a web configuration that is read again when its files change. */
    public static ExporterServer start(InetSocketAddress address, PrometheusRegistry registry, Limits limits,
                                       WebConfigWatch web) throws IOException {
        ServerSocket listener = new ServerSocket();
        try {
            listener.setReuseAddress(true);
            listener.bind(address, 64);
        } catch (IOException e) {
            listener.close();
            throw e;
        }
        ExporterServer server = new ExporterServer(listener, registry, limits, web);
        server.acceptor.start();
        return server;
    }

    /** The address actually bound (port 0 asks for any free port). */
    public InetSocketAddress address() {
        return (InetSocketAddress) listener.getLocalSocketAddress();
    }

    /** Whether it serves TLS. */
    public boolean tls() {
        return web.tls();
    }

    private void acceptLoop() {
        while (!closing) {
            Socket s;
            try {
                s = listener.accept();
            } catch (IOException e) {
                if (closing) {
                    return;
                }
                // e.g. EMFILE: the next accept may succeed once connections close; not in a tight loop
                try {
                    Thread.sleep(50);
                } catch (InterruptedException ie) {
                    return;
                }
                continue;
            }
            InetAddress client = s.getInetAddress();
            if (!admit(client)) {
                // Over a limit: closed before a byte is read, as the JDK's ServerImpl does at
                // jdk.httpserver.maxConnections; nothing is written, since writing could block.
                closeQuietly(s);
                continue;
            }
            sockets.add(s);
            Thread.ofVirtual().name("hwtool-exporter-conn").start(() -> {
                try {
                    serve(s);
                } finally {
                    closeQuietly(s);
                    sockets.remove(s);
                    release(client);
                }
            });
        }
    }

    private boolean admit(InetAddress client) {
        if (open.incrementAndGet() > limits.maxConnections()) {
            open.decrementAndGet();
            return false;
        }
        boolean[] ok = {false};
        perClient.compute(client, (k, n) -> {
            int now = n == null ? 0 : n;
            if (now >= limits.maxConnectionsPerClient()) {
                return n;
            }
            ok[0] = true;
            return now + 1;
        });
        if (!ok[0]) {
            open.decrementAndGet();
        }
        return ok[0];
    }

    private void release(InetAddress client) {
        perClient.computeIfPresent(client, (k, n) -> n <= 1 ? null : n - 1);
        open.decrementAndGet();
    }

    /** Closes the raw socket when its time is up; re-armed at each phase of a connection. */
    private final class Deadline {
        private final Socket raw;
        private ScheduledFuture<?> pending;

        Deadline(Socket raw) {
            this.raw = raw;
        }

        synchronized void arm(long nanos) {
            cancel();
            pending = watchdog.schedule(() -> closeQuietly(raw), Math.max(nanos, 0), TimeUnit.NANOSECONDS);
        }

        synchronized void cancel() {
            if (pending != null) {
                pending.cancel(false);
            }
        }
    }

    private void serve(Socket raw) {
        Deadline deadline = new Deadline(raw);
        long start = System.nanoTime();
        deadline.arm(limits.headerTimeout().toNanos());
        try {
            raw.setTcpNoDelay(true);
            Socket s = raw;
            Optional<ServerTls> tls = web.current().tls(); // the key pair in force when the connection came
            if (tls.isPresent()) {
                SSLSocket ssl = (SSLSocket) tls.get().context().getSocketFactory().createSocket(raw, null, raw.getPort(), true);
                ssl.setUseClientMode(false);
                ssl.setSSLParameters(tls.get().parameters());
                ssl.startHandshake(); // under the header deadline: a stalled handshake is closed like stalled headers
                if (!tls.get().clientAllowedSans().isEmpty() && !tls.get().allows(ssl.getSession().getPeerCertificates())) {
                    return; // client_allowed_sans: exporter-toolkit ends the connection too
                }
                s = ssl;
            }
            InputStream in = new BufferedInputStream(s.getInputStream(), 8192);
            OutputStream out = new BufferedOutputStream(s.getOutputStream(), 8192);
            while (!closing) {
                Request request;
                try {
                    request = Request.read(in);
                } catch (BadRequest e) {
                    deadline.arm(limits.requestTimeout().toNanos() - (System.nanoTime() - start));
                    write(out, Response.text(e.status, e.getMessage() + "\n"), false, true);
                    linger(raw, in, deadline);
                    return;
                }
                if (request == null) {
                    return; // closed between requests
                }
                deadline.arm(limits.requestTimeout().toNanos() - (System.nanoTime() - start));
                Response response = respond(request, start);
                boolean close = response.close || request.wantsClose() || closing;
                write(out, response, request.method().equals("HEAD"), close);
                if (close) {
                    linger(raw, in, deadline);
                    return;
                }
                // kept alive: wait for the next request's first byte, then its own header deadline
                deadline.arm(limits.idleTimeout().toNanos());
                in.mark(1);
                if (in.read() < 0) {
                    return;
                }
                in.reset();
                start = System.nanoTime();
                deadline.arm(limits.headerTimeout().toNanos());
            }
        } catch (IOException | RuntimeException e) {
            // the client went away, sent garbage TLS, or overran a deadline (the watchdog closed the socket)
        } finally {
            deadline.cancel();
        }
    }

    /**
     * A lingering close (RFC 9112 9.6): after the last response, stop sending and read what the
     * client still sends (a body not read, the rest of an overlong header) for a moment, so that
     * closing with unread data does not reset the connection before the client has read the
     * response. Bounded in bytes and time.
     */
    private static final long LINGER_NANOS = Duration.ofSeconds(2).toNanos();
    private static final int LINGER_BYTES = 1 << 16;

    private static void linger(Socket raw, InputStream in, Deadline deadline) {
        try {
            deadline.arm(LINGER_NANOS);
            raw.shutdownOutput();
            byte[] discard = new byte[4096];
            int total = 0;
            for (int n; total < LINGER_BYTES && (n = in.read(discard)) >= 0; ) {
                total += n;
            }
        } catch (IOException | RuntimeException e) {
            // closed by the deadline or the client: done either way
        }
    }

    private Response respond(Request r, long start) {
        if (!r.version().equals("HTTP/1.1") && !r.version().equals("HTTP/1.0")) {
            return Response.text(505, "HTTP/1.1 or HTTP/1.0 only\n").closing();
        }
        // RFC 9112 3.2: a server MUST answer 400 to an HTTP/1.1 request without exactly one Host
        if (r.version().equals("HTTP/1.1") && r.headers("Host").size() != 1) {
            return Response.text(400, "exactly one Host header is required (RFC 9112 3.2)\n").closing();
        }
        if (!r.headers("Transfer-Encoding").isEmpty()) {
            return Response.text(400, "request bodies are not taken here\n").closing();
        }
        // A body (Content-Length above 0) is never read: the connection is closed after the answer.
        boolean body = r.headers("Content-Length").stream().anyMatch(v -> !v.strip().equals("0"));
        long remaining = limits.requestTimeout().toNanos() - (System.nanoTime() - start);
        boolean permit;
        try {
            permit = workers.tryAcquire(Math.max(remaining, 0), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Response.text(503, "shutting down\n").closing();
        }
        if (!permit) {
            return Response.text(503, "busy: " + limits.maxRequests() + " scrapes in progress\n").closing();
        }
        try {
            Response out = route(r);
            return body ? out.closing() : out;
        } finally {
            workers.release();
        }
    }

    private Response route(Request r) {
        Optional<BasicAuth> auth = web.current().auth(); // the users in force for this request, as exporter-toolkit
        if (auth.isPresent()) {
            List<String> authorization = r.headers("Authorization");
            if (authorization.size() != 1 || !auth.get().allows(authorization.getFirst())) {
                // RFC 7235 3.1: a 401 carries the challenge
                return Response.text(401, "Unauthorized\n").header("WWW-Authenticate", BasicAuth.CHALLENGE);
            }
        }
        String target = r.target();
        if (!target.startsWith("/")) {
            return Response.text(400, "the request target must be a path (origin-form, RFC 9112 3.2.1)\n").closing();
        }
        int q = target.indexOf('?');
        String path = q < 0 ? target : target.substring(0, q);
        String query = q < 0 ? null : target.substring(q + 1);
        boolean metrics = path.equals("/metrics");
        if (!metrics && !path.equals("/")) {
            return Response.text(404, "not found: " + printable(path) + " (this exporter serves /metrics)\n");
        }
        if (!r.method().equals("GET") && !r.method().equals("HEAD")) {
            return Response.text(405, "method " + printable(r.method()) + " not allowed: GET or HEAD\n").header("Allow", "GET, HEAD");
        }
        Optional<String> bad = Query.check(query, metrics);
        if (bad.isPresent()) {
            return Response.text(400, bad.get() + "\n");
        }
        if (!metrics) {
            return new Response(200, "text/html; charset=utf-8", INDEX.getBytes(StandardCharsets.UTF_8));
        }
        return Scrape.run(scrape, r, path, query);
    }

    private void write(OutputStream out, Response r, boolean head, boolean close) throws IOException {
        StringBuilder h = new StringBuilder(256);
        h.append("HTTP/1.1 ").append(r.status).append(' ').append(reason(r.status)).append("\r\n");
        // RFC 9110 6.6.1: an origin server with a clock sends Date
        h.append("Date: ").append(IMF_FIXDATE.format(ZonedDateTime.now(ZoneOffset.UTC))).append("\r\n");
        Map<String, String> headers = new LinkedHashMap<>(r.headers);
        if (r.contentType != null) {
            headers.putIfAbsent("Content-Type", r.contentType);
        }
        // HEAD: the length the GET would have (the scrape handler sets it itself), no body
        if (!head || !headers.containsKey("Content-Length")) {
            headers.put("Content-Length", String.valueOf(r.body.length));
        }
        web.current().headers().forEach(headers::putIfAbsent);
        if (close) {
            headers.put("Connection", "close");
        }
        headers.forEach((k, v) -> h.append(k).append(": ").append(v).append("\r\n"));
        h.append("\r\n");
        out.write(h.toString().getBytes(StandardCharsets.ISO_8859_1));
        if (!head) {
            out.write(r.body);
        }
        out.flush();
    }

    /** RFC 9110 5.6.7's IMF-fixdate (two-digit day; RFC_1123_DATE_TIME would write one digit). */
    private static final DateTimeFormatter IMF_FIXDATE = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'",
            java.util.Locale.US);

    static String reason(int status) {
        return switch (status) {
            case 200 -> "OK";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 431 -> "Request Header Fields Too Large";
            case 500 -> "Internal Server Error";
            case 503 -> "Service Unavailable";
            case 505 -> "HTTP Version Not Supported";
            default -> "Status";
        };
    }

    /** Text from a request shown back: printable ASCII only, at most 200 characters. */
    static String printable(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length() && b.length() < 200; i++) {
            char c = s.charAt(i);
            b.append(c >= 0x20 && c < 0x7f ? c : '?');
        }
        return b.toString();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // closing: nothing to do about it
        }
    }

    /** Stops accepting, gives exchanges in progress up to a second, then closes every connection. */
    @Override
    public void close() {
        closing = true;
        try {
            listener.close();
        } catch (IOException e) {
            // closing anyway
        }
        try {
            if (workers.tryAcquire(limits.maxRequests(), 1, TimeUnit.SECONDS)) {
                workers.release(limits.maxRequests());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (Socket s : List.copyOf(sockets)) {
            closeQuietly(s);
        }
        watchdog.shutdownNow();
    }

    /** A parsed request: its line and headers (names case-insensitive, RFC 9110 5.1). */
    record Request(String method, String target, String version, Map<String, List<String>> headerMap) {

        List<String> headers(String name) {
            return headerMap.getOrDefault(name, List.of());
        }

        /** HTTP/1.0 closes unless asked not to (we close it anyway); HTTP/1.1 on "Connection: close" (RFC 9112 9.3). */
        boolean wantsClose() {
            if (version.equals("HTTP/1.0")) {
                return true;
            }
            return headers("Connection").stream().flatMap(v -> List.of(v.split(",")).stream())
                    .anyMatch(t -> t.strip().equalsIgnoreCase("close"));
        }

        /** The next request on the stream, null at its clean end. */
        static Request read(InputStream in) throws IOException, BadRequest {
            String line = line(in, true);
            // RFC 9112 2.2: a server SHOULD ignore at least one empty line before the request line
            if (line != null && line.isEmpty()) {
                line = line(in, true);
            }
            if (line == null) {
                return null;
            }
            String[] parts = line.split(" ", -1);
            if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty() || !parts[2].startsWith("HTTP/")) {
                throw new BadRequest(400, "malformed request line");
            }
            if (!parts[0].chars().allMatch(c -> c > 0x20 && c < 0x7f && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0)) {
                throw new BadRequest(400, "malformed method");
            }
            Map<String, List<String>> headers = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            for (int n = 0; ; n++) {
                String h = line(in, false);
                if (h == null) {
                    throw new BadRequest(400, "the request ended inside its headers");
                }
                if (h.isEmpty()) {
                    break;
                }
                if (n >= MAX_HEADERS) {
                    throw new BadRequest(431, "more than " + MAX_HEADERS + " header lines");
                }
                int colon = h.indexOf(':');
                // RFC 9112 5.1: no whitespace between the name and the colon; 5.2: no obs-fold
                if (colon <= 0 || h.charAt(0) == ' ' || h.charAt(0) == '\t' || Character.isWhitespace(h.charAt(colon - 1))) {
                    throw new BadRequest(400, "malformed header line");
                }
                String name = h.substring(0, colon);
                headers.computeIfAbsent(name, k -> new ArrayList<>()).add(h.substring(colon + 1).strip());
            }
            return new Request(parts[0], parts[1], parts[2], headers);
        }

        /** One CRLF- (or bare LF-, RFC 9112 2.2) terminated line, ISO-8859-1; null at end of stream before any byte. */
        private static String line(InputStream in, boolean first) throws IOException, BadRequest {
            StringBuilder b = new StringBuilder(64);
            while (true) {
                int c = in.read();
                if (c < 0) {
                    if (b.isEmpty()) {
                        return null;
                    }
                    throw new BadRequest(400, "the request ended inside a line");
                }
                if (c == '\n') {
                    int len = b.length();
                    if (len > 0 && b.charAt(len - 1) == '\r') {
                        b.setLength(len - 1);
                    }
                    return b.toString();
                }
                if (b.length() >= MAX_LINE) {
                    throw new BadRequest(first ? 400 : 431, "a line longer than " + MAX_LINE + " bytes");
                }
                if (c == 0) {
                    throw new BadRequest(400, "a NUL byte in the request");
                }
                b.append((char) c);
            }
        }
    }

    /** A request that cannot be answered normally; answered with its status and the connection closed. */
    static final class BadRequest extends Exception {
        final int status;

        BadRequest(int status, String message) {
            super(message);
            this.status = status;
        }
    }

    /** A whole response, held in memory (a scrape is at most a few MB; README, scrape cost). */
    static final class Response {
        final int status;
        final String contentType;
        final byte[] body;
        final Map<String, String> headers = new LinkedHashMap<>();
        boolean close;

        Response(int status, String contentType, byte[] body) {
            this.status = status;
            this.contentType = contentType;
            this.body = body;
        }

        static Response text(int status, String body) {
            return new Response(status, "text/plain; charset=utf-8", body.getBytes(StandardCharsets.UTF_8));
        }

        Response header(String name, String value) {
            headers.put(name, value);
            return this;
        }

        Response closing() {
            close = true;
            return this;
        }
    }

    /**
     * The query parameters the Prometheus client's scrape handler knows (PrometheusScrapeHandler
     * 1.10: {@code name[]}, a metric name to include, repeatable; {@code debug}, the format to
     * show as text); anything else, or a debug format it does not write, is a 400 here instead of
     * being ignored or (debug=true) its 500.
     */
    static final class Query {
        static final Set<String> DEBUG_FORMATS = Set.of("openmetrics", "text");

        private Query() {
        }

        static Optional<String> check(String query, boolean metrics) {
            if (query == null || query.isEmpty()) {
                return Optional.empty();
            }
            int debugs = 0;
            for (String pair : query.split("&", -1)) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String name;
                String value;
                try {
                    name = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
                    value = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                } catch (IllegalArgumentException e) {
                    return Optional.of("malformed query: " + printable(pair));
                }
                if (!metrics) {
                    return Optional.of("unknown query parameter '" + printable(name) + "': / takes none");
                }
                switch (name) {
                    case "name[]" -> {
                        if (value.isEmpty()) {
                            return Optional.of("name[] needs a metric name");
                        }
                    }
                    case "debug" -> {
                        debugs++;
                        if (!DEBUG_FORMATS.contains(value) || debugs > 1) {
                            return Optional.of("debug=" + printable(value) + ": the formats are openmetrics and text, once");
                        }
                    }
                    default -> {
                        return Optional.of("unknown query parameter '" + printable(name)
                                + "': /metrics takes name[]=METRIC (repeatable) and debug=openmetrics|text");
                    }
                }
            }
            return Optional.empty();
        }
    }

    /** The Prometheus client's scrape handler over one request, its response captured whole. */
    static final class Scrape implements PrometheusHttpExchange, PrometheusHttpRequest, PrometheusHttpResponse {
        private final Request request;
        private final String path;
        private final String query;
        private final Map<String, String> headers = new LinkedHashMap<>();
        private final ByteArrayOutputStream body = new ByteArrayOutputStream(8192);
        private int status = 200;
        private RuntimeException failure;

        private Scrape(Request request, String path, String query) {
            this.request = request;
            this.path = path;
            this.query = query;
        }

        static Response run(PrometheusScrapeHandler handler, Request r, String path, String query) {
            Scrape s = new Scrape(r, path, query);
            try {
                handler.handleRequest(s);
            } catch (IOException e) {
                s.failure = new IllegalStateException(e);
            }
            if (s.failure != null) {
                return Response.text(500, "error collecting metrics: " + printable(String.valueOf(s.failure.getMessage())) + "\n");
            }
            String type = s.headers.remove("Content-Type");
            Response out = new Response(s.status, type, s.body.toByteArray());
            out.headers.putAll(s.headers);
            return out;
        }

        @Override
        public PrometheusHttpRequest getRequest() {
            return this;
        }

        @Override
        public PrometheusHttpResponse getResponse() {
            return this;
        }

        @Override
        public void handleException(IOException e) throws IOException {
            throw e;
        }

        @Override
        public void handleException(RuntimeException e) {
            failure = e;
        }

        @Override
        public void close() {
        }

        @Override
        public String getQueryString() {
            return query;
        }

        @Override
        public Enumeration<String> getHeaders(String name) {
            return Collections.enumeration(request.headers(name));
        }

        @Override
        public String getMethod() {
            return request.method();
        }

        @Override
        public String getRequestPath() {
            return path;
        }

        @Override
        public void setHeader(String name, String value) {
            headers.put(name, value);
        }

        @Override
        public OutputStream sendHeadersAndGetBody(int statusCode, int contentLength) {
            status = statusCode;
            return body;
        }
    }
}
