package dev.hwtool.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * hwtool's reports on perf.data files nobody here wrote (google/perf_data_converter's testdata,
 * see perf-corpus/quipper/README.md) and on the variants perf makes here (several events, a group,
 * -c N, pipe mode, -z, perf inject), with {@code perf script} run in the test as the oracle: per
 * event and IP, the samples and their summed period of {@code hwtool report --json --sort ip}
 * equal those of {@code perf script -F event,ip,period}; per (from, to), the entries of
 * {@code hwtool lbr report} equal those of {@code perf script -F brstack}. AUX area data is
 * skipped by hwtool with a note, so the oracle is {@code perf script --no-itrace}.
 */
class PerfCorpusTest {

    private static final String PERF = "/usr/bin/perf";
    /** A few tenths of a second of user-mode work for software events to sample. */
    private static final List<String> WORKLOAD = List.of("sh", "-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done");
    /** The same work twice at once, on whichever CPUs the two shells land (no taskset). */
    private static final List<String> TWO_PROCESSES = List.of("sh", "-c", "sh -c '" + WORKLOAD.get(2) + "' & sh -c '"
            + WORKLOAD.get(2) + "'; wait");

    private static final AtomicInteger TRIED = new AtomicInteger();
    private static final AtomicInteger RIGHT = new AtomicInteger();

    @TempDir
    static Path dir;

    @BeforeAll
    static void perf() {
        Require.tool(PERF);
    }

    @AfterAll
    static void tally() {
        System.out.println("perf corpus: " + RIGHT.get() + " of " + TRIED.get()
                + " files read with perf script's counts");
    }

    static Path corpus() throws URISyntaxException {
        return Path.of(PerfCorpusTest.class.getResource("/perf-corpus/quipper").toURI());
    }

    static List<Path> files() throws IOException, URISyntaxException {
        try (Stream<Path> s = Files.list(corpus())) {
            return s.filter(p -> p.getFileName().toString().startsWith("perf.data.")
                    && !p.getFileName().toString().contains("corrupted")).sorted().toList();
        }
    }

    @TestFactory
    Stream<DynamicTest> samplesOfForeignFilesAreCountedAsPerfScriptCountsThem() throws Exception {
        return files().stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> sameAsPerf(f)));
    }

    @TestFactory
    Stream<DynamicTest> branchStacksOfForeignFilesAreCountedAsPerfScriptCountsThem() throws Exception {
        return Stream.of("perf.data.branch_stack_hw_index", "perf.data.branch-4.14").map(n -> DynamicTest.dynamicTest(n,
                () -> sameBranchesAsPerf(corpus().resolve(n))));
    }

    /** The variants perf makes: generated here, with this host's perf, so CI makes them with its own. */
    @TestFactory
    Stream<DynamicTest> samplesOfFilesPerfMakesHereAreCountedAsPerfScriptCountsThem() {
        record Variant(String name, List<String> record, boolean pipe) {
        }
        List<Variant> variants = List.of(
                new Variant("two-events", List.of("-e", "cpu-clock,task-clock"), false),
                new Variant("group", List.of("-e", "{cpu-clock,task-clock}"), false),
                new Variant("count", List.of("-e", "cpu-clock", "-c", "100000"), false),
                new Variant("pipe", List.of("-e", "cpu-clock,task-clock"), true),
                new Variant("compressed", List.of("-z", "-e", "cpu-clock,task-clock"), false),
                new Variant("compressed-pipe", List.of("-z", "-e", "cpu-clock", "-c", "200000"), true));
        List<DynamicTest> tests = new ArrayList<>();
        for (Variant v : variants) {
            tests.add(DynamicTest.dynamicTest(v.name(), () -> sameAsPerf(record(v.name(), v.record(), v.pipe()))));
        }
        // a tracepoint makes perf write PERF_RECORD_HEADER_TRACING_DATA, whose payload follows the
        // record unannounced by its size; tracefs needs root (skipped in CI's unprivileged leg only)
        tests.add(DynamicTest.dynamicTest("pipe-tracepoint", () -> {
            dev.hwtool.testing.Preconditions.root("perf record -e sched:sched_switch (tracefs)");
            Require.that(Files.isDirectory(Path.of("/sys/kernel/tracing/events/sched"))
                    || Files.isDirectory(Path.of("/sys/kernel/debug/tracing/events/sched")),
                    "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
            sameAsPerf(record("tracepoint", List.of("-e", "sched:sched_switch,cpu-clock"), true));
        }));
        tests.add(DynamicTest.dynamicTest("inject-of-compressed", () -> {
            Path in = record("to-inject", List.of("-z", "-e", "cpu-clock,task-clock"), false);
            Path out = dir.resolve("injected.data");
            run(List.of(PERF, "inject", "-i", in.toString(), "-o", out.toString()), null);
            sameAsPerf(out);
        }));
        return tests.stream();
    }

    /**
     * Records are read in perf's order (util/ordered-events.c: by time, flushed per
     * FINISHED_ROUND), not the file's: per sample, in order, the IP equals {@code perf script -F ip}'s
     * on the corpus (system-wide recordings of several CPUs among them); on recordings of two
     * processes made here, also the DSO equals {@code -F ip,dso}'s, so that no sample is read before
     * the MMAP2 that names it (plain, -z, and -z in pipe mode).
     */
    @TestFactory
    Stream<DynamicTest> samplesComeInPerfScriptsOrder() throws Exception {
        List<DynamicTest> tests = new ArrayList<>();
        for (Path f : files()) {
            if (!f.getFileName().toString().contains("intel_pt")) {
                tests.add(DynamicTest.dynamicTest(f.getFileName().toString(), () -> sameOrderAsPerf(f, false)));
            }
        }
        record Variant(String name, List<String> record, boolean pipe) {
        }
        for (Variant v : List.of(new Variant("two-processes", List.of("-e", "cpu-clock", "-c", "100000"), false),
                new Variant("two-processes-compressed", List.of("-z", "-e", "cpu-clock", "-c", "100000"), false),
                new Variant("two-processes-compressed-pipe", List.of("-z", "-e", "cpu-clock", "-c", "100000"), true))) {
            tests.add(DynamicTest.dynamicTest(v.name(),
                    () -> sameOrderAsPerf(record(v.name(), v.record(), v.pipe(), TWO_PROCESSES), true)));
        }
        return tests.stream();
    }

    private static void sameOrderAsPerf(Path f, boolean dso) throws Exception {
        Path noKallsyms = Files.writeString(dir.resolve("no-kallsyms"), "");
        List<String> perf = new ArrayList<>();
        String script = run(List.of(PERF, "script", "--no-itrace", "-i", f.toString(), "-F", dso ? "ip,dso" : "ip",
                "--kallsyms=" + noKallsyms), null);
        for (String line : script.lines().map(String::strip).filter(l -> !l.isEmpty()).toList()) {
            String[] t = line.split("\\s+", 2);
            perf.add(Long.parseUnsignedLong(t[0], 16) + (dso ? " " + t[1].replaceAll("^\\(|\\)$", "") : ""));
        }
        List<String> ours = new ArrayList<>();
        try (dev.hwtool.record.PerfDataFile data = dev.hwtool.record.PerfDataFile.open(f);
             dev.hwtool.record.Symbolizer names = new dev.hwtool.record.Symbolizer(noKallsyms)) {
            for (dev.hwtool.arch.perf.abi.PerfRecord r : data.records()) {
                names.add(r);
                if (r instanceof dev.hwtool.arch.perf.abi.PerfRecord.Sample x) {
                    ours.add(x.ip() + (dso ? " " + names.locate(x.pid(), x.ip(), x.cpumode()).scriptDso() : ""));
                }
            }
        }
        assertFalse(perf.isEmpty(), "perf script printed no sample of " + f);
        assertEquals(perf.size(), ours.size(), f.toString());
        for (int i = 0; i < perf.size(); i++) {
            assertEquals(perf.get(i), ours.get(i), f + ": sample " + i + " of " + perf.size());
        }
    }

    @Test
    void severalEventsGiveOneSectionEachAndEventPicksOne() throws Exception {
        Path f = corpus().resolve("perf.data.hw_and_sw-3.4");
        Run text = Run.of("report", f.toString(), "-n", "1");
        assertEquals(0, text.exit(), text.toString());
        assertTrue(text.out().contains("# Samples: 207 of event 'cycles'\n"), text.out());
        assertTrue(text.out().contains("# Samples: 4734 of event 'cpu-clock'\n"), text.out());
        // -c 1000000 without PERIOD in sample_type: each sample stands for 10^6 events
        assertTrue(text.out().contains("# Event count: 4734000000,"), text.out());
        Run one = Run.of("report", f.toString(), "--json", "-n", "0", "--event", "cpu-clock");
        assertEquals(0, one.exit(), one.toString());
        List<String> lines = one.out().lines().toList();
        assertEquals(4734L, ((Number) JSON.std.mapFrom(lines.getFirst()).get("samples")).longValue());
        for (String l : lines.subList(1, lines.size())) {
            assertEquals("cpu-clock", JSON.std.mapFrom(l).get("event"), l);
        }
        Run none = Run.of("report", f.toString(), "--event", "instructions");
        assertEquals(ExitCodes.USAGE, none.exit(), none.toString());
        assertTrue(none.err().contains("cycles, branch-misses, cpu-clock"), none.toString());
    }

    @Test
    void aMalformedFileIsRefusedInOneLine() throws Exception {
        refused(corpus().resolve("perf.data.piped.corrupted.zero_size_sample-3.2"), "header size 0");
    }

    @Test
    void anUnknownSampleTypeBitIsRefusedNotMisparsed() throws Exception {
        byte[] b = Files.readAllBytes(corpus().resolve("perf.data.group_desc-4.14"));
        ByteBuffer bb = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        int attrs = (int) bb.getLong(24);
        // perf_event_attr: u32 type, u32 size, u64 config, u64 sample_period, u64 sample_type
        bb.putLong(attrs + 24, bb.getLong(attrs + 24) | 1L << 40);
        Path f = dir.resolve("unknown-bit.data");
        Files.write(f, b);
        refused(f, "sample_type");
    }

    @Test
    void bigEndianIsRefused() throws Exception {
        byte[] b = Files.readAllBytes(corpus().resolve("perf.data.group_desc-4.14"));
        for (int i = 0; i < 4; i++) {
            byte t = b[i];
            b[i] = b[7 - i];
            b[7 - i] = t;
        }
        Path f = dir.resolve("big-endian.data");
        Files.write(f, b);
        refused(f, "big-endian");
    }

    @Test
    void auxAreaDataIsSkippedWithANote() throws Exception {
        Run r = Run.of("report", corpus().resolve("perf.data.intel_pt-4.14").toString());
        assertEquals(0, r.exit(), r.toString());
        assertEquals(1, r.err().lines().count(), r.toString());
        assertTrue(r.err().contains("note: skipped 14 AUX area records"), r.toString());
    }

    private static void refused(Path f, String why) {
        for (String cmd : List.of("report", "lbr")) {
            Run r = cmd.equals("lbr") ? Run.of("lbr", "report", f.toString()) : Run.of("report", f.toString());
            assertEquals(3, r.exit(), r.toString());
            assertEquals(1, r.err().lines().filter(l -> !l.isBlank()).count(), r.toString());
            assertTrue(r.err().contains(why), r.toString());
            assertFalse(r.err().contains("Exception"), r.toString());
        }
    }

    // ---- the oracle ------------------------------------------------------------------------------

    private static void sameAsPerf(Path f) throws Exception {
        TRIED.incrementAndGet();
        Map<String, long[]> perf = new TreeMap<>();
        String script = run(List.of(PERF, "script", "--no-itrace", "-i", f.toString(), "-F", "event,ip,period", "-G"), null);
        for (String line : script.lines().toList()) {
            // "   1000000 cycles:  ffffffff81234567"
            String[] t = line.trim().split("\\s+");
            assertEquals(3, t.length, "perf script line: " + line);
            String key = t[1].substring(0, t[1].length() - 1) + " " + Long.parseUnsignedLong(t[2], 16);
            long[] v = perf.computeIfAbsent(key, k -> new long[2]);
            v[0]++;
            v[1] += Long.parseLong(t[0]);
        }
        Run r = Run.of("report", "--json", "--sort", "ip", "-n", "0", f.toString());
        assertEquals(0, r.exit(), r.toString());
        Map<String, long[]> ours = new TreeMap<>();
        List<String> lines = r.out().lines().toList();
        for (String line : lines.subList(1, lines.size())) {
            Map<String, Object> m = JSON.std.mapFrom(line);
            String key = m.get("event") + " " + Long.parseUnsignedLong(((String) m.get("ip")).substring(2), 16);
            long[] v = ours.computeIfAbsent(key, k -> new long[2]);
            v[0] += ((Number) m.get("samples")).longValue();
            v[1] += ((Number) m.get("period")).longValue();
        }
        assertFalse(perf.isEmpty(), "perf script printed no sample of " + f);
        assertEquals(render(perf), render(ours), f.toString());
        RIGHT.incrementAndGet();
    }

    private static void sameBranchesAsPerf(Path f) throws Exception {
        TRIED.incrementAndGet();
        Map<String, Long> perf = new TreeMap<>();
        String script = run(List.of(PERF, "script", "--no-itrace", "-i", f.toString(), "-F", "brstack"), null);
        for (String tok : script.split("\\s+")) {
            String[] a = tok.split("/");
            if (a.length >= 2 && a[0].startsWith("0x")) {
                perf.merge(Long.parseUnsignedLong(a[0].substring(2), 16) + "->"
                        + Long.parseUnsignedLong(a[1].substring(2), 16), 1L, Long::sum);
            }
        }
        Run r = Run.of("lbr", "report", "--json", "-n", "0", f.toString());
        assertEquals(0, r.exit(), r.toString());
        Map<String, Long> ours = new TreeMap<>();
        List<String> lines = r.out().lines().toList();
        for (String line : lines.subList(1, lines.size())) {
            Map<String, Object> m = JSON.std.mapFrom(line);
            ours.merge(Long.parseUnsignedLong(((String) m.get("from")).substring(2), 16) + "->"
                    + Long.parseUnsignedLong(((String) m.get("to")).substring(2), 16),
                    ((Number) m.get("count")).longValue(), Long::sum);
        }
        assertFalse(perf.isEmpty(), "perf script printed no branch of " + f);
        assertEquals(perf, ours, f.toString());
        RIGHT.incrementAndGet();
    }

    private static String render(Map<String, long[]> m) {
        StringBuilder b = new StringBuilder();
        m.forEach((k, v) -> b.append(k).append(' ').append(v[0]).append(' ').append(v[1]).append('\n'));
        return b.toString();
    }

    /** perf record of {@link #WORKLOAD} into a file of the temporary directory; pipe mode through stdout. */
    private static Path record(String name, List<String> options, boolean pipe) throws Exception {
        return record(name, options, pipe, WORKLOAD);
    }

    private static Path record(String name, List<String> options, boolean pipe, List<String> workload) throws Exception {
        Path out = dir.resolve(name + ".data");
        List<String> cmd = new ArrayList<>(List.of(PERF, "record", "-q"));
        cmd.addAll(options);
        cmd.addAll(List.of("-o", pipe ? "-" : out.toString(), "--"));
        cmd.addAll(workload);
        run(cmd, pipe ? out : null);
        assertTrue(Files.size(out) > 0, out.toString());
        return out;
    }

    /** Runs a command; its stdout to {@code stdout} when given, else returned. */
    private static String run(List<String> cmd, Path stdout) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD);
        Path out = stdout != null ? stdout : Files.createTempFile(dir, "out", ".txt");
        pb.redirectOutput(out.toFile());
        Process p = pb.start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), String.join(" ", cmd) + " did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", cmd));
        return stdout != null ? "" : Files.readString(out, StandardCharsets.UTF_8);
    }
}
