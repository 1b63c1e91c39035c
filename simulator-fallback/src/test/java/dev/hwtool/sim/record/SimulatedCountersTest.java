package dev.hwtool.sim.record;

import dev.hwtool.api.BranchType;
import dev.hwtool.api.Cause;
import dev.hwtool.api.Count;
import dev.hwtool.api.Counters;
import dev.hwtool.api.Counts;
import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.sim.SimulatedPlatform;
import dev.hwtool.sim.cpu.LogicalProcessor;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Platform.counters on the simulator: what CPU 0 retires between start and stop, in user mode by default. */
class SimulatedCountersTest {

    private static void work(LogicalProcessor cpu) {
        cpu.instructions(1000, 3);
        for (int i = 0; i < 10; i++) {
            cpu.branch(0x401000 + 16L * i, 0x402000, BranchType.JCC, 3, i % 5 == 0);
        }
        cpu.instructions(500, 0); // kernel mode: not counted without :k
    }

    @Test
    void countsExactlyWhatTheRegionRetires() {
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake");
             Counters c = p.counters("instructions", "branches", "branch-misses", "instructions:k", "task-clock")) {
            LogicalProcessor cpu = p.machine().cpus().getFirst();
            cpu.instructions(77, 3); // before start: not counted
            c.start();
            work(cpu);
            Counts n = c.stop();
            cpu.instructions(99, 3); // after stop: not counted
            assertTrue(n.simulated());
            assertEquals(1010, n.value("instructions"), "1000 instructions and 10 branches at CPL 3");
            assertEquals(10, n.value("branches"));
            assertEquals(2, n.value("branch-misses"));
            assertEquals(500, n.value("instructions:k"));
            Count tc = n.get("task-clock");
            assertFalse(tc.supported());
            HwException e = assertThrows(HwException.class, tc::value);
            assertEquals(Cause.UNSUPPORTED, e.cause());
            assertTrue(e.getMessage().startsWith("task-clock: "), e.getMessage());
            assertEquals(n.get("instructions").timeEnabledNs(), n.get("instructions").timeRunningNs());
            assertEquals(1010.0, n.get("instructions").scaled().orElseThrow());
        }
    }

    @Test
    void startAgainResetsAndReadDoesNotStop() {
        try (Platform p = SimulatedPlatform.of("alderlake"); Counters c = p.counters("instructions")) {
            LogicalProcessor cpu = ((SimulatedPlatform) p).machine().cpus().getFirst();
            c.start();
            cpu.instructions(100, 3);
            assertEquals(100, c.read().value("instructions"));
            cpu.instructions(50, 3);
            assertEquals(150, c.stop().value("instructions"));
            c.start();
            cpu.instructions(7, 3);
            assertEquals(7, c.stop().value("instructions"));
        }
    }

    @Test
    void badUseGetsClearExceptions() {
        SimulatedPlatform p = SimulatedPlatform.of("skylake");
        HwException bad = assertThrows(HwException.class, () -> p.counters("no-such-event"));
        assertEquals(Cause.BAD_INPUT, bad.cause());
        assertTrue(bad.getMessage().contains("unknown event 'no-such-event'"), bad.getMessage());
        Counters c = p.counters("cycles");
        c.close();
        assertThrows(IllegalStateException.class, c::start);
        p.close();
        IllegalStateException closed = assertThrows(IllegalStateException.class, () -> p.counters("cycles"));
        assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
        assertThrows(IllegalStateException.class, p::msr);
    }
}
