package dev.hwtool.junit;

import dev.hwtool.api.Counts;
import dev.hwtool.api.Counters;
import dev.hwtool.api.Platform;
import dev.hwtool.api.Facility;
import dev.hwtool.api.WriteRequest;
import dev.hwtool.api.WriteResult;
import dev.hwtool.sim.SimulatedPlatform;
import org.junit.jupiter.api.Test;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

/**
 * The extension as a user meets it: sample test classes run through the JUnit engine (testkit),
 * and what they saw is checked: a fresh, closed simulated platform per test, the method's
 * annotation over the class's, and @RealCpu skipping with caps' reason where a facility is missing.
 */
class HwtoolExtensionTest {

    static final List<Platform> SEEN = new ArrayList<>();

    /** A user's test class: one body, the simulator in CI. */
    @SimulatedCpu("skylake")
    static class UserTests {
        @Test
        void first(Platform p) {
            SEEN.add(p);
            assertEquals(Platform.Kind.SIMULATED, p.kind());
            assertTrue(p.description().contains("skylake"), p.description());
            // the careful part of a user's driver: set DEBUGCTL.LBR, read it back
            p.msr().write(0, 0x1d9, 1);
            assertEquals(1, p.msr().read(0, 0x1d9));
        }

        @Test
        void second(Platform p) {
            SEEN.add(p);
            assertEquals(0, p.msr().read(0, 0x1d9), "a fresh machine boots with DEBUGCTL 0");
            try (Counters c = p.counters("instructions")) {
                c.start();
                SimulatedPlatform.Ran ran = ((SimulatedPlatform) p).run("loop iterations=10");
                Counts n = c.stop();
                assertTrue(ran.instructions() > 10, ran.toString());
                assertEquals(ran.instructions(), n.value("instructions"));
                assertTrue(n.simulated());
            }
        }

        @Test
        @SimulatedCpu(value = "alderlake", cpus = 2)
        void methodWins(Platform p) {
            SEEN.add(p);
            assertTrue(p.description().contains("alderlake"), p.description());
            assertEquals(2, p.cpuid().cpus().size());
        }
    }

    static final List<Path> JOURNALS = new ArrayList<>();

    /** A user's tests that take the simulated platform as it is, and write carefully. */
    @SimulatedCpu("skylake")
    static class SimulatedPlatformTests {
        @Test
        void careful(SimulatedPlatform p) {
            WriteResult r = p.msr().write(WriteRequest.field(1, "IA32_DEBUGCTL", "LBR", 1));
            assertTrue(r.allWritten());
            assertEquals(p.journalDirectory(), r.journal().orElseThrow(), "the platform's own journal");
            JOURNALS.add(r.journal().orElseThrow());
            assertEquals(1, r.batch().getAsLong(), "a fresh journal: batch 1");
            p.msr().write(WriteRequest.undo(r));
            assertEquals(0, p.msr().read(1, 0x1d9));
        }

        @Test
        void carefulAgain(SimulatedPlatform p) {
            WriteResult r = p.msr().write(WriteRequest.value(0, "IA32_DEBUGCTL", 1));
            JOURNALS.add(r.journal().orElseThrow());
            assertEquals(1, r.batch().getAsLong(), "not the other test's journal: batch 1 again");
        }
    }

    /** A user's hardware test that needs LBRs. */
    static class NeedsLbr {
        @Test
        @RealCpu(requires = Facility.LBR_PERF)
        void lbr(Platform p) {
            assertEquals(Platform.Kind.HARDWARE, p.kind());
        }

        @Test
        @RealCpu
        void anyHost(Platform p) {
            assertEquals(Platform.Kind.HARDWARE, p.kind());
            assertFalse(p.cpuid().cpus().isEmpty());
        }
    }

    @Test
    void eachTestGetsAFreshPlatformClosedAfterIt() {
        SEEN.clear();
        Events tests = EngineTestKit.engine("junit-jupiter").selectors(selectClass(UserTests.class)).execute()
                .testEvents();
        tests.assertStatistics(s -> s.started(3).succeeded(3).failed(0));
        assertEquals(3, SEEN.size());
        assertNotSame(SEEN.get(0), SEEN.get(1));
        for (Platform p : SEEN) {
            IllegalStateException closed = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                    p::msr, "closed after its test");
            assertTrue(closed.getMessage().contains("closed"));
        }
    }

    @Test
    void aSimulatedPlatformParameterAndAJournalOfEachTestsOwn() {
        JOURNALS.clear();
        String home = System.getProperty("hwtool.state.dir");
        Events tests = EngineTestKit.engine("junit-jupiter").selectors(selectClass(SimulatedPlatformTests.class)).execute()
                .testEvents();
        tests.assertStatistics(s -> s.started(2).succeeded(2).failed(0));
        assertEquals(2, JOURNALS.size());
        assertNotSame(JOURNALS.get(0), JOURNALS.get(1));
        assertFalse(JOURNALS.get(0).equals(JOURNALS.get(1)), JOURNALS.toString());
        for (Path j : JOURNALS) {
            assertFalse(Files.exists(j), j + ": deleted when its test's platform closed");
        }
        assertEquals(home, System.getProperty("hwtool.state.dir"));
    }

    /** A @RealCpu test cannot ask for a SimulatedPlatform. */
    static class RealWantsSimulated {
        @Test
        @RealCpu
        void wrong(SimulatedPlatform p) {
        }
    }

    @Test
    void aRealCpuTestIsToldItGetsNoSimulatedPlatform() {
        Events tests = EngineTestKit.engine("junit-jupiter").selectors(selectClass(RealWantsSimulated.class)).execute()
                .testEvents();
        tests.assertStatistics(s -> s.failed(1));
        Throwable t = tests.failed().list().getFirst().getPayload(org.junit.platform.engine.TestExecutionResult.class)
                .orElseThrow().getThrowable().orElseThrow();
        assertTrue(t.getMessage().contains("not a SimulatedPlatform"), t.getMessage());
    }

    @Test
    void realCpuSkipsWithCapsReasonWhereTheFacilityIsMissing() {
        Events tests = EngineTestKit.engine("junit-jupiter").selectors(selectClass(NeedsLbr.class)).execute()
                .testEvents();
        // LBR through perf: a core PMU with a branch-stack depth above 0 (cpu or cpu_core caps/branches).
        if (dev.hwtool.testing.Preconditions.Hardware.LBR.present()) {
            tests.assertStatistics(s -> s.started(2).succeeded(2));
            return;
        }
        // this host: no LBR through perf (no PMU in this VM): skipped, with the verdict's words
        tests.assertStatistics(s -> s.skipped(1).started(1).succeeded(1));
        String reason = tests.skipped().list().getFirst().getPayload(String.class).orElseThrow();
        assertTrue(reason.startsWith("LBR via perf: "), reason);
        assertTrue(reason.contains("no cpu PMU") || reason.contains("no LBR"), reason);
    }
}
