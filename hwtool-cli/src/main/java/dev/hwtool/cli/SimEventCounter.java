package dev.hwtool.cli;

import dev.hwtool.api.EventSpec;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.sim.SimulatedPlatform;
import dev.hwtool.sim.record.SimulatedCounting;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The simulator backend of {@code hwtool stat}: the words after {@code --} are a workload spec,
 * run once on the simulated CPU with its counters programmed as Linux's PMU driver would
 * ({@link SimulatedCounting}). Events the profile cannot count (software events, cache events,
 * sysfs PMU events) are {@code <not supported>} with the reason, as on the hardware.
 */
final class SimEventCounter implements EventCounter {

    private final SimulatedCounting counting;
    private final String backend;

    SimEventCounter(SimulatedPlatform platform) {
        this.counting = new SimulatedCounting(platform::machine);
        this.backend = "simulated (profile " + platform.profile().name() + ")";
    }

    @Override
    public String backend() {
        return backend;
    }

    @Override
    public StatResult count(List<EventSpec> events, List<String> command) {
        List<SimulatedCounting.CountRequest> requests = new ArrayList<>();
        List<EventSpec> counted = new ArrayList<>();
        for (EventSpec e : events) {
            if (e.kind() != EventSpec.Kind.PMU) {
                requests.add(new SimulatedCounting.CountRequest(e.text(), e.type(), e.config(), privilege(e)));
                counted.add(e);
            }
        }
        SimulatedCounting.Result result = counting.count(requests,
                new RecordTarget.Workload(RecordRun.workloadSpec(command), Path.of("").toAbsolutePath()));
        List<EventCount> out = new ArrayList<>();
        int next = 0;
        for (EventSpec e : events) {
            if (e.kind() == EventSpec.Kind.PMU) {
                out.add(EventCount.unsupported(e, e.text() + ": sysfs PMU events (" + e.pmu()
                        + "/...) exist on the hardware only", null));
                continue;
            }
            SimulatedCounting.EventCount c = result.events().get(next++);
            out.add(c.supported()
                    ? new EventCount(e.text(), e, true, c.value(), c.timeEnabled(), c.timeRunning(), null, null)
                    : EventCount.unsupported(e, reason(e, c.unsupported().orElseThrow()), null));
        }
        if (out.stream().noneMatch(EventCount::supported)) {
            throw new HwException(Cause.UNSUPPORTED, "no event could be counted; " + out.getFirst().event() + ": "
                    + out.getFirst().error(), "count hardware events (cycles, instructions, branches, branch-misses)");
        }
        return new StatResult(backend, List.copyOf(command), out, 0, result.elapsedNs());
    }

    /** The simulator's reason without its leading "EVENT: ", which the report already prints before it. */
    static String reason(EventSpec e, String why) {
        String prefix = e.text() + ": ";
        return why.startsWith(prefix) ? why.substring(prefix.length()) : why;
    }

    /** :u, :k or both (simulated workloads run at the CPL their spec says). */
    static RecordRequest.Privilege privilege(EventSpec e) {
        return e.privilege();
    }
}
