package dev.hwtool.cli;

import dev.hwtool.api.BranchFilter;
import dev.hwtool.api.HotBranch;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.Recording;
import dev.hwtool.sim.SimulatedPlatform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The library's in-memory {@link Recording} answers as {@code hwtool lbr report} does for the same
 * recording written to a file: the same rows, the same folded stacks, the same flame graph (here
 * the renderer is on the class path, as it is in the CLI).
 */
class InMemoryRecordingReportTest {

    @TempDir
    Path dir;

    @Test
    void theRecordingInMemoryIsTheReportOfItsFile() throws IOException {
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake");
             Recording r = p.recorder().record(new RecordRequest.Lbr(RecordRequest.Privilege.USER,
                     BranchFilter.CALL_STACK, 29), p.workload("calltree seed=3 depth=5 calls=3000"))) {
            Path data = dir.resolve("cs.data");
            r.writePerfData(data);

            List<String> rows = new ArrayList<>();
            for (Map<String, Object> m : SimRecordingTest.jsonLines(Run.of("lbr", "report", "--json", "-n", "0",
                    data.toString()).out())) {
                if ("branch".equals(m.get("type"))) {
                    rows.add(m.get("from") + " " + m.get("to") + " " + m.get("from_symbol") + " " + m.get("to_symbol")
                            + " " + m.get("count"));
                }
            }
            List<String> ours = new ArrayList<>();
            for (HotBranch b : r.hottestBranches(0)) {
                ours.add(RecordingFile.hex(b.from()) + " " + RecordingFile.hex(b.to()) + " " + b.fromName() + " "
                        + b.toName() + " " + b.count());
            }
            assertFalse(ours.isEmpty());
            assertEquals(rows, ours, "lbr report --json's rows, in its order");

            Path folded = dir.resolve("cs.folded");
            Path html = dir.resolve("cs.html");
            Path reportHtml = dir.resolve("report.html");
            Run report = Run.of("lbr", "report", "--folded", folded.toString(), "--flamegraph", reportHtml.toString(),
                    data.toString());
            assertEquals(0, report.exit(), report.toString());
            assertEquals(Files.readString(folded), String.join("\n", r.foldedStacks()) + "\n");

            r.writeFlameGraph(html);
            assertEquals(Files.readString(folded), FlameGraphReportTest.stacksOf(html), "the page holds the stacks");
            assertTrue(Files.readString(html).contains("SIMULATED (profile skylake), not this machine: calltree seed=3"
                    + " depth=5 calls=3000"));
            assertEquals(Files.readString(reportHtml), Files.readString(html), "lbr report --flamegraph's page, title and all");
        }
    }
}
