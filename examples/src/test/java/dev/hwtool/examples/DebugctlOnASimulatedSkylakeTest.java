package dev.hwtool.examples;

import dev.hwtool.api.Counters;
import dev.hwtool.api.Platform;
import dev.hwtool.api.WriteRequest;
import dev.hwtool.api.WriteResult;
import dev.hwtool.junit.SimulatedCpu;
import dev.hwtool.sim.SimulatedPlatform;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** How a user tests their own MSR code in CI: a fresh simulated Skylake per test. */
@SimulatedCpu("skylake")
class DebugctlOnASimulatedSkylakeTest {

    static final int IA32_DEBUGCTL = 0x1d9;

    @Test
    void lbrBitSticks(Platform p) {
        p.msr().write(2, IA32_DEBUGCTL, 1);               // DEBUGCTL.LBR on CPU 2
        assertEquals(1, p.msr().read(2, IA32_DEBUGCTL));
        assertEquals(1, p.msr().readField(2, "IA32_DEBUGCTL", "LBR"));
        assertEquals(0, p.msr().read(0, IA32_DEBUGCTL));  // the other CPUs are untouched
    }

    @Test
    void carefullyAndUndone(SimulatedPlatform p) {       // this test's own journal, not ~/.local/state/hwtool's
        WriteResult r = p.msr().write(WriteRequest.field(2, "IA32_DEBUGCTL", "LBR", 1));
        assertEquals(1, p.msr().readField(2, "IA32_DEBUGCTL", "LBR"));
        p.msr().write(WriteRequest.undo(r));
        assertEquals(0, p.msr().readField(2, "IA32_DEBUGCTL", "LBR"));
    }

    @Test
    void countsAWorkload(SimulatedPlatform p) {
        try (Counters c = p.counters("instructions")) {
            c.start();
            long retired = p.run("calltree depth=3 calls=20").instructions();
            assertEquals(retired, c.stop().value("instructions"));
        }
    }
}
