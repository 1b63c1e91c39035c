package dev.hwtool.sim.script;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.sim.scenario.ScenarioException;
import dev.hwtool.sim.scenario.ScenarioRunner;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Whatever the text, the parser either succeeds or throws one-line BAD_INPUT naming the line. */
class ScriptParserFuzzTest {

    private static void parsesOrRejects(String text) {
        try {
            ScriptParser.parse("f.hwsim", text);
        } catch (HwException e) {
            assertEquals(Cause.BAD_INPUT, e.cause(), e.getMessage());
            assertTrue(e.getMessage().matches("f\\.hwsim:\\d+: .*"), e.getMessage());
            assertEquals(1, e.getMessage().lines().count(), e.getMessage());
        }
    }

    @Property(tries = 2000)
    void arbitraryText(@ForAll String text) {
        parsesOrRejects(text);
    }

    @Property(tries = 3000)
    void nearValidLines(@ForAll("nearValid") String text) {
        parsesOrRejects(text);
    }

    @Provide
    Arbitrary<String> nearValid() {
        Arbitrary<String> verb = Arbitraries.of("profile", "cpus", "cpu", "wrmsr", "rdmsr", "mem", "branch", "branches",
                "instructions", "cycles", "lbr", "bts", "pmi", "handler", "single-step", "platform", "expect",
                "expect-fault", "write64", "read64", "diagnostic");
        Arbitrary<String> word = Arbitraries.oneOf(
                Arbitraries.of("IA32_DEBUGCTL", "IA32_DEBUGCTL.LBR", "ia32_debugctl.", ".LBR", "0x1d9", "0x1d9.LBR",
                        "IA32_PMC0.COUNT", "mem64:0x10", "mem64:", "pmi.count", "lbr.count", "cpl=0", "cpl=9", "cpl=",
                        "type=ret", "type=", "from=1", "to=0x", "mispredict", "mispredict=1", "builtin", "none", "on",
                        "0x", "0xffffffffffffffff", "18446744073709551616", "-1", "=", ".", "#", "1", "0", "4096"),
                Arbitraries.longs().map(l -> "0x" + Long.toHexString(l)),
                Arbitraries.longs().map(Long::toUnsignedString),
                Arbitraries.strings().ofMaxLength(12));
        Arbitrary<String> line = Combinators.combine(verb, word.list().ofMaxSize(5))
                .as((v, ws) -> v + (ws.isEmpty() ? "" : " " + String.join(" ", ws)));
        return line.list().ofMaxSize(6).map(ls -> String.join("\n", ls));
    }

    @Property(tries = 300)
    void parsedScriptsRunOrStopWithACause(@ForAll("runnable") String text) {
        Script s;
        try {
            s = ScriptParser.parse("f.hwsim", text);
        } catch (HwException e) {
            assertEquals(Cause.BAD_INPUT, e.cause());
            return;
        }
        try {
            new ScenarioRunner().run(s);
        } catch (ScenarioException e) {
            assertTrue(e.getMessage().matches("f\\.hwsim:\\d+: .*"), e.getMessage());
            assertTrue(List.of(Cause.EXPECTATION_FAILED, Cause.REGISTER_FAULT, Cause.BAD_INPUT, Cause.NO_SUCH_CPU)
                    .contains(e.cause()), e.getMessage());
        }
    }

    @Provide
    Arbitrary<String> runnable() {
        Arbitrary<String> line = Arbitraries.oneOf(
                Arbitraries.of("wrmsr IA32_DEBUGCTL 0x1", "wrmsr IA32_DEBUGCTL 0xffff", "wrmsr IA32_DEBUGCTL.BTF 1",
                        "single-step on", "handler builtin", "lbr", "bts", "pmi", "cpu 1", "cpu 7",
                        "wrmsr IA32_DS_AREA 0x1000", "mem write64 0x1010 0x2018", "wrmsr IA32_DEBUGCTL 0x1c0",
                        "expect pmi.count 0", "expect-fault rdmsr IA32_LBR_CTL", "rdmsr 0x0",
                        "wrmsr IA32_PERFEVTSEL0 0x5300c0", "wrmsr IA32_PMC0 0xffffffff", "cycles 3"),
                Arbitraries.longs().between(0, 40).map(n -> "branches " + n + " cpl=" + (n % 4)),
                Arbitraries.longs().between(0, 1000).map(n -> "instructions " + n));
        return line.list().ofMaxSize(12).map(ls -> String.join("\n", ls));
    }
}
