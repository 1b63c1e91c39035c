package dev.hwtool.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.api.Cause;
import dev.hwtool.sim.script.Scenarios;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** hwtool sim run / list end to end: output, JSON lines, stdin and every exit code. */
class SimCommandTest {

    private static final String SCRIPT = """
            # a little scenario
            wrmsr IA32_DEBUGCTL.LBR 1
            branch 0x401000 0x402000 mispredict
            rdmsr IA32_DEBUGCTL
            lbr
            expect lbr.count 1
            expect-fault wrmsr IA32_DEBUGCTL 0x10000
            """;

    private static Path file(Path dir, String text) throws IOException {
        Path f = dir.resolve("s.hwsim");
        Files.writeString(f, text);
        return f;
    }

    /** A count below 1 is a usage error (exit 2), before anything is mounted or run. */
    @Test
    void aCpuCountBelowOneIsAUsageError(@TempDir Path dir) {
        for (String n : new String[]{"0", "-1"}) {
            Run m = Run.of("sim", "mount", "--cpus", n, dir.toString());
            assertEquals(ExitCodes.USAGE, m.exit(), m.toString());
            assertTrue(m.err().contains("--cpus needs N >= 1"), m.toString());
            Run e = Run.of("sim", "exec", "--cpus", n, "--", "true");
            assertEquals(ExitCodes.USAGE, e.exit(), e.toString());
        }
    }

    @Test
    void textShowsOutputOkLinesAndASummary(@TempDir Path dir) throws IOException {
        Run r = Run.of("sim", "run", file(dir, SCRIPT).toString());
        assertEquals(0, r.exit(), r.toString());
        List<String> lines = r.out().lines().toList();
        assertEquals("line 4: rdmsr IA32_DEBUGCTL = 0x0000000000000001  (CPU 0)", lines.get(0));
        assertTrue(lines.get(1).startsWith("LBR on CPU 0 (legacy, LBR_FMT 5, depth 32): 1 entry"), r.toString());
        assertTrue(lines.get(2).contains("from 0x0000000000401000 to 0x0000000000402000  mispredicted yes"), r.toString());
        assertEquals("ok   line 6: expect lbr.count 1  (CPU 0)", lines.get(3));
        assertEquals("ok   line 7: expect-fault wrmsr IA32_DEBUGCTL 0x10000  (CPU 0)", lines.get(4));
        assertEquals("SIMULATED, profile skylake, CPUs 0,1,2,3,4,5,6,7: 6 commands, 2 expectations held", lines.get(5));
        assertEquals(6, lines.size());
        assertEquals("", r.err());
    }

    @Test
    void profileOptionIsTheDefaultAndTheScriptWins(@TempDir Path dir) throws IOException {
        Run core2 = Run.of("sim", "run", "--profile", "core2", file(dir, "expect IA32_PERF_CAPABILITIES.FW_WRITE 0\n").toString());
        assertEquals(0, core2.exit(), core2.toString());
        assertTrue(core2.out().contains("profile core2"), core2.out());
        Run mine = Run.of("sim", "run", "--profile", "core2", file(dir, "profile skylake\nexpect IA32_PERF_CAPABILITIES.FW_WRITE 1\n").toString());
        assertEquals(0, mine.exit(), mine.toString());
        assertTrue(mine.out().contains("profile skylake"), mine.out());
    }

    @Test
    void jsonIsOneObjectPerCommandAllSimulated(@TempDir Path dir) throws IOException {
        Run r = Run.of("sim", "run", "--json", file(dir, SCRIPT).toString());
        assertEquals(0, r.exit(), r.toString());
        List<Map<String, Object>> objects = new ArrayList<>();
        for (String line : r.out().lines().toList()) {
            objects.add(JSON.std.mapFrom(line));
        }
        assertEquals(6, objects.size());
        for (Map<String, Object> m : objects) {
            assertEquals(true, m.get("simulated"), m.toString());
            assertEquals(List.of("simulated", "line", "source", "cpu", "outcome", "value", "expected", "text"),
                    List.copyOf(m.keySet()));
        }
        assertEquals("done", objects.get(0).get("outcome"));
        assertEquals(2, objects.get(0).get("line"));
        assertEquals("value", objects.get(2).get("outcome"));
        assertEquals("0x0000000000000001", objects.get(2).get("value"));
        assertEquals(0, objects.get(2).get("cpu"));
        assertEquals("report", objects.get(3).get("outcome"));
        assertTrue(((String) objects.get(3).get("text")).contains("1 entry"));
        assertEquals("passed", objects.get(4).get("outcome"));
        assertEquals("0x0000000000000001", objects.get(4).get("expected"));
        assertEquals("faulted", objects.get(5).get("outcome"));
    }

    @Test
    void aFailedExpectationExits14WithOneLine(@TempDir Path dir) throws IOException {
        Path f = file(dir, "branch 1 2\nexpect lbr.count 1\nbranch 3 4\n");
        Run r = Run.of("sim", "run", f.toString());
        assertEquals(14, r.exit(), r.toString());
        assertEquals(Cause.EXPECTATION_FAILED.exitCode(), r.exit());
        assertEquals("hwtool: " + f + ":2: expect lbr.count: expected 0x1, got 0x0 (CPU 0)\n", r.err());
        Run j = Run.of("sim", "run", "--json", f.toString());
        assertEquals(14, j.exit());
        List<String> lines = j.out().lines().toList();
        assertEquals(2, lines.size(), j.toString());
        Map<String, Object> last = JSON.std.mapFrom(lines.getLast());
        assertEquals("failed", last.get("outcome"));
        assertEquals("expectation_failed", last.get("cause"));
        assertEquals(14, last.get("exit_code"));
        assertEquals("0x0000000000000001", last.get("expected"));
        assertEquals("0x0000000000000000", last.get("value"));
        assertEquals(true, last.get("simulated"));
    }

    @Test
    void anUnexpectedFaultExits10(@TempDir Path dir) throws IOException {
        Run r = Run.of("sim", "run", file(dir, "rdmsr IA32_LBR_CTL\n").toString());
        assertEquals(10, r.exit(), r.toString());
        assertTrue(r.err().startsWith("hwtool: "), r.err());
        assertTrue(r.err().contains("s.hwsim:1: simulated CPU 0 (profile skylake): RDMSR 0x14CE raised #GP(0)"), r.err());
        assertEquals(1, r.err().lines().count());
    }

    @Test
    void aScriptThatDoesNotParseExits3AndRunsNothing(@TempDir Path dir) throws IOException {
        Run r = Run.of("sim", "run", file(dir, "rdmsr IA32_DEBUGCTL\nbranch 1\n").toString());
        assertEquals(3, r.exit(), r.toString());
        assertEquals("", r.out(), "nothing ran");
        assertTrue(r.err().contains("s.hwsim:2: usage: branch FROM TO"), r.err());
        Run missing = Run.of("sim", "run", dir.resolve("none.hwsim").toString());
        assertEquals(3, missing.exit(), missing.toString());
        assertEquals("hwtool: cannot read " + dir.resolve("none.hwsim") + ": no such file\n", missing.err());
        Run builtin = Run.of("sim", "run", "builtin:no-such-rule");
        assertEquals(3, builtin.exit());
        assertEquals("hwtool: no shipped scenario 'no-such-rule' (see 'hwtool sim list')\n", builtin.err());
    }

    @Test
    void standardInput() {
        InputStream saved = SimRunCommand.stdin;
        SimRunCommand.stdin = new ByteArrayInputStream("cpus 1\nbranches 3\nexpect instructions 3\n".getBytes(StandardCharsets.UTF_8));
        try {
            Run r = Run.of("sim", "run", "-");
            assertEquals(0, r.exit(), r.toString());
            assertTrue(r.out().contains("ok   line 3: expect instructions 3"), r.out());
            assertTrue(r.out().contains("CPUs 0: 3 commands, 1 expectations held"), r.out());
        } finally {
            SimRunCommand.stdin = saved;
        }
        SimRunCommand.stdin = new ByteArrayInputStream("expect instructions 1\n".getBytes(StandardCharsets.UTF_8));
        try {
            Run r = Run.of("sim", "run", "-");
            assertEquals(14, r.exit(), r.toString());
            assertTrue(r.err().startsWith("hwtool: <stdin>:1: expect instructions"), r.err());
        } finally {
            SimRunCommand.stdin = saved;
        }
    }

    @Test
    void shippedScenariosRunByNameAndAreListed() throws IOException {
        Run r = Run.of("sim", "run", "builtin:bts-table-17-6-row4-store-cpl-above-0");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("ok   line 12: expect btm.stored 1"), r.out());
        Run list = Run.of("sim", "list");
        assertEquals(0, list.exit());
        for (Scenarios.Entry e : Scenarios.list()) {
            assertTrue(list.out().contains(e.name() + "  ") && list.out().contains(e.description()), e.name());
        }
        Run json = Run.of("sim", "list", "--json");
        List<Object> items = JSON.std.listFrom(json.out());
        assertEquals(Scenarios.list().size(), items.size());
    }

    @Test
    void helpListsExitCode14() {
        Run r = Run.of("sim", "run", "--help");
        assertEquals(0, r.exit());
        assertTrue(r.out().contains("14   expectation failed") || r.out().contains(" 14 ") , r.out());
    }
}
