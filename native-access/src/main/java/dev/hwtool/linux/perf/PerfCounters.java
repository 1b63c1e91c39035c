package dev.hwtool.linux.perf;

import dev.hwtool.api.Cause;
import dev.hwtool.api.Count;
import dev.hwtool.api.Counters;
import dev.hwtool.api.Counts;
import dev.hwtool.api.EventSpec;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.arch.perf.abi.PerfAttrFlag;
import dev.hwtool.arch.perf.abi.PerfCounts;
import dev.hwtool.arch.perf.abi.PerfEventAttr;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * {@link Counters} on perf_event_open: one counting event per asked event and per thread, opened
 * disabled with read_format TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING, as perf stat opens its
 * counters (tools/perf/builtin-stat.c, create_perf_stat_counter), but without inherit: the
 * counted threads are those that exist now. {@code start()} is PERF_EVENT_IOC_RESET then
 * PERF_EVENT_IOC_ENABLE on each, {@code stop()} PERF_EVENT_IOC_DISABLE then read(2).
 *
 * <p>Without a mode modifier an event counts user mode only (exclude_kernel, exclude_hv): the
 * caller's own code, which every user may count at perf_event_paranoid 2. {@code :k} counts
 * kernel mode only, {@code :uk} both.
 */
public final class PerfCounters implements Counters {

    private record Slot(String event, List<PerfEvent> events, HwException failure) {
    }

    private final PerfEvents perf;
    private final List<String> names;
    private final List<Slot> slots;
    private boolean closed;
    private boolean started;

    private PerfCounters(PerfEvents perf, List<String> names, List<Slot> slots) {
        this.perf = perf;
        this.names = List.copyOf(names);
        this.slots = slots;
    }

    /**
     * Opens {@code events} for {@code scope}. An event the kernel refuses is kept with its cause
     * (see {@link Count#failure()}); a malformed or unknown event name is the caller's mistake.
     *
     * @throws HwException BAD_INPUT for an event that does not parse, or an empty list
     */
    public static PerfCounters open(PerfEvents perf, PerfPmus pmus, Scope scope, List<String> events) {
        Objects.requireNonNull(scope, "scope");
        if (events.isEmpty()) {
            throw new HwException(Cause.BAD_INPUT, "no event to count", "name at least one, e.g. instructions");
        }
        List<EventSpec> specs = events.stream().map(EventSpec::parse).toList();
        List<Integer> tids = scope == Scope.THREAD ? List.of(0) : threadsOfThisProcess();
        List<Slot> slots = new ArrayList<>();
        try {
            for (int i = 0; i < specs.size(); i++) {
                slots.add(openOne(perf, pmus, events.get(i), specs.get(i), tids));
            }
        } catch (RuntimeException e) {
            slots.forEach(s -> PerfEvents.closeAll(s.events()));
            throw e;
        }
        return new PerfCounters(perf, events, slots);
    }

    private static Slot openOne(PerfEvents perf, PerfPmus pmus, String name, EventSpec spec, List<Integer> tids) {
        List<PerfEvent> opened = new ArrayList<>();
        try {
            PerfEventAttr attr = attr(spec, pmus);
            for (int tid : tids) {
                try {
                    opened.add(perf.open(attr, tid, -1, -1, 0));
                } catch (HwException e) {
                    if (tid != 0 && e.getMessage().contains("there is no process " + tid)) {
                        continue; // the thread ended between the listing and the open (ESRCH)
                    }
                    throw e;
                }
            }
            return new Slot(name, opened, null);
        } catch (HwException e) {
            PerfEvents.closeAll(opened);
            return new Slot(name, List.of(), e);
        }
    }

    /** The counting attr of one event: disabled, the time read_format, the event's modes and precision. */
    static PerfEventAttr attr(EventSpec spec, PerfPmus pmus) {
        PerfEventAttr.Builder b = RecordingAttrs.event(spec, pmus)
                .readFormat(RecordingAttrs.COUNT_READ_FORMAT).flag(PerfAttrFlag.DISABLED).preciseIp(spec.precise());
        RecordingAttrs.privilege(b, spec.privilegeOr(Privilege.USER));
        return b.build();
    }

    /** The tids under /proc/self/task, lowest first. */
    static List<Integer> threadsOfThisProcess() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/task"))) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.matches("[0-9]+")).map(Integer::valueOf)
                    .sorted().toList();
        } catch (IOException e) {
            throw new HwException(Cause.OS_ERROR, "cannot list this process's threads in /proc/self/task: " + e.getMessage(),
                    "mount procfs on /proc");
        }
    }

    @Override
    public List<String> events() {
        return names;
    }

    @Override
    public void start() {
        open();
        started = true;
        for (Slot s : slots) {
            for (PerfEvent e : s.events()) {
                e.reset();
            }
        }
        for (Slot s : slots) {
            for (PerfEvent e : s.events()) {
                e.enable();
            }
        }
    }

    @Override
    public Counts stop() {
        open();
        requireStarted("stop()");
        for (Slot s : slots) {
            for (PerfEvent e : s.events()) {
                e.disable();
            }
        }
        return read();
    }

    @Override
    public Counts read() {
        open();
        requireStarted("read()");
        List<Count> out = new ArrayList<>(slots.size());
        for (Slot s : slots) {
            if (s.failure() != null) {
                out.add(new Count(s.event(), 0, 0, 0, Optional.of(s.failure())));
                continue;
            }
            long value = 0;
            long enabled = 0;
            long running = 0;
            for (PerfEvent e : s.events()) {
                PerfCounts c = e.read();
                value += c.value();
                enabled += c.timeEnabled();
                running += c.timeRunning();
            }
            out.add(new Count(s.event(), value, enabled, running, Optional.empty()));
        }
        return new Counts(out, false);
    }

    private void open() {
        if (perf.isClosed()) {
            throw HwException.closed("Counters", "Linux hardware backend");
        }
        if (closed) {
            throw new IllegalStateException("these counters are closed");
        }
    }

    /** The counters were opened disabled: before start() there is no count, not a count of zero. */
    private void requireStarted(String call) {
        if (!started) {
            throw new IllegalStateException(call + " before start(): nothing has been counted yet");
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<PerfEvent> all = new ArrayList<>();
        slots.forEach(s -> all.addAll(s.events()));
        PerfEvents.closeAll(all);
    }
}
