package dev.hwtool.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Signals at random moments of the first second of {@code ./hwtool}, as a person starts it, on the
 * jar and AOT cache this build made: from the launcher's first line through the JVM's start-up to
 * the command, SIGHUP, SIGINT and SIGTERM give exactly 129, 130 and 143, nothing on stderr but the
 * command's own lines (never "Runtime.exit(130) logging failed", never a stack trace), and nothing
 * left in a private TMPDIR. The moments are spread evenly over 0..1000 ms (one per slot, jittered
 * in it), so every phase is hit whatever this machine's speed; the laws asserted hold at any
 * moment, so a loaded machine only moves where each try lands. Also: {@code sim exec} and {@code
 * sim mount} stopped by a signal at any moment, and an out-of-memory start. The tries and their
 * outcomes are printed (standard output of the test).
 */
class EarlySignalsIT {

    private static final Path ROOT = Path.of(System.getProperty("hwtool.root.dir", "..")).toAbsolutePath().normalize();
    private static final Path LAUNCHER = ROOT.resolve("hwtool");

    /** Tries per signal; -Dhwtool.earlySignalTries=N for more. */
    private static final int TRIES = Integer.getInteger("hwtool.earlySignalTries", 30);

    private record Sig(String name, int number) {
        int status() {
            return 128 + number;
        }
    }

    private static final List<Sig> SIGNALS = List.of(new Sig("HUP", 1), new Sig("INT", 2), new Sig("TERM", 15));

    /** The simulator's banner, the one line a simulated command prints on stderr. */
    private static final String BANNER = "hwtool: SIMULATED CPU ";

    @TempDir
    Path dir;

    /**
     * {@code ./hwtool args} with the three signals at their default actions (coreutils' env execs,
     * so the pid is the launcher's: a test run as a background job would hand SIGINT down ignored),
     * TMPDIR private, no JAVA_TOOL_OPTIONS, stdin closed, stdout and stderr to files.
     */
    private Process start(Path tmp, String name, List<String> args) throws IOException {
        List<String> cmd = new ArrayList<>(List.of("env", "--default-signal=HUP,INT,TERM", LAUNCHER.toString()));
        cmd.addAll(args);
        ProcessBuilder pb = HwtoolProcess.builder(cmd);
        pb.environment().put("TMPDIR", tmp.toString());
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        pb.environment().remove("_JAVA_OPTIONS");
        pb.redirectOutput(dir.resolve(name + ".out").toFile()).redirectError(dir.resolve(name + ".err").toFile());
        Process p = pb.start();
        p.getOutputStream().close();
        awaitDefaultSignals(p);
        return p;
    }

    /** SIGHUP, SIGINT and SIGTERM: bits 0, 1 and 14 of /proc/PID/status's SigIgn. */
    private static final long SHUTDOWN_SIGNALS = 1L | 1L << 1 | 1L << 14;

    /**
     * Waits until {@code env} has put the three signals back to their default actions (or the
     * process has ended). A test JVM started from {@code nohup}, or as a background job, hands
     * them down ignored; until env's --default-signal takes effect, a signal sent would be
     * ignored by env itself, before any hwtool code runs. The clock of "the first second" starts
     * here, where hwtool's launcher runs with the dispositions a shell gives it.
     */
    private static void awaitDefaultSignals(Process p) throws IOException {
        Path status = Path.of("/proc", Long.toString(p.pid()), "status");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (System.nanoTime() < deadline) {
            String text;
            try {
                text = Files.readString(status);
            } catch (java.nio.file.NoSuchFileException e) {
                return; // ended: the test reads its exit
            }
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^SigIgn:\\s*([0-9a-f]+)$").matcher(text);
            if (m.find() && (Long.parseUnsignedLong(m.group(1), 16) & SHUTDOWN_SIGNALS) == 0) {
                return;
            }
            Thread.onSpinWait();
        }
        fail("env --default-signal did not reset SIGHUP/SIGINT/SIGTERM within 10 s (pid " + p.pid() + ")");
    }

    private static List<String> entries(Path d) throws IOException {
        try (Stream<Path> s = Files.list(d)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    private static int end(Process p, String what) throws InterruptedException {
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            fail("hwtool did not end: " + what);
        }
        return p.exitValue();
    }

    /** The delay of try {@code t} of {@code n}: in slot t of 0..1000 ms, at a random point of it. */
    private static long delay(int t, int n, Random random) {
        long slot = 1000L / n;
        return t * slot + random.nextLong(Math.max(1, slot));
    }

    @Test
    void aSignalAtAnyMomentOfTheFirstSecondGivesItsCodeAndNothingElse() throws Exception {
        long seed = Long.getLong("hwtool.signalSeed", System.nanoTime());
        Random random = new Random(seed);
        // Runs for at least 3 s (a row at once, the second 3 s later): alive at every signal.
        List<String> watch = List.of("msr", "watch", "--backend", "sim", "--profile", "skylake",
                "IA32_TIME_STAMP_COUNTER", "-i", "3s", "-n", "2");
        long t0 = System.nanoTime();
        int passed = 0;
        int[] rowsSeen = new int[2];
        for (Sig sig : SIGNALS) {
            for (int t = 0; t < TRIES; t++) {
                String name = sig.name() + t;
                Path tmp = Files.createDirectory(dir.resolve("tmp-" + name));
                long delayMs = delay(t, TRIES, random);
                Process p = start(tmp, name, watch);
                long started = System.nanoTime();
                Thread.sleep(delayMs);
                long sentAfter = (System.nanoTime() - started) / 1_000_000;
                HwtoolProcess.kill(sig.number(), p.pid());
                int exit = end(p, name);
                String out = Files.readString(dir.resolve(name + ".out"), StandardCharsets.UTF_8);
                String err = Files.readString(dir.resolve(name + ".err"), StandardCharsets.UTF_8);
                String what = "SIG" + sig.name() + " " + sentAfter + " ms after the start (seed " + seed + "): exit " + exit
                        + ", stderr: " + err + ", stdout: " + out;
                assertEquals(sig.status(), exit, "128 + the signal: " + what);
                for (String line : err.lines().toList()) {
                    assertTrue(line.startsWith(BANNER), "nothing on stderr but the simulator's banner: " + what);
                }
                assertTrue(out.isEmpty() || out.endsWith("\n"), "only complete rows: " + what);
                assertEquals(List.of(), entries(tmp), "nothing left in TMPDIR: " + what);
                rowsSeen[out.isEmpty() ? 0 : 1]++;
                passed++;
            }
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        System.out.printf("EarlySignalsIT: %d tries (%d per signal over 0..1000 ms), %d passed (%d before the first row,"
                + " %d after it), %d ms, seed %d%n", 3 * TRIES, TRIES, passed, rowsSeen[0], rowsSeen[1], ms, seed);
        assertEquals(3 * TRIES, passed);
    }

    /** The child of {@code p} (at any depth) whose command is {@code exe}. */
    private static Optional<ProcessHandle> descendant(Process p, String exe) {
        return p.descendants().filter(c -> c.info().command().map(cmd -> cmd.endsWith("/" + exe)).orElse(false)).findFirst();
    }

    @Test
    void simExecStoppedByASignalAtAnyMomentLeavesNoDirectoryAndGives128PlusN() throws Exception {
        SimTreeToolsTest.requireTree();
        long seed = Long.getLong("hwtool.signalSeed", System.nanoTime());
        Random random = new Random(seed);
        int tries = Math.max(3, TRIES / 5);
        List<String> log = new ArrayList<>();
        for (Sig sig : SIGNALS) {
            for (int t = 0; t < tries; t++) {
                // Half early (0..1500 ms: launcher, JVM, set-up, mount), half once CMD runs.
                boolean whileRunning = t % 2 == 1;
                String name = "exec-" + sig.name() + t;
                Path tmp = Files.createDirectory(dir.resolve("tmp-" + name));
                Process p = start(tmp, name, List.of("sim", "exec", "--", "sleep", "86400"));
                Optional<ProcessHandle> sleep = Optional.empty();
                long delayMs = random.nextInt(1500);
                if (whileRunning) {
                    while (p.isAlive() && (sleep = descendant(p, "sleep")).isEmpty()) {
                        Thread.sleep(20);
                    }
                    delayMs = random.nextInt(200);
                }
                Thread.sleep(delayMs);
                if (sleep.isEmpty()) {
                    sleep = descendant(p, "sleep");
                }
                HwtoolProcess.kill(sig.number(), p.pid());
                int exit = end(p, name);
                String err = Files.readString(dir.resolve(name + ".err"), StandardCharsets.UTF_8);
                String what = "sim exec, SIG" + sig.name() + (whileRunning ? " while CMD runs + " : " after the start + ")
                        + delayMs + " ms (seed " + seed + "): exit " + exit + ", stderr: " + err;
                assertEquals(sig.status(), exit, "128 + the signal: " + what);
                assertEquals(List.of(), entries(tmp), "no hwtool-devcpu* directory left: " + what);
                assertTrue(err.lines().allMatch(l -> l.startsWith(BANNER)), "no noise: " + what);
                if (sleep.isPresent()) {
                    ProcessHandle s = sleep.get();
                    for (int i = 0; i < 500 && s.isAlive(); i++) {
                        Thread.sleep(10);
                    }
                    if (s.isAlive()) {
                        s.destroyForcibly();
                        fail("CMD did not get the signal: " + what);
                    }
                }
                log.add(what.substring(0, what.indexOf(", stderr")));
            }
        }
        log.forEach(System.out::println);
        System.out.printf("EarlySignalsIT: sim exec: %d tries, all passed, seed %d%n", log.size(), seed);
    }

    @Test
    void simMountStoppedByASignalUnmountsAndGives128PlusN() throws Exception {
        SimTreeToolsTest.requireTree();
        for (Sig sig : SIGNALS) {
            Path mnt = Files.createDirectory(dir.resolve("mnt-" + sig.name()));
            Path tmp = Files.createDirectory(dir.resolve("tmp-mount-" + sig.name()));
            String name = "mount-" + sig.name();
            Process p = start(tmp, name, List.of("sim", "mount", mnt.toString()));
            for (int i = 0; i < 6000 && p.isAlive() && !Files.exists(mnt.resolve("0/msr")); i++) {
                Thread.sleep(20);
            }
            assertTrue(Files.exists(mnt.resolve("0/msr")), "mounted: " + Files.readString(dir.resolve(name + ".err")));
            HwtoolProcess.kill(sig.number(), p.pid());
            int exit = end(p, name);
            assertEquals(sig.status(), exit, "sim mount, SIG" + sig.name() + ": " + Files.readString(dir.resolve(name + ".err")));
            assertTrue(Files.readAllLines(Path.of("/proc/self/mountinfo")).stream().noneMatch(l -> l.contains(" " + mnt + " ")),
                    "unmounted");
            assertEquals(List.of(), entries(mnt));
        }
    }

    @Test
    void outOfMemoryIsOneLineAndExit13() throws Exception {
        Path tmp = Files.createDirectory(dir.resolve("tmp-oom"));
        ProcessBuilder pb = HwtoolProcess.builder(List.of(LAUNCHER.toString(), "msr", "list", "--all", "--json"));
        pb.environment().put("JAVA_TOOL_OPTIONS", "-Xmx3m");
        pb.environment().put("TMPDIR", tmp.toString());
        pb.redirectOutput(dir.resolve("oom.out").toFile()).redirectError(dir.resolve("oom.err").toFile());
        Process p = pb.start();
        int exit = end(p, "oom");
        List<String> err = Files.readAllLines(dir.resolve("oom.err")).stream()
                .filter(l -> !l.startsWith("Picked up JAVA_TOOL_OPTIONS")).toList();
        assertEquals(13, exit, String.join("\n", err));
        assertEquals(2, err.size(), "the reason and the fix: " + err);
        assertTrue(err.get(0).matches("hwtool: out of memory \\(the Java heap, at most \\d+ KiB\\)"), err.get(0));
        assertTrue(err.get(1).startsWith("hwtool: fix: give Java more memory: a larger -Xmx"), err.get(1));
        assertEquals("", Files.readString(dir.resolve("oom.out")), "nothing on stdout when a command fails");
    }

    @Test
    void aRuntimeThatCannotStartSaysWhyOnStderrAndExits1() throws Exception {
        ProcessBuilder pb = HwtoolProcess.builder(List.of(LAUNCHER.toString(), "caps"));
        pb.environment().put("JAVA_TOOL_OPTIONS", "-Xmx1m"); // below the JVM's own minimum: "Too small maximum heap"
        pb.redirectOutput(dir.resolve("vm.out").toFile()).redirectError(dir.resolve("vm.err").toFile());
        int exit = end(pb.start(), "vm");
        String err = Files.readString(dir.resolve("vm.err"));
        assertEquals(1, exit, err);
        assertTrue(err.contains("Error occurred during initialization of VM"), err);
        assertEquals("", Files.readString(dir.resolve("vm.out")), "the JVM's message on stderr, not on stdout");
    }
}
