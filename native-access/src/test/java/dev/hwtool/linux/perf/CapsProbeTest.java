package dev.hwtool.linux.perf;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuDecoder;
import dev.hwtool.api.Facility;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.caps.Probe;
import dev.hwtool.api.Verdict;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.caps.Verdicts;
import dev.hwtool.linux.LinuxPlatform;
import dev.hwtool.linux.sys.LinuxProbe;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** caps on the hardware backend: the perf probes decide the perf verdicts. */
class CapsProbeTest {

    @Test
    void thisMachinesPerfVerdictsFollowTheirProbes() {
        try (LinuxPlatform platform = LinuxPlatform.open()) {
            CpuidReading src = platform.cpuid();
            // A CPU the instruction can run on: CPU 0 may be outside this process's mask.
            CpuCapabilities cpu = CpuDecoder.decode(src.reader(dev.hwtool.testing.Preconditions.firstCpuInMask()));
            LinuxFacts linux = LinuxProbe.probe();
            PerfProbe probe = new PerfProbe(platform.perf());
            Map<Facility, Probe> probes = probe.all();
            List<Verdict> verdicts = Verdicts.assess(cpu, linux, probes);
            assertEquals(Facility.values().length, verdicts.size());
            for (Map.Entry<Facility, Probe> e : probes.entrySet()) {
                Verdict v = verdicts.get(e.getKey().ordinal());
                Probe p = e.getValue();
                assertEquals(p.usable(), v.usable(), v + " / " + p);
                String outcome = p.failure().map(Throwable::getMessage).orElse(p.detail());
                assertTrue(v.message().contains(outcome), v.message() + " lacks " + outcome);
            }
            // The LBR reason is the message hwtool lbr record fails with on this machine.
            Probe lbr = probe.lbr(Privilege.USER);
            Verdict lbrVerdict = verdicts.get(Facility.LBR_PERF.ordinal());
            System.out.println("LBR verdict: " + lbrVerdict);
            lbr.failure().ifPresent(f -> assertTrue(lbrVerdict.message().contains(f.getMessage()), lbrVerdict.message()));
            assertEquals(platform.perf().openEvents(), List.of(), "a probe left an event open");
        }
    }

    @Test
    void aFailingProbeOverrulesFactsThatPredictedUsable() {
        Verdict facts = new Verdict(Facility.LBR_PERF, true, java.util.Optional.empty(), "caps/branches=32", "");
        HwException refused = new HwException(Cause.PERMISSION_DENIED, "perf_event_open(...): EACCES", "sysctl it");
        Verdict v = Verdicts.withProbe(facts, Probe.failed("lbr", refused));
        assertFalse(v.usable());
        assertTrue(v.message().startsWith("perf_event_open(...): EACCES"), v.message());
        assertTrue(v.message().contains("caps/branches=32"), "the facts' opinion stays as a note: " + v.message());
        assertEquals(java.util.Optional.of("sysctl it"), v.remedy());
    }

    @Test
    void aWorkingProbeOverrulesFactsThatPredictedUnusable() {
        Verdict facts = new Verdict(Facility.RDPMC, false, java.util.Optional.of(dev.hwtool.api.Cause.UNSUPPORTED), "rdpmc is 0", "echo 1");
        Verdict v = Verdicts.withProbe(facts, Probe.ok("cap_user_rdpmc = 1"));
        assertTrue(v.usable());
        assertTrue(v.message().contains("cap_user_rdpmc = 1") && v.message().contains("rdpmc is 0"), v.message());
        assertEquals(java.util.Optional.empty(), v.remedy());
    }

    @Test
    void agreeingFactsKeepTheirReasonAndRemedy() {
        Verdict facts = new Verdict(Facility.HW_COUNTERS, false, java.util.Optional.of(dev.hwtool.api.Cause.UNSUPPORTED), "no cpu PMU", "ask the VM host");
        HwException refused = new HwException(Cause.UNSUPPORTED, "ENOENT: no hardware PMU", "other remedy");
        Verdict v = Verdicts.withProbe(facts, Probe.failed("x", refused));
        assertFalse(v.usable());
        assertTrue(v.message().startsWith("no cpu PMU"), v.message());
        assertTrue(v.message().contains("ENOENT: no hardware PMU"), v.message());
        assertEquals(java.util.Optional.of("ask the VM host"), v.remedy());
    }
}
