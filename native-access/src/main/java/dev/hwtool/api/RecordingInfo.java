package dev.hwtool.api;

import dev.hwtool.arch.perf.PerfEventAttr;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What a recording holds, given to {@link RecordSink#begin}.
 *
 * @param backend  {@link Recorder#backend()}
 * @param target   {@link RecordTarget#describe()}
 * @param events   the events opened, in order; each record is laid out by its own event's attr,
 *                 found by the id it carries (perf's evlist__event2evsel; a file of one event
 *                 needs none)
 * @param auxPmu   the PMU whose AUX area is recorded (e.g. intel_bts with its type), if any
 */
public record RecordingInfo(String backend, String target, List<Event> events, Optional<AuxPmu> auxPmu) {

    public RecordingInfo {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(target, "target");
        events = List.copyOf(events);
        if (events.isEmpty()) {
            throw new IllegalArgumentException("a recording needs at least one event");
        }
        Objects.requireNonNull(auxPmu, "auxPmu");
    }

    /**
     * One opened event.
     *
     * @param name the event's name as perf shows it, e.g. "cycles:u", "intel_bts//u", "branches:u"
     * @param attr the attr as opened (size as negotiated)
     * @param ids  PERF_EVENT_IOC_ID of each fd opened with it (one per CPU or task)
     */
    public record Event(String name, PerfEventAttr attr, List<Long> ids) {
        public Event {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(attr, "attr");
            ids = List.copyOf(ids);
        }
    }

    /**
     * An AUX-area PMU (perf's auxtrace): its dynamic type and the time conversion of its user page,
     * which perf.data's PERF_RECORD_AUXTRACE_INFO for intel_bts carries (tools/perf/util/intel-bts.h).
     */
    public record AuxPmu(String name, int type, int timeShift, long timeMult, long timeZero, boolean capUserTimeZero) {
        public AuxPmu {
            Objects.requireNonNull(name, "name");
        }
    }
}
