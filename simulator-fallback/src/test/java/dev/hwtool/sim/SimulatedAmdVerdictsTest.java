package dev.hwtool.sim;

import dev.hwtool.api.Capabilities;
import dev.hwtool.api.Facility;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The simulator's own verdicts say which AMD facilities it does not run, and say nothing of AMD on Intel. */
class SimulatedAmdVerdictsTest {

    @Test
    void theAmdGuestNamesWhatIsNotModelled() {
        try (SimulatedPlatform p = SimulatedPlatform.of("amd-epyc-kvm-guest")) {
            Capabilities c = p.capabilities();
            assertTrue(c.verdict(Facility.PEBS_PERF).message().contains("IBS, is not modelled"), c.toString());
            assertTrue(c.verdict(Facility.HW_COUNTERS).message().contains("MSR_K7_PERFCTR0..3"), c.toString());
            assertTrue(c.verdict(Facility.LBR_PERF).message().contains("AMD's LBR v2 and BRS"), c.toString());
        }
    }

    @Test
    void intelProfilesSayNothingOfAmd() {
        try (SimulatedPlatform p = SimulatedPlatform.of("core2")) {
            assertFalse(p.capabilities().verdict(Facility.PEBS_PERF).message().contains("IBS"));
        }
    }
}
