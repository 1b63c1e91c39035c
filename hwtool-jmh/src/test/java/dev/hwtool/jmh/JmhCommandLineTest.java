package dev.hwtool.jmh;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The profiler as a JMH user meets it: {@code java -cp ... org.openjdk.jmh.Main} in a JVM of its
 * own, started without {@code --enable-native-access} (JMH passes the host's JVM options on to its
 * forks, so a host with the flag would hide a fork without it), the command line the README gives.
 */
class JmhCommandLineTest {

    private static final String PROF = "dev.hwtool.jmh.HwtoolProfiler";

    @TempDir
    Path dir;

    record Run(int exit, String out, String err) {
        String both() {
            return out + err;
        }
    }

    private Run jmh(String... args) throws IOException, InterruptedException {
        return jmh(List.of(), args);
    }

    private Run jmh(List<String> jvmOptions, String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-Djava.io.tmpdir=" + dir)); // a private jmh.lock: see pom.xml
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "org.openjdk.jmh.Main"));
        cmd.addAll(List.of(args));
        Path out = dir.resolve("stdout");
        Path err = dir.resolve("stderr");
        Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile()).start();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("JMH did not finish in 5 minutes: " + cmd);
        }
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    @Test
    void minusLprofListsItWithItsDescription() throws Exception {
        Run r = jmh("-lprof");
        assertEquals(0, r.exit(), r.both());
        String supported = r.out().substring(r.out().indexOf("Supported profilers:"));
        supported = supported.contains("Unsupported profilers:")
                ? supported.substring(0, supported.indexOf("Unsupported profilers:")) : supported;
        assertTrue(Pattern.compile("(?m)^\\s*" + Pattern.quote(PROF) + ": hwtool: events per operation .*"
                + Pattern.quote("(events=task-clock,instructions,cycles,branches,branch-misses; options: "
                + PROF + ":help)") + " \\(discovered\\)$").matcher(supported).find(), r.out());
    }

    @Test
    void theShortNameIsNotOneJmhResolves() throws Exception {
        // jmh-core ProfilerFactory: short names are its built-ins only; discovered profilers go by class name
        Run r = jmh("-prof", "hwtool", "SpinBench");
        assertNotEquals(0, r.exit(), r.both());
        assertTrue(r.err().contains("ClassNotFoundException: hwtool"), r.both());
    }

    @Test
    void helpShowsTheOptionsAndABadEventIsOneLine() throws Exception {
        Run help = jmh("-prof", PROF + ":help", "SpinBench");
        assertNotEquals(0, help.exit(), help.both());
        assertTrue(help.err().contains("Options accepted by " + PROF + ":") && help.err().contains("events=<event,...>"),
                help.both());

        Run bad = jmh("-prof", PROF + ":events=task-clock,nosuch", "SpinBench");
        assertEquals(1, bad.exit(), bad.both());
        assertEquals(List.of("Profilers failed to initialize, exiting.", "events: unknown event 'nosuch'"),
                bad.err().lines().filter(l -> !l.startsWith("WARNING: ")) // JMH's own sun.misc.Unsafe warnings
                        .map(l -> l.replaceFirst("(nosuch').*", "$1")).toList(), bad.both());
        assertFalse(bad.both().contains("\tat "), "no stack trace: " + bad.both());
    }

    @Test
    void aRealRunGivesNanosecondsPerOperationAndSaysOnceWhatItCannotCount() throws Exception {
        Preconditions.perfCountsOwnProcesses();
        boolean pmu = Preconditions.corePmu().isPresent();
        Path json = dir.resolve("result.json");
        Run r = jmh(SpinBench.class.getName() + ".spin", "-f", "1", "-wi", "1", "-w", "200ms", "-i", "2", "-r", "300ms",
                "-bm", "avgt", "-tu", "ns", "-prof", PROF + ":events=task-clock,page-faults,cycles",
                "-rf", "json", "-rff", json.toString());
        assertEquals(0, r.exit(), r.both());
        // the profiler gave the fork --enable-native-access: no JEP 472 warning from it
        assertFalse(r.both().contains("WARNING: A restricted method"), r.both());

        List<?> results = JSON.std.listFrom(json.toFile());
        assertEquals(1, results.size());
        Map<?, ?> secondary = (Map<?, ?>) ((Map<?, ?>) results.getFirst()).get("secondaryMetrics");
        Map<?, ?> clock = (Map<?, ?>) secondary.get("hwtool.task-clock");
        assertEquals("ns/op", clock.get("scoreUnit"), secondary.toString());
        double nsPerOp = ((Number) clock.get("score")).doubleValue();
        assertTrue(nsPerOp > 0 && Double.isFinite(nsPerOp), "task-clock per op: " + nsPerOp);
        assertEquals("#/op", ((Map<?, ?>) secondary.get("hwtool.page-faults")).get("scoreUnit"), secondary.toString());
        assertFalse(r.out().contains("NaN"), r.out());

        Matcher said = Pattern.compile("(?m)^# hwtool: cycles: not counted: .+$").matcher(r.out());
        if (pmu) {
            assertTrue(((Number) ((Map<?, ?>) secondary.get("hwtool.cycles")).get("score")).doubleValue() > 10_000,
                    "10 000 dependent multiply-adds per op: " + secondary);
            assertFalse(said.find(), r.out());
        } else {
            assertFalse(secondary.containsKey("hwtool.cycles"), "no row for an event that was not counted: " + secondary);
            assertTrue(said.find(), r.out());
            assertTrue(said.group().contains("no hardware PMU"), said.group());
            assertTrue(said.start() < r.out().indexOf("# Warmup Iteration   1:"), "said in the fork's header: " + r.out());
            assertFalse(said.find(), "said once: " + r.out());
        }
    }

    @Test
    void withoutWarmupTheFirstIterationIsLeftOutAndSaidSo() throws Exception {
        Preconditions.perfCountsOwnProcesses();
        Path json = dir.resolve("result.json");
        Run r = jmh(SpinBench.class.getName() + ".spin", "-f", "1", "-wi", "0", "-i", "2", "-r", "300ms",
                "-bm", "avgt", "-tu", "ns", "-prof", PROF + ":events=task-clock", "-rf", "json", "-rff", json.toString());
        assertEquals(0, r.exit(), r.both());
        assertEquals(1, r.out().lines().filter(l -> l.startsWith("# hwtool: iteration 1 not counted: JMH starts its"
                + " worker threads after")).count(), r.out());
        Map<?, ?> clock = (Map<?, ?>) ((Map<?, ?>) ((Map<?, ?>) JSON.std.listFrom(json.toFile()).getFirst())
                .get("secondaryMetrics")).get("hwtool.task-clock");
        // JMH's rawData: one list per fork, one value per iteration that gave the result
        assertEquals(List.of(1), ((List<?>) clock.get("rawData")).stream().map(f -> ((List<?>) f).size()).toList(),
                clock.toString());
        // and the score is that one value: the left-out iteration is not averaged in as 0
        double only = ((Number) ((List<?>) ((List<?>) clock.get("rawData")).getFirst()).getFirst()).doubleValue();
        assertEquals(only, ((Number) clock.get("score")).doubleValue(), only * 1e-9, clock.toString());
    }

    @Test
    void withoutForksTheHostCountsWithTheFlagItWasGiven() throws Exception {
        Preconditions.perfCountsOwnProcesses();
        Path json = dir.resolve("result.json");
        Run r = jmh(List.of("--enable-native-access=ALL-UNNAMED"), SpinBench.class.getName() + ".spin", "-f", "0",
                "-wi", "1", "-w", "100ms", "-i", "2", "-r", "200ms", "-bm", "avgt", "-tu", "ns",
                "-prof", PROF + ":events=task-clock,cycles", "-rf", "json", "-rff", json.toString());
        assertEquals(0, r.exit(), r.both());
        Map<?, ?> secondary = (Map<?, ?>) ((Map<?, ?>) JSON.std.listFrom(json.toFile()).getFirst()).get("secondaryMetrics");
        assertEquals("ns/op", ((Map<?, ?>) secondary.get("hwtool.task-clock")).get("scoreUnit"), secondary.toString());
        long said = r.out().lines().filter(l -> l.startsWith("# hwtool: cycles: not counted: ")).count();
        assertEquals(Preconditions.corePmu().isPresent() ? 0 : 1, said, "said once, on a line of its own: " + r.out());
        assertFalse(r.out().contains("NaN"), r.out());
    }
}
