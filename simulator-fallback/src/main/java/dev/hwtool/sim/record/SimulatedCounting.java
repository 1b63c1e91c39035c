package dev.hwtool.sim.record;

import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.sim.cpu.SimClock;
import dev.hwtool.sim.cpu.LogicalProcessor;
import dev.hwtool.sim.cpu.SimulatedMachine;
import dev.hwtool.sim.workload.Workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * {@code hwtool stat --backend sim}: counts events over one run of a workload with the simulated
 * CPU's own counters, programmed and read through its MSRs as Linux's x86 PMU driver does.
 *
 * <p>Placement (x86_schedule_events with Intel's constraints): instructions may take fixed
 * counter 0, cycles fixed counter 1, ref-cycles only fixed counter 2 (pseudo-encoding 0x0300);
 * everything else a general-purpose counter. When the events do not all fit, the kernel
 * multiplexes: every {@link #MUX_INTERVAL_NS} of simulated time (perf_event_mux_interval_ms,
 * 4 ms at HZ=250) the flexible events are scheduled out, the list rotated by one
 * (perf_rotate_context), and scheduled in again in list order until the first that does not fit
 * (merge_sched_in stops adding hardware then). Each event keeps time_enabled (the whole run) and
 * time_running (while on a counter), so stat can scale as perf does: value * enabled / running.
 *
 * <p>Counts come from the counters (RDMSR), not from the workload's statistics. Events the profile
 * cannot count are reported per event with the reason (software events, cache events, an event
 * CPUID.0AH:EBX marks unavailable, ref-cycles without fixed counter 2), the others still count.
 * The rotation tick is taken between two retirements, as a timer interrupt is.
 */
public final class SimulatedCounting {

    /** perf_event_mux_interval_ms's default (PERF_CPU_HRTIMER = 1000 / HZ, HZ = 250), in ns. */
    public static final long MUX_INTERVAL_NS = 4_000_000;

    /** One event to count: perf's name, perf_event_attr type and config, and privilege (exclude_*). */
    public record CountRequest(String name, int type, long config, Privilege privilege) {
        public CountRequest {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(privilege, "privilege");
        }
    }

    /**
     * One event's result.
     *
     * @param value       the count while it ran (unscaled), 0 when unsupported
     * @param timeEnabled simulated ns the event was enabled (the whole run)
     * @param timeRunning simulated ns it was on a counter
     * @param unsupported why the profile cannot count it, if so
     */
    public record EventCount(CountRequest request, long value, long timeEnabled, long timeRunning,
                             Optional<String> unsupported) {
        public boolean supported() {
            return unsupported.isEmpty();
        }

        /** perf stat's estimate: value scaled by enabled/running (the value itself when never multiplexed). */
        public double scaled() {
            return timeRunning == 0 ? 0 : timeRunning == timeEnabled ? value : (double) value * timeEnabled / timeRunning;
        }
    }

    /** The events in request order, and the simulated run time. */
    public record Result(String backend, List<EventCount> events, long elapsedNs) {
        public Result {
            events = List.copyOf(events);
        }
    }

    private final Supplier<SimulatedMachine> machine;

    /**
     * @param machine the simulated machine to count on, asked for at each count (as
     *                {@code SimulatedPlatform::machine}: made on first use); the profile is its name
     */
    public SimulatedCounting(Supplier<SimulatedMachine> machine) {
        this.machine = machine;
    }

    /** Per-event state while counting. */
    static final class Counted {
        final CountRequest request;
        final EventCode code;
        final String unsupported;
        LinuxPerfDriver.Armed on;
        long value;
        long running;

        Counted(CountRequest request, EventCode code, String unsupported) {
            this.request = request;
            this.code = code;
            this.unsupported = unsupported;
        }
    }

    /**
     * Runs {@code target} once counting {@code events}.
     *
     * @throws HwException BAD_INPUT for a target that is not a workload or does not parse
     */
    public Result count(List<CountRequest> events, RecordTarget.Workload target) {
        List<Workload> workloads = SimulatedTargets.resolve(target);
        SimulatedMachine m = machine.get();
        LogicalProcessor cpu = m.cpus().getFirst();
        LinuxPerfDriver driver = new LinuxPerfDriver(cpu, m.name());
        List<Counted> all = new ArrayList<>();
        List<Counted> flexible = new ArrayList<>();
        for (CountRequest r : events) {
            Counted c;
            try {
                EventCode code = EventCode.of(r.type(), r.config(), r.name());
                c = new Counted(r, code, driver.cannotCount(code));
            } catch (HwException e) {
                c = new Counted(r, null, e.getMessage());
            }
            all.add(c);
            if (c.unsupported == null) {
                flexible.add(c);
            }
        }
        SimClock clock = m.clock();
        Scheduler s = new Scheduler(driver, cpu, flexible, clock);
        s.schedIn();
        TrackingRetirement tracker = new TrackingRetirement(cpu, new ProgramText(), cpu.stats().instructions(),
                SimulatedTargets.entry(workloads));
        if (s.multiplexing()) {
            tracker.tickEvery(MUX_INTERVAL_NS * SimulatedRecorder.NOMINAL_HZ / 1_000_000_000L, s::rotate);
        }
        for (Workload w : workloads) {
            w.run(tracker);
        }
        s.schedOut();
        long enabled = s.enabled;
        List<EventCount> out = new ArrayList<>();
        for (Counted c : all) {
            out.add(c.unsupported != null
                    ? new EventCount(c.request, 0, enabled, 0, Optional.of(c.unsupported))
                    : new EventCount(c.request, c.value, enabled, c.running, Optional.empty()));
        }
        return new Result(SimulatedRecorder.BACKEND_PREFIX + m.name() + ")", out, enabled);
    }

    /** Puts the flexible events on counters, reads them back, rotates. */
    static final class Scheduler {
        private final LinuxPerfDriver driver;
        private final LogicalProcessor cpu;
        private final List<Counted> list;
        private final SimClock clock;
        private long since;
        private boolean allFit = true;
        /** Simulated ns the events have been enabled: the sum of the scheduling intervals. */
        long enabled;

        Scheduler(LinuxPerfDriver driver, LogicalProcessor cpu, List<Counted> list, SimClock clock) {
            this.driver = driver;
            this.cpu = cpu;
            this.list = new ArrayList<>(list);
            this.clock = clock;
        }

        boolean multiplexing() {
            return !allFit;
        }

        void schedIn() {
            boolean[] fixedUsed = new boolean[Math.max(3, cpu.fixedCounters())];
            int nextGp = 0;
            allFit = true;
            for (Counted c : list) {
                EventCode code = c.code;
                LinuxPerfDriver.Armed a = null;
                if (code.fixed() >= 0 && code.fixed() < cpu.fixedCounters() && !fixedUsed[code.fixed()]) {
                    fixedUsed[code.fixed()] = true;
                    a = driver.fixed(code, c.request.privilege(), 0, false);
                } else if (!code.fixedOnly() && nextGp < cpu.gpCounters()) {
                    a = driver.gp(code, nextGp++, c.request.privilege(), 0, false);
                }
                if (a == null) {
                    allFit = false;
                    break; // merge_sched_in: once one does not fit, the rest stay off this round
                }
                c.on = a;
                driver.enableCounting(a);
            }
            since = clock.now();
        }

        void schedOut() {
            long ran = SimulatedRecorder.nanos(clock.now() - since);
            enabled += ran;
            for (Counted c : list) {
                if (c.on != null) {
                    c.value += driver.read(c.on);
                    c.running += ran;
                    driver.disable(c.on);
                    c.on = null;
                }
            }
        }

        void rotate() {
            schedOut();
            list.addLast(list.removeFirst());
            schedIn();
        }
    }
}
