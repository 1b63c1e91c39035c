package dev.hwtool.cli;

import dev.hwtool.api.BranchFilter;
import dev.hwtool.api.BranchStacks;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HotBranch;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.Recording;
import dev.hwtool.perfdata.PerfData;
import dev.hwtool.sim.SimulatedPlatform;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * hwtool-perfdata's own API, {@link PerfData}: a perf.data file, perf's or hwtool's, answers the
 * {@link BranchStacks} questions as perf itself and {@code hwtool lbr report} answer them. The
 * oracles are perf (its {@code perf script -F brstack} entries and {@code perf evlist} events, run
 * here on files perf wrote elsewhere) and the CLI's report of the same file; a simulated
 * recording's file answers as the recording did in memory, its program named through the
 * simulator's {@code ProgramImages} service.
 */
class PerfDataApiTest {

    private static final String PERF = "/usr/bin/perf";

    @TempDir
    Path dir;

    /** Every corpus file: hwtool's analyses answer for it exactly when {@code lbr report} does, and say why not in one line. */
    @TestFactory
    Stream<DynamicTest> everyFilePerfWroteAnswersAsLbrReportDoes() throws Exception {
        return PerfCorpusTest.files().stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> {
            Run report = Run.of("lbr", "report", "--json", "-n", "0", f.toString());
            try (PerfData data = PerfData.open(f)) {
                assertEquals("perf record", data.backend(), "a file hwtool did not write");
                assertFalse(data.simulated());
                if (report.exit() == 0) {
                    assertTrue(data.hasBranchStacks());
                    assertEquals(reportRows(report), rows(data.hottestBranches(0)), "lbr report --json's rows, in its order");
                } else {
                    assertFalse(data.hasBranchStacks(), report.toString());
                    HwException e = assertThrows(HwException.class, () -> data.hottestBranches(10));
                    assertEquals(Cause.BAD_INPUT, e.cause());
                    assertTrue(e.getMessage().contains("not an LBR recording"), e.getMessage());
                    assertTrue(e.getMessage().contains(String.join(", ", data.events())), e.getMessage());
                    assertFalse(e.getMessage().contains("\n"), e.getMessage());
                }
            }
        }));
    }

    /** The entries of perf's own LBR files, per (from, to), are those {@code perf script -F brstack} prints. */
    @TestFactory
    Stream<DynamicTest> branchStacksOfPerfsFilesAreCountedAsPerfScriptCountsThem() {
        Require.tool(PERF);
        return Stream.of("perf.data.branch_stack_hw_index", "perf.data.branch-4.14").map(n -> DynamicTest.dynamicTest(n, () -> {
            Path f = PerfCorpusTest.corpus().resolve(n);
            Map<String, Long> perf = new TreeMap<>();
            for (String tok : perf("script", "--no-itrace", "-i", f.toString(), "-F", "brstack").split("\\s+")) {
                String[] a = tok.split("/");
                if (a.length >= 2 && a[0].startsWith("0x")) {
                    perf.merge(a[0] + "->" + a[1], 1L, Long::sum);
                }
            }
            Map<String, Long> ours = new TreeMap<>();
            try (PerfData data = PerfData.open(f)) {
                for (HotBranch b : data.hottestBranches(0)) {
                    ours.merge(RecordingFile.hex(b.from()) + "->" + RecordingFile.hex(b.to()), b.count(), Long::sum);
                }
            }
            assertFalse(perf.isEmpty(), "perf script printed no branch of " + f);
            assertEquals(perf, ours, f.toString());
        }));
    }

    /**
     * The events, as {@code perf evlist} names them, of every file-mode file: their names come from
     * the header's EVENT_DESC feature. (A pipe's features come as records, which this perf's evlist
     * does not take names from: it makes them from the attr, "cycles:uH" where perf 6.12 wrote
     * "cycles:u", or prints none; hwtool gives the names the writer stored.)
     */
    @TestFactory
    Stream<DynamicTest> theEventsAreThoseOfPerfEvlist() throws Exception {
        Require.tool(PERF);
        return PerfCorpusTest.files().stream().filter(f -> !f.getFileName().toString().contains(".piped.")).map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> {
            List<String> perf = perf("evlist", "-i", f.toString()).lines().toList();
            try (PerfData data = PerfData.open(f)) {
                assertEquals(perf, data.events());
            }
        }));
    }

    /**
     * A simulated recording written to a file answers as it did in memory and as {@code lbr report}
     * reads the file: the same named rows, folded stacks and flame graph page. The names come from
     * the simulator's program image (no file on disk holds it), so they prove the service found.
     */
    @Test
    void aSimulatedRecordingsFileAnswersAsTheRecordingInMemory() throws IOException {
        Path file = dir.resolve("cs.data");
        List<String> inMemory;
        List<String> folded;
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake");
             Recording r = p.recorder().record(new RecordRequest.Lbr(RecordRequest.Privilege.USER,
                     BranchFilter.CALL_STACK, 29), p.workload("calltree seed=3 depth=5 calls=3000"))) {
            r.writePerfData(file);
            inMemory = rows(r.hottestBranches(0));
            folded = r.foldedStacks();
            r.writeFlameGraph(dir.resolve("memory.html"));
        }
        Path reportHtml = dir.resolve("report.html");
        Run report = Run.of("lbr", "report", "--json", "-n", "0", "--flamegraph", reportHtml.toString(), file.toString());
        assertEquals(0, report.exit(), report.toString());
        try (PerfData data = PerfData.open(file)) {
            assertTrue(data.simulated());
            assertEquals("simulated (profile skylake)", data.backend());
            assertEquals("calltree seed=3 depth=5 calls=3000", data.target());
            assertTrue(data.hasBranchStacks() && data.hasCallStacks());
            List<String> ours = rows(data.hottestBranches(0));
            assertEquals(inMemory, ours, "the rows in memory");
            assertEquals(reportRows(report), ours, "lbr report --json's rows");
            assertTrue(data.hottestBranches(0).stream().anyMatch(b -> b.toName().matches("f\\d+_\\d+")),
                    "named from the simulated program's functions (f1_2): " + ours.subList(0, Math.min(5, ours.size())));
            assertEquals(folded, data.foldedStacks());
            assertEquals(ours.subList(0, 3), rows(data.hottestBranches(3)), "a limit takes the first rows");
            Path html = dir.resolve("file.html");
            data.writeFlameGraph(html);
            assertEquals(Files.readString(reportHtml), Files.readString(html), "lbr report --flamegraph's page, title and all");
            assertEquals(Files.readString(dir.resolve("memory.html")), Files.readString(html), "the page in memory");
        }
    }

    /** A recording that is not call-stack answers its rows, and refuses to fold in one line saying how to record one. */
    @Test
    void aRecordingWithoutCallChainsRefusesToFold() {
        Path file = dir.resolve("any.data");
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake");
             Recording r = p.recorder().record(new RecordRequest.Lbr(RecordRequest.Privilege.USER,
                     BranchFilter.ANY, 29), p.workload("loop iterations=2000"))) {
            r.writePerfData(file);
        }
        try (PerfData data = PerfData.open(file)) {
            assertTrue(data.hasBranchStacks());
            assertFalse(data.hasCallStacks());
            assertFalse(data.hottestBranches(0).isEmpty());
            for (Executable call : List.<Executable>of(data::foldedStacks, () -> data.writeFlameGraph(dir.resolve("x.html")))) {
                HwException e = assertThrows(HwException.class, call);
                assertEquals(Cause.BAD_INPUT, e.cause());
                assertTrue(e.getMessage().contains("not call chains"), e.getMessage());
                assertTrue(e.remedy().orElseThrow().contains("CALL_STACK"), e.remedy().toString());
            }
            assertFalse(Files.exists(dir.resolve("x.html")), "no page for a refusal");
        }
    }

    /** Whatever is not a readable perf.data is refused in one line naming it, before anything is mapped. */
    @Test
    void whatIsNotPerfDataIsRefusedInOneLine() throws Exception {
        Path valid = PerfCorpusTest.corpus().resolve("perf.data.branch-4.14");
        Path text = Files.writeString(dir.resolve("notes.txt"), "not perf.data\n");
        Path empty = Files.createFile(dir.resolve("empty.data"));
        Path truncated = Files.write(dir.resolve("truncated.data"), Arrays.copyOf(Files.readAllBytes(valid), 100));
        Path fifo = dir.resolve("fifo");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
        assertTrue(mk.waitFor(30, TimeUnit.SECONDS) && mk.exitValue() == 0, "mkfifo");
        Map<Path, String> cases = Map.of(dir.resolve("missing.data"), "no such file", dir, "is a directory",
                fifo, "not a regular file", text, "", empty, "", truncated, "");
        cases.forEach((file, why) -> {
            HwException e = assertThrows(HwException.class, () -> PerfData.open(file).close(), file.toString());
            assertEquals(Cause.BAD_INPUT, e.cause(), e.getMessage());
            assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
            assertTrue(e.getMessage().contains(why), e.getMessage());
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
        });
    }

    /** A closed file refuses everything but another close. */
    @Test
    void aClosedFileRefusesEverything() throws Exception {
        PerfData data = PerfData.open(PerfCorpusTest.corpus().resolve("perf.data.branch-4.14"));
        data.close();
        data.close();
        for (Executable call : List.<Executable>of(data::backend, data::target, data::events, data::simulated,
                data::hasBranchStacks, () -> data.hottestBranches(1), data::foldedStacks,
                () -> data.writeFlameGraph(dir.resolve("closed.html")))) {
            assertThrows(IllegalStateException.class, call);
        }
        assertFalse(Files.exists(dir.resolve("closed.html")));
    }

    private static List<String> rows(List<HotBranch> rows) {
        List<String> out = new ArrayList<>();
        for (HotBranch b : rows) {
            out.add(RecordingFile.hex(b.from()) + " " + RecordingFile.hex(b.to()) + " " + b.fromName() + " "
                    + b.toName() + " " + b.type() + " " + b.count() + " " + b.mispredicted());
        }
        return out;
    }

    private static List<String> reportRows(Run report) throws IOException {
        List<String> out = new ArrayList<>();
        for (Map<String, Object> m : SimRecordingTest.jsonLines(report.out())) {
            if ("branch".equals(m.get("type"))) {
                out.add(m.get("from") + " " + m.get("to") + " " + m.get("from_symbol") + " " + m.get("to_symbol")
                        + " " + m.get("branch_type") + " " + m.get("count") + " " + m.get("mispredicted"));
            }
        }
        return out;
    }

    /** perf's standard output; its standard error is discarded, so it cannot block on a full pipe. */
    private static String perf(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(PERF));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), String.join(" ", cmd) + " did not finish");
        assertEquals(0, p.exitValue(), String.join(" ", cmd));
        return out;
    }
}
