package dev.hwtool.exporter;

import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The server against slow and malicious clients, with raw sockets on 127.0.0.1 only and a
 * bounded number of them. No timing is asserted: socket timeouts are hang guards, so a test
 * fails instead of hanging when the server does.
 */
class ExporterServerLimitsTest {

    /** A hang guard, far above any timeout configured here. */
    private static final int GUARD_MS = 60_000;

    private final List<Socket> sockets = new ArrayList<>();
    private ExporterServer server;

    private void start(ExporterServer.Limits limits) throws Exception {
        PrometheusRegistry registry = new PrometheusRegistry();
        Gauge.builder().name("hwtool_test_value").help("a value").register(registry).set(1);
        server = ExporterServer.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), registry, limits, WebConfig.NONE);
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

    private Socket connect() throws IOException {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), server.address().getPort());
        s.setSoTimeout(GUARD_MS);
        sockets.add(s);
        return s;
    }

    /** The report's half-open request: the request line and a header, never the blank line. */
    private Socket halfOpen() throws IOException {
        Socket s = connect();
        s.getOutputStream().write("GET /metrics HTTP/1.1\r\nHost: x\r\n".getBytes(StandardCharsets.US_ASCII));
        s.getOutputStream().flush();
        return s;
    }

    /** One request on a socket; the response's status line, headers and body. */
    static String exchange(Socket s, String request) throws IOException {
        s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
        s.getOutputStream().flush();
        return response(s.getInputStream(), request.startsWith("HEAD "));
    }

    static String response(InputStream in, boolean head) throws IOException {
        ByteArrayOutputStream headers = new ByteArrayOutputStream();
        int state = 0;
        while (state < 4) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("closed after: " + headers.toString(StandardCharsets.ISO_8859_1));
            }
            headers.write(c);
            state = (c == '\r' && (state == 0 || state == 2)) || (c == '\n' && (state == 1 || state == 3)) ? state + 1 : 0;
        }
        String h = headers.toString(StandardCharsets.ISO_8859_1);
        int length = 0;
        for (String line : h.split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).strip());
            }
        }
        byte[] body = head ? new byte[0] : in.readNBytes(length);
        return h + new String(body, StandardCharsets.UTF_8);
    }

    private String scrape() throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.address().getPort())) {
            s.setSoTimeout(GUARD_MS);
            return exchange(s, "GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
        }
    }

    /** One request on a connection of its own, closed after the response. */
    private String once(String request) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.address().getPort())) {
            s.setSoTimeout(GUARD_MS);
            return exchange(s, request);
        }
    }

    private static int status(String response) {
        return Integer.parseInt(response.substring(9, 12));
    }

    /** Reads until the server closes the connection; fails if it does not within the guard. */
    private static void closedByServer(Socket s) throws IOException {
        try {
            InputStream in = s.getInputStream();
            while (in.read() >= 0) {
                // drain whatever came before the close
            }
        } catch (SocketTimeoutException e) {
            fail("the server did not close the connection within " + GUARD_MS + " ms");
        } catch (IOException e) {
            // reset by the server: closed too
        }
    }

    @Test
    void halfOpenConnectionsDoNotStopScrapes() throws Exception {
        // one worker, six half-open connections (the report needed two against two threads)
        start(new ExporterServer.Limits(1, 64, 8, Duration.ofMinutes(5), Duration.ofMinutes(5), Duration.ofMinutes(5)));
        for (int i = 0; i < 6; i++) {
            halfOpen();
        }
        String r = scrape();
        assertEquals(200, status(r), r);
        assertTrue(r.contains("hwtool_test_value 1.0"), r);
    }

    @Test
    void aStalledRequestIsClosedAtItsHeaderTimeout() throws Exception {
        start(new ExporterServer.Limits(4, 64, 8, Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(1)));
        Socket half = halfOpen();
        Socket silent = connect(); // connected, not a byte sent: the same deadline
        closedByServer(half);
        closedByServer(silent);
        // a kept-alive connection is closed after its idle time
        Socket kept = connect();
        assertEquals(200, status(exchange(kept, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")));
        closedByServer(kept);
        assertEquals(200, status(scrape()));
    }

    @Test
    void connectionsPerClientAndInAllAreLimitedOnAccept() throws Exception {
        start(new ExporterServer.Limits(4, 3, 2, Duration.ofMinutes(5), Duration.ofMinutes(5), Duration.ofMinutes(5)));
        Socket a = halfOpen();
        halfOpen();
        // a third from the same address is closed before anything is read
        Socket third = connect();
        closedByServer(third);
        // when one of the first two goes, the address may connect again (the server sees the
        // close on its own time: retry a bounded number of times)
        a.close();
        int last = 0;
        for (int i = 0; i < 200 && last != 200; i++) {
            try {
                last = status(scrape());
            } catch (IOException e) {
                Thread.sleep(50);
            }
        }
        assertEquals(200, last);
    }

    @Test
    void keepAliveHeadAndProtocolErrors() throws Exception {
        start(ExporterServer.Limits.DEFAULT);
        Socket s = connect();
        assertEquals(200, status(exchange(s, "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")));
        String head = exchange(s, "HEAD /metrics HTTP/1.1\r\nHost: x\r\n\r\n");
        assertEquals(200, status(head), head);
        assertTrue(head.endsWith("\r\n\r\n"), "no body: " + head);
        assertEquals(200, status(exchange(s, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")), "three requests on one connection");

        String noHost = once("GET /metrics HTTP/1.1\r\n\r\n");
        assertEquals(400, status(noHost), noHost);
        assertTrue(noHost.contains("Connection: close"), noHost);
        assertEquals(400, status(once("GET /metrics\r\n\r\n")));
        assertEquals(400, status(once("GET http://x/metrics HTTP/1.1\r\nHost: x\r\n\r\n")));
        assertEquals(505, status(once("GET /metrics HTTP/2.0\r\nHost: x\r\n\r\n")));
        assertEquals(431, status(once("GET /metrics HTTP/1.1\r\nHost: x\r\nX: " + "a".repeat(9000) + "\r\n\r\n")));
        assertEquals(400, status(once("GET /metrics HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")));
        String post = once("POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello");
        assertEquals(405, status(post), post);
        assertTrue(post.contains("Allow: GET, HEAD") && post.contains("Connection: close"), post);
        assertEquals(200, status(once("GET /metrics HTTP/1.0\r\n\r\n")), "HTTP/1.0 needs no Host");
    }

    @Test
    void unknownQueryParametersAre400() throws Exception {
        start(ExporterServer.Limits.DEFAULT);
        for (String q : List.of("debug=true", "debug=", "foo=1", "name=x", "name[]=", "debug=text&debug=openmetrics", "%zz=1")) {
            String r = once("GET /metrics?" + q + " HTTP/1.1\r\nHost: x\r\n\r\n");
            assertEquals(400, status(r), q + ": " + r);
        }
        assertEquals(400, status(once("GET /?x=1 HTTP/1.1\r\nHost: x\r\n\r\n")));
        for (String q : List.of("", "debug=text", "debug=openmetrics", "name[]=hwtool_test_value", "name%5B%5D=hwtool_test_value")) {
            String r = once("GET /metrics?" + q + " HTTP/1.1\r\nHost: x\r\n\r\n");
            assertEquals(200, status(r), q + ": " + r);
        }
        String filtered = once("GET /metrics?name[]=other HTTP/1.1\r\nHost: x\r\n\r\n");
        assertFalse(filtered.contains("hwtool_test_value"), filtered);
    }
}
