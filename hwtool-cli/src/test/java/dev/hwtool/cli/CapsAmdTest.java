package dev.hwtool.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** caps shows AMD's perfmon flags: as the guest dump reports them, and not at all on Intel. */
class CapsAmdTest {

    @Test
    void theGuestsAmdFlagsAreInTextAndJson() throws IOException {
        Run text = Run.of("caps", "--backend", "sim", "--profile", "amd-epyc-kvm-guest");
        assertEquals(0, text.exit(), text.toString());
        assertTrue(text.out().contains("AMD performance monitoring"), text.out());
        assertTrue(text.out().matches("(?s).*core counters\\s+4 x 48 bits, legacy only.*"), text.out());
        Run json = Run.of("caps", "--json", "--backend", "sim", "--profile", "amd-epyc-kvm-guest");
        assertEquals(0, json.exit(), json.toString());
        Map<?, ?> amd = (Map<?, ?>) JSON.std.mapFrom(json.out()).get("amd");
        assertEquals(true, amd.get("present"));
        assertEquals(4, amd.get("core_counters"), "no PerfCtrExtCore (8000_0001H:ECX[23]) in the guest");
        assertEquals(false, amd.get("lbr_v2"));
        assertEquals(false, amd.get("ibs"));
    }

    @Test
    void nfdLbrDepthIsTheLbrV2DepthOnAmd() {
        dev.hwtool.caps.CpuidReading sim = dev.hwtool.caps.CpuidReading.of(
                dev.hwtool.sim.SimulatedPlatform.of("amd-epyc-kvm-guest").cpuid());
        dev.hwtool.arch.decode.CpuCapabilities guest = dev.hwtool.arch.decode.CpuDecoder.decode(
                sim.reader(sim.cpus().getFirst()));
        assertTrue(!NfdLabels.of(guest, java.util.List.of(), true).containsKey("lbr-depth"), "the guest has none");
        dev.hwtool.arch.decode.CpuCapabilities zen4 = new dev.hwtool.arch.decode.CpuCapabilities(guest.identity(),
                guest.microarchitecture(), false, "", guest.hypervisor(), guest.features(), guest.archPerfmon(),
                guest.archLbr(), guest.legacyLbr(),
                new dev.hwtool.arch.decode.AmdPerf(true, true, true, 0, false, true, true, true, 6, 16));
        assertEquals("16", NfdLabels.of(zen4, java.util.List.of(), true).get("lbr-depth"));
        dev.hwtool.arch.decode.CpuCapabilities zen3 = new dev.hwtool.arch.decode.CpuCapabilities(guest.identity(),
                guest.microarchitecture(), false, "", guest.hypervisor(), guest.features(), guest.archPerfmon(),
                guest.archLbr(), guest.legacyLbr(),
                new dev.hwtool.arch.decode.AmdPerf(true, true, true, 0, true, false, false, false, 6, 0));
        assertTrue(!NfdLabels.of(zen3, java.util.List.of(), true).containsKey("lbr-depth"),
                "BRS serves only the branch-brs event, not perf record -b in general");
    }

    @Test
    void intelShowsNoAmdSection() throws IOException {
        Run text = Run.of("caps", "--backend", "sim", "--profile", "skylake");
        assertEquals(0, text.exit(), text.toString());
        assertTrue(!text.out().contains("AMD performance monitoring"), text.out());
        Run json = Run.of("caps", "--json", "--backend", "sim", "--profile", "skylake");
        assertEquals(false, ((Map<?, ?>) JSON.std.mapFrom(json.out()).get("amd")).get("present"));
    }
}
