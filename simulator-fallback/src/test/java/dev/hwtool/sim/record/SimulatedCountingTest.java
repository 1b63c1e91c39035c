package dev.hwtool.sim.record;

import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.PerfType;
import dev.hwtool.sim.SimulatedPlatform;
import dev.hwtool.sim.record.SimulatedCounting.CountRequest;
import dev.hwtool.sim.record.SimulatedCounting.EventCount;
import dev.hwtool.sim.workload.Workloads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SimulatedCountingTest {

    /** workload-loop-counts.hwsim derives it by hand: 24500 instructions, 3999 taken branches. */
    static final String LOOP = "loop seed=3 iterations=100 body=4";

    static List<CountRequest> events(Privilege p) {
        return List.of(new CountRequest("cycles", PerfType.HARDWARE, PerfCount.HW_CPU_CYCLES, p),
                new CountRequest("instructions", PerfType.HARDWARE, PerfCount.HW_INSTRUCTIONS, p),
                new CountRequest("branches", PerfType.HARDWARE, PerfCount.HW_BRANCH_INSTRUCTIONS, p),
                new CountRequest("branch-misses", PerfType.HARDWARE, PerfCount.HW_BRANCH_MISSES, p),
                new CountRequest("ref-cycles", PerfType.HARDWARE, PerfCount.HW_REF_CPU_CYCLES, p),
                new CountRequest("r00c4", PerfType.RAW, 0x00C4, p));
    }

    private static SimulatedCounting.Result count(String profile, List<CountRequest> ev, String spec) {
        return new SimulatedCounting(SimulatedPlatform.of(profile)::machine).count(ev, new RecordTarget.Workload(spec, Path.of("")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"nehalem", "skylake", "alderlake"})
    void countsMatchTheHandDerivedLoop(String profile) {
        Reference ref = Reference.of(Workloads.parse(LOOP, Path.of("")));
        long misses = ref.branches.stream().filter(Reference.Branch::mispredicted).count();
        SimulatedCounting.Result r = count(profile, events(Privilege.USER), LOOP);
        List<Long> values = r.events().stream().map(EventCount::value).toList();
        if (profile.equals("nehalem")) {
            // Nehalem's CPUID.0AH:EBX marks branch mispredicts retired unavailable (erratum AAJ80); Linux then
            // drops the architectural event (intel_arch_events_quirk) and the simulator has no model-specific one.
            assertTrue(r.events().get(3).unsupported().orElseThrow().contains("CPUID.0AH:EBX"));
            misses = 0;
        }
        assertEquals(List.of(24500L, 24500L, 3999L, misses, 24500L, 3999L), values, profile);
        for (EventCount e : r.events()) {
            if (!e.supported()) {
                continue;
            }
            assertEquals(e.timeEnabled(), e.timeRunning(), "all on counters: no multiplexing");
            assertEquals(r.elapsedNs(), e.timeEnabled());
        }
        assertTrue(profile.equals("nehalem") || misses > 0);
    }

    @Test
    void kernelOnlyCountsNothingOfAUserLoop() {
        SimulatedCounting.Result r = count("skylake", events(Privilege.KERNEL), LOOP);
        r.events().forEach(e -> assertEquals(0, e.value(), e.request().name()));
        SimulatedCounting.Result k = count("skylake", events(Privilege.KERNEL), LOOP.replace("body=4", "body=4 cpl=0"));
        assertEquals(24500, k.events().get(1).value());
    }

    /** Core 2: 2 GP counters for 3 GP events — rotated every 4 ms, scaled as perf stat does. */
    @Test
    void moreEventsThanCountersAreMultiplexed() {
        String spec = "loop seed=3 iterations=80000 body=4"; // 19.6 M instructions: 5 rotation intervals
        long instructions = 80000L * 245;
        long branches = 80000L * 39 + 79999;
        SimulatedCounting.Result r = count("core2", events(Privilege.USER), spec);
        long[] truth = {instructions, instructions, branches, -1, instructions, branches};
        boolean multiplexed = false;
        for (int i = 0; i < truth.length; i++) {
            EventCount e = r.events().get(i);
            assertTrue(e.supported(), e.request().name() + ": " + e.unsupported().orElse(""));
            assertTrue(e.timeRunning() > 0, e.request().name() + " ran at some point");
            assertTrue(e.timeRunning() <= e.timeEnabled());
            multiplexed |= e.timeRunning() < e.timeEnabled();
            if (truth[i] > 0) {
                assertTrue(e.value() <= truth[i]);
                double err = Math.abs(e.scaled() - truth[i]) / truth[i];
                assertTrue(err < 0.05, e.request().name() + " scaled " + e.scaled() + " vs " + truth[i]);
            }
        }
        assertTrue(multiplexed);
        assertTrue(r.events().get(5).timeRunning() < r.events().get(5).timeEnabled(), "the raw event waited its turn");
    }

    @Test
    void eventsTheProfileCannotCountAreReportedEachWithItsReason() {
        List<CountRequest> ev = List.of(new CountRequest("task-clock", PerfType.SOFTWARE, 1, Privilege.USER),
                new CountRequest("cache-references", PerfType.HARDWARE, PerfCount.HW_CACHE_REFERENCES, Privilege.USER),
                new CountRequest("instructions", PerfType.HARDWARE, PerfCount.HW_INSTRUCTIONS, Privilege.USER));
        SimulatedCounting.Result r = count("skylake", ev, LOOP);
        assertTrue(r.events().get(0).unsupported().orElseThrow().contains("no software events"));
        assertTrue(r.events().get(1).unsupported().orElseThrow().contains("no caches"));
        assertEquals(24500, r.events().get(2).value());
        SimulatedCounting.Result amd = count("amd-epyc-kvm-guest", ev.subList(2, 3), LOOP);
        assertTrue(amd.events().getFirst().unsupported().orElseThrow().contains("amd-epyc-kvm-guest"));
    }
}
