package dev.hwtool.linux.perf;

import dev.hwtool.api.EventSpec;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.arch.perf.abi.PerfEventAttr;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Events counted on whole CPUs, every task on them included: one perf event per event and CPU
 * (perf_event_open with pid -1 and cpu N, as {@code perf stat -a -A} opens them), opened enabled
 * and never reset, so each value only grows: what a monitoring agent exports as a counter. Read
 * a count with {@link PerfEvent#value()}: the raw count, not scaled for multiplexing (a scaled
 * estimate could shrink between reads).
 * CPU-wide counting needs CAP_PERFMON (or CAP_SYS_ADMIN) or perf_event_paranoid at 0 or below
 * (perf_event_open → perf_allow_cpu, include/linux/perf_event.h). An event the kernel refuses on
 * any CPU is kept with that failure and counts nothing.
 */
public final class CpuWideCounters implements AutoCloseable {

    /** One event: its per-CPU perf events, or why it cannot be counted here. */
    public record Event(String name, EventSpec spec, Map<Integer, PerfEvent> perCpu, Optional<HwException> failure) {
    }

    private final List<Event> events;

    private CpuWideCounters(List<Event> events) {
        this.events = List.copyOf(events);
    }

    /**
     * Opens every event on every CPU in {@code cpus}, counting user and kernel mode.
     *
     * @throws HwException BAD_INPUT for an event name that does not parse
     */
    public static CpuWideCounters open(PerfEvents perf, PerfPmus pmus, List<String> names, List<Integer> cpus) {
        Objects.requireNonNull(perf, "perf");
        List<EventSpec> specs = names.stream().map(EventSpec::parse).toList();
        List<Event> out = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            EventSpec spec = specs.get(i);
            Map<Integer, PerfEvent> opened = new LinkedHashMap<>();
            try {
                PerfEventAttr.Builder b = RecordingAttrs.event(spec, pmus);
                RecordingAttrs.privilege(b, spec.privilegeOr(Privilege.ALL));
                PerfEventAttr attr = b.build();
                for (int cpu : cpus) {
                    opened.put(cpu, perf.open(attr, -1, cpu, -1, 0));
                }
                out.add(new Event(names.get(i), spec, opened, Optional.empty()));
            } catch (HwException e) {
                PerfEvents.closeAll(List.copyOf(opened.values()));
                out.add(new Event(names.get(i), spec, Map.of(), Optional.of(e)));
            }
        }
        return new CpuWideCounters(out);
    }

    public List<Event> events() {
        return events;
    }

    @Override
    public void close() {
        for (Event e : events) {
            PerfEvents.closeAll(List.copyOf(e.perCpu().values()));
        }
    }
}
