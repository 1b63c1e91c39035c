package dev.hwtool.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** hwtool exporter's failures before it serves: one line (and the fix), the documented code. */
class ExporterCommandTest {

    @Test
    void aPortInUseIsExit13InOneLine() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Run r = Run.of("exporter", "--backend", "sim", "--profile", "skylake",
                    "--listen", "127.0.0.1:" + taken.getLocalPort());
            assertEquals(13, r.exit(), r::toString);
            assertEquals("hwtool: cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": Address already in use\n"
                    + "hwtool: fix: give another address or port with --listen HOST:PORT\n", r.err());
        }
    }

    @Test
    void badArgumentsAreUsageErrors() {
        for (String[] args : new String[][] {
                {"--listen", "9777"}, {"--listen", "127.0.0.1:65536"}, {"--listen", "127.0.0.1:x"},
                {"--msr", "NOT_A_REGISTER"}, {"--cache-interval", "soon"}, {"--events", "cycles"},
                {"--web.max-requests", "0"}, {"--web.max-requests", "257"}, {"--web.max-connections", "0"},
                {"--web.max-connections", "65537"}, {"--web.max-connections-per-client", "0"},
                {"--web.max-connections", "4", "--web.max-connections-per-client", "5"},
                {"--web.header-timeout", "500ms"}, {"--web.header-timeout", "6m"}, {"--web.header-timeout", "soon"},
                {"--web.header-timeout", "20s", "--web.request-timeout", "10s"}, {"--web.request-timeout", "11m"},
                {"--web.idle-timeout", "0.5s"}, {"--web.idle-timeout", "2h"}, {"--web.max-requests", "x"}}) {
            String[] full = new String[args.length + 5];
            full[0] = "exporter";
            full[1] = "--backend";
            full[2] = "sim";
            full[3] = "--profile";
            full[4] = "skylake";
            System.arraycopy(args, 0, full, 5, args.length);
            Run r = Run.of(full);
            assertEquals(2, r.exit(), r::toString);
            assertEquals(1, r.err().lines().filter(l -> !l.startsWith("hwtool: see")).count(), r::toString);
            assertTrue(r.err().startsWith("hwtool: "), r::toString);
        }
    }

    @Test
    void anUnusableWebConfigIsExit3InOneLine(@TempDir Path dir) throws Exception {
        Path bad = dir.resolve("web.yml");
        Files.writeString(bad, "tls_server_config:\n  cert_file: x.crt\n  key_file: x.key\n  unknown: 1\n");
        Path badKey = dir.resolve("key.yml");
        Files.writeString(dir.resolve("x.crt"), "not a certificate\n");
        Files.writeString(dir.resolve("x.key"), "not a key\n");
        Files.writeString(badKey, "tls_server_config:\n  cert_file: x.crt\n  key_file: x.key\n");
        for (Path config : new Path[] {bad, badKey, dir.resolve("absent.yml")}) {
            Run r = Run.of("exporter", "--backend", "sim", "--profile", "skylake", "--listen", "127.0.0.1:0",
                    "--web.config.file", config.toString());
            assertEquals(3, r.exit(), r::toString);
            assertTrue(r.err().startsWith("hwtool: --web.config.file " + config), r::toString);
            assertEquals(1, r.err().lines().filter(l -> !l.startsWith("hwtool: fix:")).count(), r::toString);
            assertFalse(r.err().contains("\tat "), "no stack trace: " + r);
        }
    }

    @Test
    void listenAddressesParse() {
        assertEquals(9777, ExporterCommand.listenAddress("127.0.0.1:9777").getPort());
        assertEquals("0:0:0:0:0:0:0:1", ExporterCommand.listenAddress("[::1]:0").getAddress().getHostAddress());
    }
}
