package dev.hwtool.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.api.Cause;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.linux.sys.Bindings;
import dev.hwtool.linux.DeviceMsrAccess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import sun.misc.Signal;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code hwtool msr watch}: against the simulator, a fixture msr device tree, and this machine. */
class MsrWatchTest {

    /**
     * These watches end by a count or a signal, not by time: the timeout only stops a hang, and is
     * generous, since a signal's dispatch on a loaded machine (load 10 on 2 CPUs here) took more
     * than the 20 s this once allowed.
     */
    private static final long HANG_GUARD_MINUTES = 5;

    private static final String TSC = "IA32_TIME_STAMP_COUNTER";

    @Test
    void csvHasAHeaderAndOneRowPerCpuPerSampleWithTheTscIncreasing() {
        Run r = Run.of("msr", "watch", TSC, "0xe8", "-p", "0,2-3", "--count", "3", "--interval", "2ms", "--csv",
                "--profile", "skylake");
        assertEquals(0, r.exit(), r.toString());
        List<String> lines = r.out().lines().toList();
        assertEquals("timestamp,elapsed_s,cpu," + TSC + ",IA32_APERF", lines.getFirst());
        assertEquals(1 + 3 * 3, lines.size(), r.out());
        long last = -1;
        List<String> cpus = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",");
            assertEquals(5, f.length, line);
            cpus.add(f[2]);
            assertTrue(f[3].matches("0x[0-9a-f]{16}"), line);
            long tsc = Long.parseUnsignedLong(f[3].substring(2), 16);
            assertTrue(tsc > last, "the simulated TSC only moves forward: " + r.out());
            last = tsc;
        }
        assertEquals(List.of("0", "2", "3", "0", "2", "3", "0", "2", "3"), cpus);
        assertTrue(r.err().contains("SIMULATED CPU"), "says it is simulated: " + r.err());
    }

    @Test
    void deltaIsPositiveForTheTscAndTheFirstRowComesAfterOneInterval() {
        Run r = Run.of("msr", "watch", TSC, "--delta", "-n", "3", "-i", "5ms", "--profile", "haswell");
        assertEquals(0, r.exit(), r.toString());
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.getFirst().matches(" +TIME\\(s\\) +CPU +" + TSC), lines.getFirst());
        assertEquals(4, lines.size(), r.out());
        for (String line : lines.subList(1, 4)) {
            String[] f = line.trim().split(" +");
            assertTrue(Double.parseDouble(f[0]) >= 0.005, "one interval after the start: " + line);
            assertEquals("0", f[1]);
            assertTrue(Long.parseLong(f[2]) > 0, "TSC delta positive: " + line);
        }
    }

    @Test
    void jsonLinesAreOneObjectPerRow() throws IOException {
        Run r = Run.of("msr", "watch", "ia32_mperf", TSC, "-a", "-n", "2", "-i", "1ms", "--json", "--delta",
                "--profile", "alderlake");
        assertEquals(0, r.exit(), r.toString());
        List<String> lines = r.out().lines().toList();
        int cpus = dev.hwtool.sim.SimulatedPlatform.of("alderlake").cpuid().cpus().size();
        assertEquals(2 * cpus, lines.size());
        for (String line : lines) {
            Map<String, Object> m = JSON.std.mapFrom(line);
            assertEquals(List.of("timestamp", "elapsed_s", "cpu", "simulated", "delta", "values"), List.copyOf(m.keySet()));
            assertEquals(true, m.get("simulated"));
            assertEquals(true, m.get("delta"));
            Map<?, ?> values = (Map<?, ?>) m.get("values");
            assertEquals(List.of("IA32_MPERF", TSC), List.copyOf(values.keySet()));
            assertTrue(new BigInteger(values.get(TSC).toString()).signum() > 0, line);
            assertTrue(!m.get("elapsed_s").toString().contains("E"), "plain decimal seconds: " + line);
        }
    }

    @Test
    void aRegisterThatFaultsEverywhereIsAOneLineErrorBeforeAnyOutput() {
        // the AMD guest profile has no IA32_MISC_ENABLE: RDMSR #GPs
        Run r = Run.of("msr", "watch", "IA32_MISC_ENABLE", "-a", "-n", "2", "-i", "1ms", "--profile", "amd-epyc-kvm-guest");
        assertEquals(Cause.REGISTER_FAULT.exitCode(), r.exit(), r.toString());
        assertEquals("", r.out());
        List<String> err = r.err().lines().filter(l -> !l.contains("SIMULATED CPU")).toList();
        assertEquals(1, err.size(), r.err());
        assertTrue(err.getFirst().startsWith("hwtool: ") && err.getFirst().contains("1A0"), r.err());
    }

    @Test
    void thisMachineWithoutAnMsrDriverFailsWithItsCause() {
        Run r = Run.of("msr", "watch", TSC, "-n", "1");
        // Without -p the tool reads the first CPU of the affinity mask (CPU 0 may be outside it).
        int cpu = dev.hwtool.testing.Preconditions.firstCpuInMask();
        if (Files.exists(Path.of("/dev/cpu/" + cpu + "/msr"))) {
            // A host with the driver: root with CAP_SYS_RAWIO reads the TSC (one row); anyone else
            // is refused for want of CAP_SYS_RAWIO or by the node's 0600 root mode
            // (arch/x86/kernel/msr.c msr_open, msr_devnode).
            if (dev.hwtool.testing.Preconditions.isRoot()
                    && dev.hwtool.testing.Preconditions.hasCapability(dev.hwtool.testing.Preconditions.CAP_SYS_RAWIO)) {
                assertEquals(0, r.exit(), r.toString());
                assertEquals(1, r.out().lines().count(), r.out());
                assertFalse(r.err().contains("hwtool:"), r.err());
            } else {
                assertTrue(r.exit() == Cause.MISSING_CAPABILITY.exitCode() || r.exit() == Cause.PERMISSION_DENIED.exitCode(),
                        r.toString());
            }
            return;
        }
        assertEquals(Cause.DRIVER_NOT_LOADED.exitCode(), r.exit(), r.toString());
        assertTrue(r.err().startsWith("hwtool: CPU " + cpu + " cannot read MSR 0x00000010"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void badArguments() {
        String[] sim = {"--profile", "skylake"};
        assertUsage(Run.of(cat(new String[]{"msr", "watch", TSC, "--csv", "--json"}, sim)), "--csv and --json exclude each other");
        assertUsage(Run.of(cat(new String[]{"msr", "watch", TSC, "-p", "0", "-a"}, sim)), "-p/--cpu and -a/--all");
        assertUsage(Run.of(cat(new String[]{"msr", "watch", TSC, "-i", "fast"}, sim)), "'fast' is not a duration");
        assertUsage(Run.of(cat(new String[]{"msr", "watch", TSC, "-i", "0s"}, sim)), "out of range");
        assertUsage(Run.of(cat(new String[]{"msr", "watch", TSC, "-n", "0"}, sim)), "--count must be at least 1");
        assertUsage(Run.of(cat(new String[]{"msr", "watch", TSC, "-p", "3-1"}, sim)), "is not a CPU list");
        assertUsage(Run.of(cat(new String[]{"msr", "watch"}, sim)), "REG");
        Run unknown = Run.of(cat(new String[]{"msr", "watch", "IA32_NOPE", "-n", "1"}, sim));
        assertEquals(Cause.BAD_INPUT.exitCode(), unknown.exit(), unknown.toString());
        Run noCpu = Run.of(cat(new String[]{"msr", "watch", TSC, "-p", "64", "-n", "1"}, sim));
        assertEquals(Cause.NO_SUCH_CPU.exitCode(), noCpu.exit(), noCpu.toString());
        assertTrue(noCpu.err().contains("CPU 64 is offline or does not exist (online: 0-7)"), noCpu.err());
    }

    @Test
    void helpOfANestedCommandListsTheExitCodes() {
        Run r = Run.of("msr", "watch", "--help");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("Exit codes:") && r.out().contains("register fault (#GP)"), r.out());
    }

    @Test
    void intervalsParse() {
        assertEquals(Duration.ofMillis(500), IntervalArg.parse("500ms"));
        assertEquals(Duration.ofSeconds(1), IntervalArg.parse("1s"));
        assertEquals(Duration.ofMillis(1500), IntervalArg.parse("1.5"));
        assertEquals(Duration.ofMinutes(2), IntervalArg.parse("2m"));
        assertEquals(Duration.ofMillis(1), IntervalArg.parse("1000us"));
    }

    // ---- a CPU failing while the others go on ---------------------------------------------------

    /**
     * Real /dev/cpu/N/msr semantics on files: DeviceMsrAccess preads 8 bytes at offset = MSR.
     * CPU 0's node holds a TSC value at offset 0x10; CPU 1's node is cut short after the first
     * sample, so its next pread returns 0 bytes: CPU 1 is reported once and dropped, CPU 0 goes on,
     * and the exit code is the dropped CPU's cause.
     */
    @Test
    @Timeout(value = HANG_GUARD_MINUTES, unit = TimeUnit.MINUTES)
    void aCpuFailingMidWatchIsReportedOnceAndTheOthersContinue(@TempDir Path dir) throws Exception {
        HostTree t = HostTree.intelHost(dir);
        node(t, 0, 0x1111);
        node(t, 1, 0x2222);
        try (DeviceMsrAccess msr = new DeviceMsrAccess(Bindings.open("ffm"), t.at("/dev"), dir)) {
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            MsrSampler sampler = new MsrSampler(msr, List.of(0, 1), List.of(MsrArgs.register(TSC, null)),
                    WatchOutput.CSV, false, Duration.ofMillis(300), 6L, false, new PrintWriter(out), new PrintWriter(err));
            AtomicInteger exit = new AtomicInteger(-1);
            Thread run = Thread.ofPlatform().start(() -> exit.set(sampler.run()));
            awaitRows(out, 2); // the first sample: both CPUs
            try (RandomAccessFile f = new RandomAccessFile(t.at("/dev/cpu/1/msr").toFile(), "rw")) {
                f.setLength(8); // offset 0x10 is now past the end
            }
            run.join();
            List<String> rows = out.toString().lines().skip(1).toList();
            List<String> cpu0 = rows.stream().filter(r -> r.endsWith(",0,0x0000000000001111")).toList();
            List<String> cpu1 = rows.stream().filter(r -> r.endsWith(",1,0x0000000000002222")).toList();
            assertEquals(6, cpu0.size(), "CPU 0 goes on to the end: " + out);
            assertTrue(cpu1.size() >= 1 && cpu1.size() < 6, "CPU 1 stops when its node is cut: " + out);
            assertEquals(rows.size(), cpu0.size() + cpu1.size(), out.toString());
            int lastCpu1 = rows.lastIndexOf(cpu1.getLast());
            assertTrue(rows.subList(lastCpu1 + 1, rows.size()).stream().allMatch(cpu0::contains), out.toString());
            List<String> errLines = err.toString().lines().filter(l -> l.contains("dropped")).toList();
            assertEquals(1, errLines.size(), err.toString());
            assertTrue(errLines.getFirst().startsWith("hwtool: CPU 1 dropped from the watch: "), err.toString());
            assertEquals(Cause.OS_ERROR.exitCode(), exit.get(), "the dropped CPU's cause: " + err);
        }
    }

    // ---- Ctrl-C ---------------------------------------------------------------------------------

    /** A real SIGINT to this JVM while a watch without --count runs: it ends with whole rows, exit 130 (128 + SIGINT). */
    @Test
    @Timeout(value = HANG_GUARD_MINUTES, unit = TimeUnit.MINUTES)
    void sigintEndsAnEndlessWatchCleanly() throws Exception {
        // A JVM that inherited SIGINT ignored (a background job of a non-interactive shell sets
        // SIG_IGN, and exec keeps it) leaves it ignored: HotSpot neither registers a handler for a
        // shutdown signal ignored at start nor raises it (JVM_RegisterSignal and JVM_RaiseSignal,
        // src/hotspot/os/posix/jvm_posix.cpp), so the raise below cannot end the watch.
        // Say so now, not after the hang guard.
        String status = Files.readString(Path.of("/proc/self/status"));
        java.util.regex.Matcher ign = java.util.regex.Pattern.compile("(?m)^SigIgn:\\s*([0-9a-f]+)$").matcher(status);
        assertTrue(ign.find(), "no SigIgn line in /proc/self/status");
        long ignored = Long.parseUnsignedLong(ign.group(1), 16);
        assertEquals(0, ignored & (1L << (2 - 1)), "this test JVM inherited SIGINT ignored (SigIgn: " + ign.group(1)
                + "): run the suite from a foreground shell, or a job whose SIGINT is not ignored");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        AtomicInteger exit = new AtomicInteger(-1);
        Thread run = Thread.ofPlatform().start(() -> exit.set(Main.run("hwtool",
                new String[]{"msr", "watch", TSC, "-i", "20ms", "--csv", "--profile", "skylake"},
                new PrintWriter(out), new PrintWriter(err))));
        awaitRows(out, 3); // the handler is installed before the first row is written
        Signal.raise(new Signal("INT"));
        run.join();
        assertEquals(130, exit.get(), err.toString());
        String text = out.toString();
        assertTrue(text.endsWith("\n"), "no half-written row: " + text);
        List<String> rows = text.lines().skip(1).toList();
        assertTrue(rows.size() >= 3, text);
        assertTrue(rows.stream().allMatch(r -> r.split(",").length == 4), text);
    }

    private static void node(HostTree t, int cpu, long tsc) throws IOException {
        Path p = t.at("/dev/cpu/" + cpu + "/msr");
        Files.createDirectories(p.getParent());
        int at = (int) MsrCatalog.byName(TSC).orElseThrow().address();
        byte[] b = new byte[at + 8];
        for (int i = 0; i < 8; i++) {
            b[at + i] = (byte) (tsc >>> (8 * i)); // little-endian, as msr.c copies the lo/hi dwords
        }
        Files.write(p, b);
    }

    private static void awaitRows(StringWriter out, int rows) throws InterruptedException {
        while (out.toString().lines().count() < rows + 1) {
            Thread.sleep(5);
        }
    }

    private static void assertUsage(Run r, String phrase) {
        assertEquals(2, r.exit(), r.toString());
        assertTrue(r.err().contains(phrase), phrase + " in: " + r.err());
        assertEquals("", r.out());
    }

    private static String[] cat(String[] a, String[] b) {
        String[] out = new String[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
