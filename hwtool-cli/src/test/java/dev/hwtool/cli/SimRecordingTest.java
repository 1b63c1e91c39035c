package dev.hwtool.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.api.BranchType;
import dev.hwtool.api.Cause;
import dev.hwtool.sim.workload.ProgramImage;
import dev.hwtool.sim.workload.Retirement;
import dev.hwtool.sim.workload.Workloads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * lbr/bts record → report and stat on the simulator, end to end through the CLI, checked against
 * the workload's own branch sequence (the workload run again into a plain list).
 */
class SimRecordingTest {

    @TempDir
    Path dir;

    static final String LOOP = "loop iterations=200 body=8";
    static final String CALLTREE = "calltree depth=4 calls=5000";

    /** One taken branch of the workload. */
    record Branch(long from, long to, BranchType type) {
    }

    /** The workload's branches in program order (all at CPL 3 by default). */
    static List<Branch> truth(String spec) {
        List<Branch> out = new ArrayList<>();
        Workloads.parse(spec, Path.of(".")).run(new Retirement() {
            @Override
            public void branch(long from, long to, BranchType type, int cpl, boolean mispredicted) {
                out.add(new Branch(from, to, type));
            }

            @Override
            public void instructions(long count, int cpl) {
            }

            @Override
            public void cycles(long count) {
            }
        });
        return out;
    }

    static String hex(long a) {
        return "0x" + Long.toHexString(a);
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> jsonLines(String out) throws IOException {
        List<Map<String, Object>> l = new ArrayList<>();
        for (String line : out.lines().toList()) {
            l.add(JSON.std.mapFrom(line));
        }
        return l;
    }

    static Run run(String... args) {
        return Run.of(args);
    }

    @Test
    void lbrHotBranchesAreTheWorkloadsHottest() throws IOException {
        String file = dir.resolve("lbr.data").toString();
        Run rec = run("lbr", "record", "--backend", "sim", "--profile", "skylake", "-c", "500", "-o", file, "--",
                "loop", "iterations=2000", "body=8");
        assertEquals(0, rec.exit(), rec.toString());
        assertTrue(rec.err().matches("hwtool: lbr record: \\d+ samples, 0 lost, .* written to .*lbr\\.data"
                + " \\[simulated \\(profile skylake\\)]\\n"), rec.err());

        Run rep = run("lbr", "report", "--json", "--limit", "0", file);
        assertEquals(0, rep.exit(), rep.toString());
        List<Map<String, Object>> lines = jsonLines(rep.out());
        Map<String, Object> head = lines.getFirst();
        assertEquals("simulated (profile skylake)", head.get("backend"));
        assertEquals(true, head.get("simulated"));
        assertEquals("loop iterations=2000 body=8", head.get("target"));

        Map<String, Long> truth = new HashMap<>();
        for (Branch b : truth("loop iterations=2000 body=8")) {
            truth.merge(hex(b.from()) + ">" + hex(b.to()), 1L, Long::sum);
        }
        long max = truth.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        long sum = 0;
        List<Map<String, Object>> rows = lines.subList(1, lines.size());
        for (Map<String, Object> r : rows) {
            assertTrue(truth.containsKey(r.get("from") + ">" + r.get("to")), "a branch the workload took: " + r);
            sum += ((Number) r.get("count")).longValue();
        }
        assertEquals(((Number) head.get("entries")).longValue(), sum);
        // skylake keeps 32 entries: every sample carries a full stack once the loop has run 32 branches
        assertEquals(32 * ((Number) head.get("branch_samples")).longValue(), sum);
        long topTruth = truth.get(rows.getFirst().get("from") + ">" + rows.getFirst().get("to"));
        assertTrue(topTruth >= 0.9 * max, "the top row is among the hottest branches: " + topTruth + " of " + max);

        Run text = run("lbr", "report", file);
        assertTrue(text.out().contains("# backend: simulated (profile skylake) (not this machine)"), text.out());
    }

    /**
     * perf report reads what hwtool lbr record --backend sim writes, in branch mode by default (the
     * BRANCH_STACK feature), and counts what hwtool lbr report counts: one per LBR entry; outside
     * branch mode, the samples times the period (-c, as the period is not sampled).
     */
    @Test
    void perfReportCountsWhatLbrReportCounts() throws Exception {
        Require.tool("/usr/bin/perf");
        Path file = dir.resolve("report.data");
        assertEquals(0, run("lbr", "record", "--backend", "sim", "--profile", "skylake", "-c", "50", "-o",
                file.toString(), "--", "calltree", "depth=6", "calls=2000").exit());
        Run json = run("lbr", "report", file.toString(), "--json");
        assertEquals(0, json.exit(), json.toString());
        Map<String, Object> head = JSON.std.mapFrom(json.out().lines().findFirst().orElseThrow());
        long entries = ((Number) head.get("entries")).longValue();
        long samples = ((Number) head.get("samples")).longValue();
        assertTrue(entries > 1000, head.toString());
        assertEquals(entries, perfEventCount(file, "report", "--stdio"));
        assertEquals(entries, perfEventCount(file, "report", "--stdio", "--branch-stack", "--sort", "dso_from,dso_to"));
        assertEquals(50 * samples, perfEventCount(file, "report", "--stdio", "--no-branch-stack", "--sort", "dso,sym"));
    }

    /** perf's "# Event count (approx.): N"; perf must exit 0, never by a signal. */
    static long perfEventCount(Path file, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/perf"));
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("-i", file.toString()));
        Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), () -> cmd + "\n" + out);
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^# Event count \\(approx\\.\\): (\\d+)$")
                .matcher(out);
        assertTrue(m.find(), () -> cmd + "\n" + out);
        return Long.parseLong(m.group(1));
    }

    /**
     * perf itself as the reference: perf script -F brstack prints every entry of every sample of
     * the recording; counted per (from, to), they are the report's rows, count and mispredicts.
     */
    @Test
    void hotBranchCountsEqualPerfScriptsEntries() throws Exception {
        Require.tool("/usr/bin/perf");
        String file = dir.resolve("lbr.data").toString();
        assertEquals(0, run("lbr", "record", "--backend", "sim", "--profile", "skylake", "-c", "300", "-o", file, "--",
                "loop", "iterations=1000", "body=8").exit());
        Process p = new ProcessBuilder("/usr/bin/perf", "script", "-i", file, "-F", "brstack")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String script = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "perf script");
        Map<String, long[]> perf = new HashMap<>();
        for (String entry : script.split("\\s+")) {
            if (entry.isEmpty()) {
                continue;
            }
            String[] f = entry.split("/");
            long[] c = perf.computeIfAbsent(f[0] + ">" + f[1], k -> new long[2]);
            c[0]++;
            if (f[2].equals("M")) {
                c[1]++;
            }
        }
        List<Map<String, Object>> rows = jsonLines(run("lbr", "report", "--json", "--limit", "0", file).out());
        rows = rows.subList(1, rows.size());
        assertEquals(perf.size(), rows.size());
        for (Map<String, Object> r : rows) {
            long[] c = perf.get(r.get("from") + ">" + r.get("to"));
            assertEquals(c[0], ((Number) r.get("count")).longValue(), r.toString());
            assertEquals(c[1], ((Number) r.get("mispredicted")).longValue(), r.toString());
        }
    }

    @Test
    void callStackFoldedStacksFollowTheCallTree() throws IOException {
        String file = dir.resolve("cs.data").toString();
        Run rec = run("lbr", "record", "--backend", "sim", "--profile", "skylake", "--filter", "call-stack", "-c",
                "97", "-o", file, "--", "calltree", "depth=4", "calls=5000");
        assertEquals(0, rec.exit(), rec.toString());
        Path folded = dir.resolve("out.folded");
        Run rep = run("lbr", "report", "--folded", folded.toString(), file);
        assertEquals(0, rep.exit(), rep.toString());

        // the call tree's caller -> callee edges, and main's call sites, by the names of the workload's program image
        String spec = "calltree depth=4 calls=5000";
        Set<String> edges = new HashSet<>();
        Set<String> outerSites = new HashSet<>();
        // where main's code is when no call is open: a sample there is one frame, its ip (= the last branch's target)
        Set<String> mainLandings = new HashSet<>();
        Deque<Long> stack = new ArrayDeque<>();
        for (Branch b : truth(CALLTREE)) {
            if (b.type().isCall()) {
                if (stack.isEmpty()) {
                    outerSites.add(function(spec, b.from()));
                } else {
                    edges.add(function(spec, stack.peek()) + ";" + function(spec, b.to()));
                }
                stack.push(b.to());
            } else if (b.type().isReturn()) {
                stack.pop();
            }
            if (stack.isEmpty()) {
                mainLandings.add(function(spec, b.to()));
            }
        }
        List<String> lines = Files.readAllLines(folded);
        assertFalse(lines.isEmpty());
        assertEquals(lines.stream().sorted().toList(), lines, "sorted");
        int deepest = 0;
        long total = 0;
        for (String line : lines) {
            int space = line.lastIndexOf(' ');
            String[] frames = line.substring(0, space).split(";");
            total += Long.parseLong(line.substring(space + 1));
            deepest = Math.max(deepest, frames.length);
            assertTrue(frames.length <= 5, "main's call site and at most 4 calls: " + line);
            if (frames.length == 1) {
                assertTrue(mainLandings.contains(frames[0]), "a sample in main, no call open: " + line);
                continue;
            }
            assertTrue(outerSites.contains(frames[0]), "outermost is main's call site: " + line);
            for (int i = 1; i + 1 < frames.length; i++) {
                assertTrue(edges.contains(frames[i] + ";" + frames[i + 1]), "a call the tree made: " + line);
            }
        }
        assertEquals(5, deepest, "5000 calls reach depth 4");
        Map<String, Object> head = jsonLines(run("lbr", "report", "--json", file).out()).getFirst();
        assertEquals(((Number) head.get("branch_samples")).longValue(), total, "each sample one stack");
    }

    @Test
    void btsTraceIsTheWorkloadsBranchesAndHotPathsCountThem() throws IOException {
        String file = dir.resolve("bts.data").toString();
        Run rec = run("bts", "record", "--backend", "sim", "--profile", "skylake", "-o", file, "--", "loop",
                "iterations=200", "body=8");
        assertEquals(0, rec.exit(), rec.toString());
        List<Branch> truth = truth(LOOP);

        Run trace = run("bts", "report", "--trace", "--json", file);
        assertEquals(0, trace.exit(), trace.toString());
        List<Map<String, Object>> lines = jsonLines(trace.out());
        assertEquals(true, lines.getFirst().get("simulated"));
        List<Map<String, Object>> branches = lines.subList(1, lines.size());
        assertEquals(truth.size(), branches.size());
        for (int i = 0; i < truth.size(); i++) {
            assertEquals(hex(truth.get(i).from()), branches.get(i).get("from"), "branch " + i);
            assertEquals(hex(truth.get(i).to()), branches.get(i).get("to"), "branch " + i);
        }

        // hot paths of 3, counted here by a plain sliding window over the truth
        Map<List<Long>, Long> windows = new HashMap<>();
        for (int i = 0; i + 3 <= truth.size(); i++) {
            List<Long> key = new ArrayList<>();
            for (Branch b : truth.subList(i, i + 3)) {
                key.add(b.from());
                key.add(b.to());
            }
            windows.merge(key, 1L, Long::sum);
        }
        long top = windows.values().stream().mapToLong(Long::longValue).max().orElseThrow();
        Run rep = run("bts", "report", "--json", "--paths", "3", file);
        List<Map<String, Object>> r = jsonLines(rep.out());
        assertEquals((long) truth.size(), ((Number) r.getFirst().get("branches")).longValue());
        assertEquals((long) truth.size() - 2, ((Number) r.getFirst().get("windows")).longValue());
        Map<String, Object> first = r.stream().filter(m -> m.get("type").equals("path")).findFirst().orElseThrow();
        assertEquals(top, ((Number) first.get("count")).longValue());
        @SuppressWarnings("unchecked")
        List<Map<String, Object>> hops = (List<Map<String, Object>>) first.get("branches");
        List<Long> key = new ArrayList<>();
        for (Map<String, Object> h : hops) {
            key.add(Long.decode((String) h.get("from")));
            key.add(Long.decode((String) h.get("to")));
        }
        assertEquals(top, windows.get(key), "the reported path is one that many times in the truth");
    }

    /** A trace no program can retire (one address, two kinds of branch) has no image: its BTS recording cannot be folded. */
    @Test
    void btsFoldedOfASimulatedTraceIsRefusedWithoutWritingAnything() throws IOException {
        String file = dir.resolve("bts.data").toString();
        Path trace = Files.writeString(dir.resolve("t.trace"), "0x401000 0x402000 call\n0x401000 0x402000 ret\n");
        assertEquals(0, run("bts", "record", "--backend", "sim", "--profile", "skylake", "-o", file, "--", "trace",
                trace.toString()).exit());
        Path out = dir.resolve("x.folded");
        Run r = run("bts", "report", "--folded", out.toString(), file);
        assertEquals(Cause.UNSUPPORTED.exitCode(), r.exit(), r.toString());
        assertTrue(r.err().contains("its simulated workload (trace " + trace + ") has no program code"), r.toString());
        assertEquals("", r.out());
        assertFalse(Files.exists(out));
    }

    /**
     * The folded stacks of a simulated BTS recording are the workload's own call stacks: each
     * branch counted once in the stack it was taken in, the stack kept from the workload's calls
     * and returns and named by its program image; hwtool decoded them from the image's code.
     */
    @Test
    void btsFoldedOfASimulatedCallTreeIsItsCallStacksByName() throws IOException {
        String spec = "calltree seed=5 depth=5 fanout=3 calls=400";
        Path file = dir.resolve("bts.data");
        assertEquals(0, run("bts", "record", "--backend", "sim", "--profile", "skylake", "-o", file.toString(), "--",
                spec).exit());
        Path out = dir.resolve("x.folded");
        Run r = run("bts", "report", "-n", "0", "--folded", out.toString(), file.toString());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.err().contains("(400 calls, 400 returns, 0 branches not decodable)"), r.toString());
        Map<String, Long> expected = new java.util.TreeMap<>();
        Deque<String> stack = new ArrayDeque<>();
        stack.push("main");
        for (Branch b : truth(spec)) {
            expected.merge(String.join(";", stack.reversed()), 1L, Long::sum);
            if (b.type().isCall()) {
                stack.push(function(spec, b.to()));
            } else if (b.type().isReturn()) {
                stack.pop();
            }
        }
        StringBuilder text = new StringBuilder();
        expected.forEach((k, v) -> text.append(k).append(' ').append(v).append('\n'));
        assertEquals(text.toString(), Files.readString(out));
        assertTrue(r.out().contains("main+0x15 -> main\n"), r.out());
    }

    /** The function of the workload's program image that holds {@code addr}. */
    static String function(String spec, long addr) {
        return ProgramImage.of(Workloads.parse(spec, Path.of("."))).orElseThrow().functions().stream()
                .filter(f -> addr - f.start() >= 0 && addr - f.start() < f.size()).findFirst().orElseThrow().name();
    }

    @Test
    void aSecondRecordKeepsTheFirstAsOld() throws IOException {
        Path data = dir.resolve("hwtool.data");
        assertEquals(0, run("bts", "record", "--backend", "sim", "--profile", "skylake", "-o", data.toString(), "--",
                "loop", "iterations=3").exit());
        byte[] first = Files.readAllBytes(data);
        assertEquals(0, run("bts", "record", "--backend", "sim", "--profile", "skylake", "-o", data.toString(), "--",
                "loop", "iterations=5").exit());
        assertTrue(java.util.Arrays.equals(first, Files.readAllBytes(dir.resolve("hwtool.data.old"))));
    }

    @Test
    void aBadWorkloadSpecIsBadInputAndLeavesNoFile() throws IOException {
        Run r = run("lbr", "record", "--backend", "sim", "--profile", "skylake", "-o", dir.resolve("x").toString(), "--",
                "loop", "iterations=lots");
        assertEquals(Cause.BAD_INPUT.exitCode(), r.exit(), r.toString());
        assertTrue(r.err().startsWith("hwtool: loop: bad number for iterations"), r.toString());
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(0, s.count());
        }
    }

    @Test
    void callStackOnAProfileWithoutItIsRefused() throws IOException {
        Run r = run("lbr", "record", "--backend", "sim", "--profile", "core2", "--filter", "call-stack", "-o",
                dir.resolve("x").toString(), "--", "calltree");
        assertEquals(Cause.UNSUPPORTED.exitCode(), r.exit(), r.toString());
        assertFalse(r.err().contains("\tat "), r.toString());
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(0, s.count());
        }
    }

    /**
     * The words after -- reach the workload as given (issue 26): a trace file whose name holds a
     * blank, a quote, a backslash or a tab is one word for record and stat alike, never split again.
     */
    @Test
    void wordsAfterDashDashArePassedAsGiven() throws IOException {
        for (String name : List.of("my trace.txt", "it's \"quoted\" a\\b.txt", "tab\there.txt", " lead  and trail ")) {
            Path t = Files.writeString(dir.resolve(name), "0x401000 0x402000 call\n0x402010 0x401005 ret\n");
            for (String kind : List.of("lbr", "bts")) {
                Path data = dir.resolve(kind + ".data");
                List<String> args = new ArrayList<>(List.of(kind, "record", "--backend", "sim", "--profile", "skylake",
                        "-o", data.toString()));
                if (kind.equals("lbr")) {
                    args.addAll(List.of("-c", "1")); // a sample at every branch of the two
                }
                args.addAll(List.of("--", "trace", t.toString()));
                Run rec = Run.of(args.toArray(String[]::new));
                assertEquals(0, rec.exit(), name + ": " + rec);
                Run rep = Run.of(kind, "report", "--json", data.toString());
                assertEquals(0, rep.exit(), rep.toString());
                assertTrue(rep.out().matches("(?s).*0x0*401000.*"), name + ": " + rep.out());
            }
            Run stat = Run.of("stat", "--backend", "sim", "--profile", "skylake", "--json", "-e", "branches",
                    "--", "trace", t.toString());
            assertEquals(0, stat.exit(), name + ": " + stat);
            assertEquals(List.of("trace", t.toString()), StatTest.json(stat).get("command"));
            assertEquals(2, StatTest.count(StatTest.json(stat), "branches"), name + ": " + stat.out());
        }
        // One word is still a whole spec as written, blanks and all.
        Run one = Run.of("stat", "--backend", "sim", "--profile", "skylake", "--json", "-e", "branches", "--", "loop iterations=7 body=2");
        assertEquals(0, one.exit(), one.toString());
        assertEquals(truth("loop iterations=7 body=2").size(), StatTest.count(StatTest.json(one), "branches"), one.out());
    }

    @Test
    void statOnTheSimulator() throws IOException {
        long taken = truth("loop iterations=20000 body=8").size();
        Run r = Run.of("stat", "--backend", "sim", "--profile", "skylake", "--json", "-e",
                "task-clock,instructions,branches,msr/tsc/", "--", "loop", "iterations=20000", "body=8");
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> m = StatTest.json(r);
        assertEquals("simulated (profile skylake)", m.get("backend"));
        assertEquals(List.of("loop", "iterations=20000", "body=8"), m.get("command"));
        Map<String, Object> clock = StatTest.event(m, "task-clock");
        assertEquals(false, clock.get("supported"));
        assertTrue(((String) clock.get("error")).contains("no software events"), clock.toString());
        assertFalse(((String) clock.get("error")).startsWith("task-clock:"), "the name is not repeated");
        assertEquals(false, StatTest.event(m, "msr/tsc/").get("supported"));
        long branches = ((Number) StatTest.event(m, "branches").get("scaled")).longValue();
        assertTrue(Math.abs(branches - taken) <= taken / 100, "branches " + branches + " vs taken " + taken);
        assertTrue(StatTest.count(m, "instructions") > branches);

        Run text = Run.of("stat", "--backend", "sim", "--profile", "skylake", "-e", "cycles,page-faults", "--", "loop");
        assertEquals(0, text.exit(), text.toString());
        assertTrue(text.err().contains("Performance counter stats for 'loop' [simulated (profile skylake)]:"),
                text.err());
        assertTrue(text.err().contains("<not supported>      page-faults"), text.err());
        Run csv = Run.of("stat", "--backend", "sim", "--profile", "skylake", "-x", ",", "-e", "cycles", "--", "loop");
        assertEquals(0, csv.exit(), csv.toString());
        assertTrue(csv.err().matches("\\d+,,cycles,\\d+,[0-9.]+,,\\n"), csv.err());
    }

    @Test
    void statOnTheSimulatorWithNothingCountable() {
        Run r = Run.of("stat", "--backend", "sim", "--profile", "skylake", "-e", "page-faults", "--", "loop");
        assertEquals(Cause.UNSUPPORTED.exitCode(), r.exit(), r.toString());
        assertTrue(r.err().startsWith("hwtool: no event could be counted; page-faults: "), r.toString());
    }

    @Test
    void statOnTheSimulatorWithABadWorkload() {
        Run r = Run.of("stat", "--backend", "sim", "--profile", "skylake", "--", "nosuchworkload");
        assertEquals(Cause.BAD_INPUT.exitCode(), r.exit(), r.toString());
        assertTrue(r.err().contains("unknown workload"), r.toString());
    }
}
