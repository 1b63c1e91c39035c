package dev.hwtool.sim.record;

import dev.hwtool.api.BranchFilter;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HotBranch;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.api.Recording;
import dev.hwtool.sim.SimulatedPlatform;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Recording analysis with no file (issue 25): record on the simulator, then ask the recording.
 * perf itself is the oracle: the in-memory recording written as perf.data is read by
 * {@code perf script}, whose branch entries must be exactly the hottest branches' counts.
 */
class InMemoryRecordingTest {

    static final String CALLTREE = "calltree seed=5 depth=5 fanout=2 calls=400";

    @Test
    void theHottestBranchesAreTheBranchEntriesPerfReads(@TempDir Path dir) throws Exception {
        Preconditions.tool(PerfScriptCrossCheckTest.PERF.toString(), "linux-perf");
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake");
             Recording r = p.recorder().record(new RecordRequest.Lbr(Privilege.USER, BranchFilter.ANY, 20),
                     p.workload(CALLTREE))) {
            assertTrue(r.backend().startsWith("simulated (profile skylake)"), r.backend());
            assertEquals(CALLTREE, r.target());
            assertTrue(r.summary().samples() > 10, r.summary().toString());
            Path file = dir.resolve("lbr.data");
            r.writePerfData(file);
            assertEquals(r.size(), Files.size(file));

            Map<String, Long> perf = new HashMap<>();
            List<String> lines = PerfScriptCrossCheckTest.perfScript(file, "brstack");
            assertEquals(r.summary().samples(), lines.size(), "one perf script line per sample");
            for (String line : lines) {
                for (String entry : line.split("\\s+")) {
                    String[] f = entry.split("/");
                    perf.merge(Long.parseUnsignedLong(f[0].substring(2), 16) + ">" + Long.parseUnsignedLong(f[1].substring(2), 16), 1L, Long::sum);
                }
            }
            List<HotBranch> all = r.hottestBranches(0);
            Map<String, Long> ours = new HashMap<>();
            for (HotBranch b : all) {
                ours.put(b.from() + ">" + b.to(), b.count());
            }
            assertEquals(perf, ours, "per (from, to): the recording's entries as perf script reads them");
            for (int i = 1; i < all.size(); i++) {
                assertTrue(all.get(i - 1).count() >= all.get(i).count(), "most frequent first");
            }
            List<HotBranch> top = r.hottestBranches(3);
            assertEquals(all.subList(0, 3), top);
            // named from the simulated program's own image, not hex
            assertFalse(top.getFirst().fromName().startsWith("0x"), top.getFirst().toString());
        }
    }

    @Test
    void callStacksFoldAndDrawWithNoFileBetween(@TempDir Path dir) throws Exception {
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake");
             Recording r = p.recorder().record(new RecordRequest.Lbr(Privilege.USER, BranchFilter.CALL_STACK, 20),
                     p.workload(CALLTREE))) {
            List<String> folded = r.foldedStacks();
            assertFalse(folded.isEmpty());
            long total = 0;
            for (String line : folded) {
                int space = line.lastIndexOf(' ');
                assertTrue(space > 0 && !line.substring(0, space).contains(" "), line);
                assertFalse(line.startsWith("0x"), "the outermost frame is a function: " + line);
                total += Long.parseLong(line.substring(space + 1));
            }
            assertTrue(total > 0 && total <= r.summary().samples(), total + " of " + r.summary().samples());

            Path html = dir.resolve("calls.html");
            boolean renderer = PerfScriptCrossCheckTest.class.getClassLoader().getResource("one/convert/FlameGraph.class") != null;
            if (renderer) {
                r.writeFlameGraph(html);
                String page = Files.readString(html);
                assertTrue(page.contains("SIMULATED (profile skylake), not this machine: " + CALLTREE),
                        "the title says what was recorded");
            } else {
                HwException e = assertThrows(HwException.class, () -> r.writeFlameGraph(html));
                assertEquals(Cause.UNSUPPORTED, e.cause());
                assertTrue(e.remedy().orElseThrow().contains("jfr-converter"), e.toString());
                assertFalse(Files.exists(html), "nothing written");
            }
        }
    }

    @Test
    void anAnalysisTheRecordingCannotGiveSaysWhy() {
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake");
             Recording any = p.recorder().record(new RecordRequest.Lbr(Privilege.USER, BranchFilter.ANY, 20),
                     p.workload(CALLTREE));
             Recording bts = p.recorder().record(new RecordRequest.Bts(Privilege.USER),
                     p.workload("loop seed=3 iterations=20 body=4"))) {
            HwException notChains = assertThrows(HwException.class, any::foldedStacks);
            assertEquals(Cause.BAD_INPUT, notChains.cause());
            assertTrue(notChains.getMessage().contains("not call chains"), notChains.getMessage());
            HwException notLbr = assertThrows(HwException.class, () -> bts.hottestBranches(5));
            assertEquals(Cause.BAD_INPUT, notLbr.cause());
            assertTrue(notLbr.getMessage().contains("not an LBR recording"), notLbr.getMessage());
            assertThrows(IllegalArgumentException.class, () -> any.hottestBranches(-1));
        }
    }

    @Test
    void perfDataIsWrittenWholeAndAnOldFileKept(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("perf.data");
        Files.writeString(file, "an earlier recording");
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake");
             Recording r = p.recorder().record(new RecordRequest.Lbr(Privilege.USER, BranchFilter.ANY, 50),
                     p.workload(CALLTREE))) {
            r.writePerfData(file);
            assertEquals("an earlier recording", Files.readString(dir.resolve("perf.data.old")), "perf record's convention");
            byte[] magic = new byte[8];
            System.arraycopy(Files.readAllBytes(file), 0, magic, 0, 8);
            assertArrayEquals("PERFILE2".getBytes(), magic);
            HwException e = assertThrows(HwException.class, () -> r.writePerfData(dir.resolve("no/such/dir/x.data")));
            assertEquals(Cause.OS_ERROR, e.cause());
            try (var files = Files.list(dir)) {
                assertEquals(List.of("perf.data", "perf.data.old"), files.map(f -> f.getFileName().toString()).sorted().toList(),
                        "no temporary file left");
            }
        }
    }

    @Test
    void aClosedRecordingRefusesEverything() {
        Recording r;
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake")) {
            r = p.recorder().record(new RecordRequest.Lbr(Privilege.USER, BranchFilter.ANY, 50), p.workload(CALLTREE));
        }
        r.hottestBranches(1);
        r.close();
        r.close();
        assertThrows(IllegalStateException.class, () -> r.hottestBranches(1));
        assertThrows(IllegalStateException.class, r::foldedStacks);
        assertThrows(IllegalStateException.class, r::summary);
        assertThrows(IllegalStateException.class, () -> r.writePerfData(Path.of("unused.data")));
    }
}
