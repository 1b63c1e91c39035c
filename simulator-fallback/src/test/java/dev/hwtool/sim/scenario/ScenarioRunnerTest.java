package dev.hwtool.sim.scenario;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.sim.script.Scenarios;
import dev.hwtool.sim.script.ScriptParser;
import dev.hwtool.sim.scenario.StepResult.Outcome;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Running scripts: results, the machine they choose, and how and where they stop. */
class ScenarioRunnerTest {

    private static ScenarioResult run(String text) {
        return new ScenarioRunner().run(ScriptParser.parse("t.hwsim", text));
    }

    private static ScenarioException failure(String text) {
        return assertThrows(ScenarioException.class, () -> run(text));
    }

    @Test
    void resultsPerCommand() {
        List<StepResult> seen = new ArrayList<>();
        ScenarioResult r = new ScenarioRunner().run(ScriptParser.parse("t.hwsim", """
                cpus 2
                cpu 1
                wrmsr IA32_DEBUGCTL.LBR 1
                rdmsr ia32_debugctl
                branch 0x401000 0x402000 mispredict
                mem write64 0x100 0x1234
                mem read64 0x100
                lbr
                expect lbr.count 1
                expect-fault wrmsr IA32_DEBUGCTL 0x10000
                """), seen::add);
        assertEquals(r.steps(), seen);
        assertEquals("skylake", r.profile());
        assertEquals(List.of(0, 1), r.cpus());
        assertEquals(2, r.expectations());
        assertTrue(r.steps().getFirst().cpu().isEmpty(), "cpus names no CPU");
        StepResult rd = r.steps().get(3);
        assertEquals(Outcome.VALUE, rd.outcome());
        assertEquals(1, rd.value().getAsLong());
        assertEquals(1, rd.cpu().getAsInt());
        assertEquals(0x1234, r.steps().get(6).value().getAsLong());
        StepResult lbr = r.steps().get(7);
        assertEquals(Outcome.REPORT, lbr.outcome());
        assertTrue(lbr.text().contains("1 entry, most recent first"), lbr.text());
        assertTrue(lbr.text().contains("from 0x0000000000401000 to 0x0000000000402000  mispredicted yes  cycles 1"),
                lbr.text());
        assertEquals(Outcome.PASSED, r.steps().get(8).outcome());
        assertEquals(1, r.steps().get(8).expected().getAsLong());
        StepResult f = r.steps().get(9);
        assertEquals(Outcome.FAULTED, f.outcome());
        assertTrue(f.text().contains("#GP(0)"), f.text());
    }

    @Test
    void aFailedExpectationStopsWithBothValuesInHex() {
        ScenarioException e = failure("""
                wrmsr IA32_DEBUGCTL 0x1
                expect IA32_DEBUGCTL 0x3
                branch 1 2
                """);
        assertEquals(Cause.EXPECTATION_FAILED, e.cause());
        assertEquals(14, e.cause().exitCode());
        assertEquals("t.hwsim:2: expect IA32_DEBUGCTL: expected 0x3, got 0x1 (CPU 0)", e.getMessage());
        assertEquals(2, e.line());
        assertEquals(3L, e.expected());
        assertEquals(1L, e.actual());
        assertEquals(1, e.completed().size(), "the line after the failure did not run");
    }

    @Test
    void countsAndMemoryAndFieldsFail() {
        assertEquals("t.hwsim:2: expect pmi.count: expected 0x1, got 0x0 (CPU 0)",
                failure("branch 1 2\nexpect pmi.count 1").getMessage());
        assertEquals("t.hwsim:1: expect mem64:0x10: expected 0x5, got 0x0 (CPU 0)",
                failure("expect mem64:0x10 5").getMessage());
        assertEquals("t.hwsim:1: expect IA32_MISC_ENABLE.BTS_UNAVAILABLE: expected 0x1, got 0x0 (CPU 0)",
                failure("expect IA32_MISC_ENABLE.BTS_UNAVAILABLE 1").getMessage());
    }

    @Test
    void expectFaultThatDoesNotFault() {
        ScenarioException w = failure("expect-fault wrmsr IA32_DEBUGCTL 1");
        assertEquals(Cause.EXPECTATION_FAILED, w.cause());
        assertEquals("t.hwsim:1: expect-fault wrmsr IA32_DEBUGCTL 1: the write did not fault", w.getMessage());
        ScenarioException r = failure("expect-fault rdmsr IA32_DEBUGCTL");
        assertEquals("t.hwsim:1: expect-fault rdmsr IA32_DEBUGCTL: no #GP, read 0x0", r.getMessage());
        assertEquals(0L, r.actual());
        assertNull(r.expected());
    }

    @Test
    void expectDiagnosticThatWasNotFlagged() {
        ScenarioException e = failure("expect diagnostic bts-buffer-too-small");
        assertEquals(Cause.EXPECTATION_FAILED, e.cause());
        assertEquals("t.hwsim:1: expect diagnostic bts-buffer-too-small: not flagged on CPU 0 (flagged: none)",
                e.getMessage());
    }

    @Test
    void anUnexpectedFaultStopsWithRegisterFault() {
        ScenarioException e = failure("branch 1 2\nwrmsr IA32_DEBUGCTL 0x10000\nbranch 1 2");
        assertEquals(Cause.REGISTER_FAULT, e.cause());
        assertTrue(e.getMessage().startsWith("t.hwsim:2: simulated CPU 0 (profile skylake): WRMSR 0x1D9 raised #GP(0)"),
                e.getMessage());
        assertEquals(1, e.completed().size());
        assertEquals(Cause.REGISTER_FAULT, failure("rdmsr IA32_LBR_CTL").cause(), "not on Skylake");
        assertEquals(Cause.REGISTER_FAULT, failure("expect 0x12345678 0").cause());
    }

    @Test
    void otherMachineFailuresKeepTheirCauseAndLine() {
        ScenarioException cpu = failure("cpus 1\ncpu 1");
        assertEquals(Cause.NO_SUCH_CPU, cpu.cause());
        assertTrue(cpu.getMessage().startsWith("t.hwsim:2: simulated CPU 1 does not exist"), cpu.getMessage());
        ScenarioException profile = failure("profile no-such-profile\nbranch 1 2");
        assertEquals(Cause.BAD_INPUT, profile.cause());
        assertTrue(profile.getMessage().startsWith("t.hwsim:1: no simulator profile 'no-such-profile'"), profile.getMessage());
        assertEquals(0, profile.completed().size(), "the header is checked before anything runs");
        ScenarioException alone = failure("profile /etc/hostname");
        assertEquals(Cause.BAD_INPUT, alone.cause(), "a script of its header alone is checked too");
        assertTrue(alone.getMessage().startsWith("t.hwsim:1: "), alone.getMessage());
        ScenarioException cpus = failure("profile core2\ncpus 3\nbranch 1 2");
        assertEquals(Cause.BAD_INPUT, cpus.cause());
        assertTrue(cpus.getMessage().startsWith("t.hwsim:2: profile core2 has 2 CPUs"), cpus.getMessage());
        ScenarioException width = failure("profile core2\nwrmsr IA32_PMC0.COUNT 0x10000000000");
        assertEquals(Cause.BAD_INPUT, width.cause());
        assertTrue(width.getMessage().startsWith("t.hwsim:2: value 0x10000000000 does not fit IA32_PMC0.COUNT [39:0]"),
                width.getMessage());
    }

    @Test
    void theScriptsProfileWinsOverTheCallersDefault() {
        ScenarioRunner runner = new ScenarioRunner("core2", ProfileLoader.standard());
        assertEquals("core2", runner.run(ScriptParser.parse("t", "expect lbr.count 0")).profile());
        assertEquals("nehalem", runner.run(ScriptParser.parse("t", "profile nehalem\nexpect lbr.count 0")).profile());
        // Core 2's stack is at 40H: the SDM name resolves per CPU.
        runner.run(ScriptParser.parse("t", "wrmsr IA32_DEBUGCTL.LBR 1\nbranch 5 6\nexpect MSR_LASTBRANCH_1_FROM_IP 5\nexpect 0x41 5"));
    }

    @Test
    void aRelativeDumpIsFoundBesideTheScript(@TempDir Path dir) throws IOException {
        String dump = new String(ScenarioRunnerTest.class.getResourceAsStream(
                "/dev/hwtool/sim/scenarios/core2-no-ds-cpl.cpuid.txt").readAllBytes());
        Files.writeString(dir.resolve("mine.txt"), dump);
        ScenarioRunner runner = new ScenarioRunner("skylake", ProfileLoader.relativeTo(dir));
        ScenarioResult r = runner.run(ScriptParser.parse("s", "profile mine.txt\nexpect-fault wrmsr IA32_DEBUGCTL.BTS_OFF_OS 1"));
        assertEquals(1, r.expectations());
    }

    @Test
    void defaultsCpl3JccAndLowestCpu() {
        ScenarioResult r = run("""
                profile alderlake
                wrmsr IA32_LBR_CTL 0x7f0007
                branch 0x1000 0x2000
                expect IA32_LBR_0_INFO.BR_TYPE 0
                wrmsr IA32_LBR_CTL.USR 0
                branch 0x1000 0x2000
                expect lbr.count 1
                """);
        assertEquals(0, r.steps().get(1).cpu().getAsInt());
    }

    @Test
    void reportsOfBtsAndPmi() {
        ScenarioResult r = ScenarioRunner.runShipped("bts-threshold-pmi-btint", "skylake");
        String pmi = r.steps().getLast().text();
        assertTrue(pmi.startsWith("PMIs on CPU 0: 1 PMI taken"), pmi);
        assertTrue(pmi.contains("#1 after instruction 3  overflowed 0x0000000000000000  bts-threshold yes  pebs-threshold no  froze none"), pmi);
        ScenarioResult b = ScenarioRunner.runShipped("bts-ds-area-64bit-records", "skylake");
        String bts = b.steps().getLast().text();
        assertEquals("""
                BTS buffer on CPU 0: 2 records from the base to the index, oldest first
                   0  from 0x0000000000401000 to 0x0000000000402000  flags 0x0000000000000010 (predicted)
                   1  from 0x0000000000401100 to 0x0000000000402100  flags 0x0000000000000000""", bts);
    }

    @Test
    void shippedScenariosByNameAndTheirDumps() {
        HwException e = assertThrows(HwException.class, () -> Scenarios.script("nope"));
        assertEquals(Cause.BAD_INPUT, e.cause());
        assertInstanceOf(HwException.class, assertThrows(HwException.class,
                () -> ProfileLoader.shipped().load("index.txt")));
        assertEquals("builtin:lbr-call-stack-mode", Scenarios.script("lbr-call-stack-mode").origin());
    }
}
