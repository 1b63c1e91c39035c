package dev.hwtool.examples;

import dev.hwtool.api.Platform;
import dev.hwtool.junit.SimulatedCpu;
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
        assertEquals(0, p.msr().read(0, IA32_DEBUGCTL));  // the other CPUs are untouched
    }
}
