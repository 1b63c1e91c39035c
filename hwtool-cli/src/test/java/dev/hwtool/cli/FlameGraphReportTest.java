package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import one.convert.Arguments;
import one.convert.FlameGraph;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --flamegraph} of the three reports on the simulator, without a browser: the page's
 * stacks (read back by the converter's own HTML parser) are the report's, and recordings that
 * have no call stacks are refused with the mode to record.
 */
class FlameGraphReportTest {

    @TempDir
    Path dir;

    /** The page's stacks as collapsed lines, sorted: what async-profiler reads back from it. */
    static String stacksOf(Path html) throws IOException {
        Arguments args = new Arguments();
        args.output = "collapsed";
        FlameGraph g = new FlameGraph(args);
        g.parseHtml(new StringReader(Files.readString(html)));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        g.dump(new PrintStream(out, true, StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8).lines().sorted().map(l -> l + "\n").reduce("", String::concat);
    }

    @Test
    void lbrReportsPageHoldsTheFoldedStacks() throws IOException {
        Path data = dir.resolve("cs.data");
        assertEquals(0, Run.of("lbr", "record", "--backend", "sim", "--profile", "skylake", "--filter", "call-stack",
                "-c", "29", "-o", data.toString(), "--", "calltree", "seed=3", "depth=5", "calls=3000").exit());
        Path folded = dir.resolve("cs.folded");
        Path html = dir.resolve("cs.html");
        Run r = Run.of("lbr", "report", "--folded", folded.toString(), "--flamegraph", html.toString(),
                data.toString());
        assertEquals(0, r.exit(), r.toString());
        String text = Files.readString(folded);
        assertFalse(text.isEmpty());
        assertEquals(text, stacksOf(html));

        // hwtool report of the same recording: the same LBR call stacks
        Path html2 = dir.resolve("report.html");
        Run s = Run.of("report", "--flamegraph", html2.toString(), data.toString());
        assertEquals(0, s.exit(), s.toString());
        assertEquals(text, stacksOf(html2));
        assertTrue(Files.readString(html2).contains(", LBR call stacks, period 29 · "), "the title says which stacks");
    }

    @Test
    void samplesWithoutCallStacksAreAFlatProfileOfTheReportsFunctions() throws IOException {
        Path data = dir.resolve("s.data");
        assertEquals(0, Run.of("record", "--backend", "sim", "--profile", "skylake", "-c", "500", "-o", data.toString(),
                "--", "calltree", "seed=1", "calls=5000").exit());
        Path html = dir.resolve("s.html");
        Run r = Run.of("report", "--flamegraph", html.toString(), data.toString());
        assertEquals(0, r.exit(), r.toString());
        Map<String, Long> rows = new TreeMap<>();
        for (Map<String, Object> m : SimRecordingTest.jsonLines(Run.of("report", "--json", "-n", "0", data.toString())
                .out())) {
            if ("symbol".equals(m.get("type"))) {
                rows.put((String) m.get("name"), ((Number) m.get("samples")).longValue());
            }
        }
        assertFalse(rows.isEmpty());
        StringBuilder flat = new StringBuilder();
        rows.forEach((name, n) -> flat.append(name).append(' ').append(n).append('\n'));
        assertEquals(flat.toString(), stacksOf(html), "one frame per row, its samples");
        String page = Files.readString(html);
        assertTrue(page.contains("<h1>SIMULATED (profile skylake), not this machine: calltree seed=1 calls=5000 · cycles:u,"
                + " flat, one frame per sample (for call stacks: hwtool lbr record --filter call-stack), period 500 · "),
                page.substring(0, Math.min(page.length(), 3000)));
    }

    @Test
    void branchStacksThatAreNotCallStacksAreRefusedWithTheModeToRecord() throws IOException {
        Path data = dir.resolve("any.data");
        assertEquals(0, Run.of("lbr", "record", "--backend", "sim", "--profile", "skylake", "-c", "50", "-o",
                data.toString(), "--", "calltree", "calls=200").exit());
        Path html = dir.resolve("any.html");
        Run r = Run.of("lbr", "report", "--flamegraph", html.toString(), data.toString());
        assertEquals(Cause.BAD_INPUT.exitCode(), r.exit(), r.toString());
        assertEquals(List.of("hwtool: lbr report --flamegraph: " + data + " was recorded with --filter any, whose branch"
                        + " stacks are not call chains", "hwtool: fix: record with hwtool lbr record --filter call-stack"),
                r.err().lines().toList());
        assertEquals("", r.out());
        assertFalse(Files.exists(html));
    }

    @Test
    void aSimulatedTraceWorkloadsBranchTraceCannotBeFoldedAndSaysSo() throws java.io.IOException {
        Path data = dir.resolve("bts.data");
        Path trace = Files.writeString(dir.resolve("t.trace"), "0x401000 0x402000 call\n0x401000 0x402000 ret\n");
        assertEquals(0, Run.of("bts", "record", "--backend", "sim", "--profile", "skylake", "-o", data.toString(), "--",
                "trace", trace.toString()).exit());
        Path html = dir.resolve("bts.html");
        Run r = Run.of("bts", "report", "--flamegraph", html.toString(), data.toString());
        assertEquals(Cause.UNSUPPORTED.exitCode(), r.exit(), r.toString());
        assertTrue(r.err().startsWith("hwtool: bts report --flamegraph: cannot tell calls from returns in " + data
                + ": its simulated workload (trace " + trace + ") has no program code to decode\n"), r.toString());
        assertTrue(r.err().contains("hwtool lbr record --filter call-stack"), r.toString());
        assertFalse(Files.exists(html));
    }
}
