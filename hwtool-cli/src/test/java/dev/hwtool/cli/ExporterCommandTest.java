package dev.hwtool.cli;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
                {"--msr", "NOT_A_REGISTER"}, {"--cache-interval", "soon"}, {"--events", "cycles"}}) {
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
    void listenAddressesParse() {
        assertEquals(9777, ExporterCommand.listenAddress("127.0.0.1:9777").getPort());
        assertEquals("0:0:0:0:0:0:0:1", ExporterCommand.listenAddress("[::1]:0").getAddress().getHostAddress());
    }
}
