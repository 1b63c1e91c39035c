package dev.hwtool.linux;

import dev.hwtool.api.Facility;
import dev.hwtool.api.Platform;
import dev.hwtool.api.Verdict;
import dev.hwtool.caps.CapabilityReport;
import dev.hwtool.caps.Verdicts;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What {@link LinuxPlatform#capabilities()} carries besides the verdicts: everything caps renders. */
class LinuxCapabilitiesTest {

    static final EnumSet<Facility> PERF = EnumSet.of(Facility.LBR_PERF, Facility.BTS_PERF, Facility.HW_COUNTERS,
            Facility.RDPMC, Facility.PEBS_PERF);

    @Test
    void theHardwareVerdictsComeWithTheFactsAndProbesTheyRestOn() {
        try (Platform p = Platform.open()) {
            CapabilityReport c = CapabilityReport.of(p);
            assertEquals(Platform.Kind.HARDWARE, c.kind());
            assertEquals(LinuxCapabilities.THIS_MACHINE, c.describes());
            assertEquals(Arrays.asList(Facility.values()), c.verdicts().stream().map(Verdict::facility).toList());
            assertEquals(PERF, EnumSet.copyOf(c.probes().keySet()), "the five perf facilities were tried");
            assertTrue(c.linux().isPresent());
            assertEquals(c.decoded().identity(), c.cpu());
            assertEquals(CapabilityReport.identity(c.decoded()), c.capabilities().cpu(), "the contract's identity");
            // the same judgement as the facts and probes it carries give
            assertEquals(Verdicts.assess(c.decoded(), c.linux().orElseThrow(), c.probes()), c.verdicts());
            assertEquals(c.decoded().hybrid(), !c.coreTypes().isEmpty());
        }
    }

    @Test
    void fromTheFactsAloneNothingIsTried() {
        try (LinuxPlatform p = LinuxPlatform.open()) {
            CapabilityReport c = LinuxCapabilities.fromFacts(p.cpuid());
            assertTrue(c.probes().isEmpty());
            assertEquals(Verdicts.assess(c.decoded(), c.linux().orElseThrow()), c.verdicts());
            List<Verdict> here = LinuxCapabilities.judgedHere(c.decoded());
            assertEquals(c.verdicts(), here, "this CPU judged here from the facts is the same judgement");
        }
    }
}
