package dev.hwtool.sim.script;

import dev.hwtool.api.BranchType;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scenario grammar: what parses into which command, and every error message. */
class ScriptParserTest {

    private static HwException error(String text) {
        HwException e = assertThrows(HwException.class, () -> ScriptParser.parse("t.hwsim", text));
        assertEquals(Cause.BAD_INPUT, e.cause());
        assertEquals(1, e.getMessage().lines().count(), "one line: " + e.getMessage());
        return e;
    }

    @Test
    void commandsWithDefaultsAndLineNumbers() {
        Script s = ScriptParser.parse("t.hwsim", """
                # a comment
                profile core2   # trailing comment
                cpus 2

                branch 0x10 20
                branches 3 cpl=0 type=ret mispredict
                instructions 0x10
                expect ia32_debugctl.lbr 1
                expect mem64:0x20 0xFFFFFFFFFFFFFFFF
                expect pmi.count 18446744073709551615
                expect-fault wrmsr 0x1d9 1
                """);
        List<Command> c = s.commands();
        assertEquals(new Command.UseProfile(2, "profile core2", "core2"), c.get(0));
        assertEquals(new Command.UseCpus(3, "cpus 2", 2), c.get(1));
        assertEquals(new Command.Branch(5, "branch 0x10 20", 0x10, 20, 3, BranchType.JCC, false), c.get(2));
        assertEquals(new Command.Branches(6, "branches 3 cpl=0 type=ret mispredict", 3, ScriptParser.KERNEL_FROM,
                ScriptParser.KERNEL_TO, 0, BranchType.NEAR_RET, true), c.get(3));
        assertEquals(new Command.Instructions(7, "instructions 0x10", 16, 3), c.get(4));
        Command.Expect e = assertInstanceOf(Command.Expect.class, c.get(5));
        assertEquals(new Probe.Register(new RegisterRef("ia32_debugctl", 0x1D9, "lbr")), e.probe());
        assertEquals(new Probe.Memory(0x20), ((Command.Expect) c.get(6)).probe());
        assertEquals(-1L, ((Command.Expect) c.get(6)).expected());
        assertEquals(-1L, ((Command.Expect) c.get(7)).expected());
        Command.ExpectFault f = assertInstanceOf(Command.ExpectFault.class, c.get(8));
        assertEquals(new Command.Wrmsr(11, "expect-fault wrmsr 0x1d9 1", new RegisterRef(null, 0x1D9, null), 1), f.access());
    }

    @Test
    void burstDefaultsAtUserLevel() {
        Command.Branches b = (Command.Branches) ScriptParser.parse("t", "branches 2").commands().getFirst();
        assertEquals(ScriptParser.USER_FROM, b.from());
        assertEquals(ScriptParser.USER_TO, b.to());
        assertEquals(3, b.cpl());
        b = (Command.Branches) ScriptParser.parse("t", "branches 2 from=1 to=2").commands().getFirst();
        assertEquals(1, b.from());
        assertEquals(2, b.to());
    }

    @Test
    void extensionsParse() {
        List<Command> c = ScriptParser.parse("t", """
                handler builtin
                handler NONE
                cycles 5
                single-step on
                platform IA32_MISC_ENABLE.BTS_UNAVAILABLE 1
                expect btm.stored 1
                expect diagnostic bts-buffer-too-small
                expect-fault wrmsr IA32_DEBUGCTL.BTS_OFF_OS 1
                expect-fault rdmsr IA32_PERF_GLOBAL_INUSE
                lbr
                bts
                pmi
                """).commands();
        assertEquals(new Command.SetHandler(1, "handler builtin", true), c.get(0));
        assertEquals(new Command.SetHandler(2, "handler NONE", false), c.get(1));
        assertEquals(new Command.Cycles(3, "cycles 5", 5), c.get(2));
        assertEquals(new Command.SingleStep(4, "single-step on", true), c.get(3));
        assertInstanceOf(Command.PlatformValue.class, c.get(4));
        assertEquals(new Probe.Counted(Count.BTM_STORED), ((Command.Expect) c.get(5)).probe());
        assertEquals(new Command.ExpectDiagnostic(7, "expect diagnostic bts-buffer-too-small", "bts-buffer-too-small"), c.get(6));
        assertInstanceOf(Command.Rdmsr.class, ((Command.ExpectFault) c.get(8)).access());
        assertEquals(new Command.Show(12, "pmi", Command.Report.PMI), c.get(11));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "frobnicate 1|t.hwsim:1: unknown command 'frobnicate' (",
            "wrmsr IA32_DEBUGCTL|t.hwsim:1: usage: wrmsr REG[.FIELD] VALUE",
            "rdmsr|t.hwsim:1: usage: rdmsr REG",
            "rdmsr IA32_DEBUGCTL.LBR|t.hwsim:1: 'IA32_DEBUGCTL.LBR': a field cannot be used here, name the whole register",
            "wrmsr IA32_DEBUGCTL. 1|t.hwsim:1: 'IA32_DEBUGCTL.': no field name after '.'",
            "wrmsr 0x1d9.LBR 1|t.hwsim:1: '0x1d9.LBR': a field needs the register's name, not its number",
            "wrmsr 0x100000000 1|t.hwsim:1: MSR number 0x100000000 is not 32-bit",
            "wrmsr NO_SUCH_MSR 1|t.hwsim:1: unknown register 'NO_SUCH_MSR' (not in the MSR catalog; see 'hwtool msr list')",
            "wrmsr IA32_DEBUGCTL.NOPE 1|t.hwsim:1: IA32_DEBUGCTL has no field 'NOPE'",
            "wrmsr IA32_DEBUGCTL.LBR 2|t.hwsim:1: value 0x2 does not fit IA32_DEBUGCTL.LBR [0] (max 0x1)",
            "wrmsr IA32_DEBUGCTL -1|t.hwsim:1: '-1' is not a number (decimal or 0x hex, unsigned 64-bit)",
            "wrmsr IA32_DEBUGCTL 0x|t.hwsim:1: '0x' is not a number",
            "wrmsr IA32_DEBUGCTL 0x10000000000000000|t.hwsim:1: '0x10000000000000000' is not a number",
            "wrmsr IA32_DEBUGCTL 18446744073709551616|t.hwsim:1: '18446744073709551616' does not fit in 64 bits",
            "mem|t.hwsim:1: usage: mem write64 ADDR VALUE | mem read64 ADDR",
            "mem write64 1|t.hwsim:1: usage: mem write64 ADDR VALUE",
            "mem read64|t.hwsim:1: usage: mem read64 ADDR",
            "branch 1|t.hwsim:1: usage: branch FROM TO [cpl=N] [type=T] [mispredict]",
            "branch 1 2 cpl=4|t.hwsim:1: cpl=4: must be 0..3",
            "branch 1 2 type=loop|t.hwsim:1: unknown branch type 'loop' (jcc|call|ind-call|jmp|ind-jmp|ret|far|int)",
            "branch 1 2 cpl=0 cpl=1|t.hwsim:1: option cpl given twice",
            "branch 1 2 from=3|t.hwsim:1: unexpected 'from=3' (options here: cpl= type= mispredict)",
            "branch 1 2 mispredict=1|t.hwsim:1: unexpected 'mispredict=1'",
            "branch 1 2 cpl|t.hwsim:1: unexpected 'cpl'",
            "branches|t.hwsim:1: usage: branches N [from=A] [to=B] [cpl=N] [type=T] [mispredict]",
            "branches 100000001|t.hwsim:1: branches 100000001: at most 100000000 a line",
            "instructions 0xffffffffffffffff|t.hwsim:1: count 0xffffffffffffffff is too large",
            "instructions|t.hwsim:1: usage: instructions N [cpl=N]",
            "instructions 1 type=jcc|t.hwsim:1: unexpected 'type=jcc' (options here: cpl=)",
            "cycles|t.hwsim:1: usage: cycles N",
            "lbr 1|t.hwsim:1: usage: lbr",
            "handler maybe|t.hwsim:1: handler takes builtin or none, not 'maybe'",
            "single-step|t.hwsim:1: usage: single-step on|off",
            "single-step yes|t.hwsim:1: single-step takes on or off, not 'yes'",
            "platform IA32_MISC_ENABLE|t.hwsim:1: usage: platform REG[.FIELD] VALUE",
            "expect pmi.count|t.hwsim:1: usage: expect REG[.FIELD]|mem64:ADDR|COUNT VALUE, or expect diagnostic CODE",
            "expect mem64:zz 1|t.hwsim:1: 'zz' is not a number",
            "expect diagnostic Bad_Code|t.hwsim:1: diagnostic code 'Bad_Code' is not of the form bts-buffer-too-small",
            "expect-fault branch 1 2|t.hwsim:1: usage: expect-fault wrmsr REG[.FIELD] VALUE | expect-fault rdmsr REG",
            "expect-fault rdmsr 1 2|t.hwsim:1: usage: expect-fault wrmsr",
            "cpus 0|t.hwsim:1: cpus 0: must be 1..4096",
            "cpus|t.hwsim:1: usage: cpus N",
            "cpu 0x80000000|t.hwsim:1: cpu 0x80000000: not a CPU number",
            "profile|t.hwsim:1: usage: profile NAME|FILE",
    })
    void everyErrorIsOneLineNamingFileAndLine(String line, String message) {
        String m = error(line).getMessage();
        assertTrue(m.startsWith(message), m + "\n  should start with\n" + message);
    }

    @Test
    void workloadsParseThroughTheWorkloadGrammarAndItsErrorsKeepTheLine() {
        Script s = ScriptParser.parse("t.hwsim", "workload calltree seed=7 depth=6\nworkload loop iterations=3\n");
        assertEquals("calltree seed=7 depth=6 fanout=2 calls=1000 base=0x401000 cpl=3",
                ((Command.RunWorkload) s.commands().get(0)).workload().describe());
        assertEquals(2, s.commands().get(1).line());
        HwException e = error("workload calltree depth=99");
        assertEquals(dev.hwtool.api.Cause.BAD_INPUT, e.cause());
        assertEquals("t.hwsim:1: calltree: depth=99 out of range 1..64", e.getMessage());
        assertEquals("t.hwsim:1: usage: workload loop|calltree|trace ...", error("workload").getMessage());
    }

    @Test
    void profileAndCpusComeFirstAndOnce() {
        assertEquals("t.hwsim:3: 'profile' must come before any command that uses the machine (line 2 does)",
                error("profile core2\nbranch 1 2\nprofile skylake").getMessage());
        assertEquals("t.hwsim:2: 'cpus' must come before any command that uses the machine (line 1 does)",
                error("rdmsr IA32_DEBUGCTL\ncpus 1").getMessage());
        assertEquals("t.hwsim:3: 'profile' given twice (first at line 1)",
                error("profile core2\ncpus 1\nprofile skylake").getMessage());
        assertEquals("t.hwsim:2: 'cpus' given twice (first at line 1)", error("cpus 1\ncpus 2").getMessage());
    }

    @Test
    void anErrorAnywhereParsesNothing() {
        HwException e = error("branch 1 2\n".repeat(50) + "bogus\n");
        assertEquals("t.hwsim:51: unknown command 'bogus' (" + e.getMessage().substring(e.getMessage().indexOf('(') + 1),
                e.getMessage());
    }

    @Test
    void lineEndingsAndCase() {
        List<Command> c = ScriptParser.parse("t", "BRANCH 1 2 TYPE=CALL CPL=0\r\nLBR\rExpect LBR.COUNT 0x0A").commands();
        assertEquals(3, c.size());
        assertEquals(BranchType.NEAR_REL_CALL, ((Command.Branch) c.get(0)).type());
        assertEquals(3, c.get(2).line());
        assertEquals(new Probe.Counted(Count.LBR), ((Command.Expect) c.get(2)).probe());
    }
}
