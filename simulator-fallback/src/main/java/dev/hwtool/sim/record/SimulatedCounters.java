package dev.hwtool.sim.record;

import dev.hwtool.api.Cause;
import dev.hwtool.api.Count;
import dev.hwtool.api.Counters;
import dev.hwtool.api.Counts;
import dev.hwtool.api.EventSpec;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.sim.cpu.LogicalProcessor;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@link Counters} on the simulated CPU 0: each event is put on a fixed or general-purpose
 * counter by the same driver code {@code hwtool stat --backend sim} uses (the kernel's
 * assignment), enabled by {@link #start()} and read and disabled by {@link #stop()}; what the
 * caller retires on CPU 0 in between is counted. Events that do not fit on the counters at once
 * are not rotated within a region: they report time running 0 (no estimate), as an event the
 * kernel never scheduled does. Software and sysfs PMU events are not supported: the simulator
 * runs no kernel.
 *
 * <p>Without a mode modifier an event counts user mode (CPL 3) only, as on hardware.
 *
 * <p>The simulator counts only simulated work: the caller's own Java code runs on the host, not
 * on the simulated CPU. A region in which the simulated CPU retired nothing (no instruction, no
 * cycle) is therefore not a count of zero: every event of it is "not counted" (UNSUPPORTED), and
 * {@link Count#value()} throws that. Between {@code start()} and {@code stop()} drive the CPU,
 * e.g. with {@code SimulatedPlatform.run(String)}.
 */
public final class SimulatedCounters implements Counters {

    private final SimulatedSystem platform;
    private final List<String> names;
    private final List<SimulatedCounting.Counted> all = new ArrayList<>();
    private final SimulatedCounting.Scheduler scheduler;
    private final LogicalProcessor cpu;
    private boolean running;
    private boolean started;
    private boolean closed;
    /** CPU 0's instructions and cycles at {@link #start()}, to tell a region with simulated work from one without. */
    private long startInstructions;
    private long startCycles;

    /**
     * @throws HwException BAD_INPUT for an event that does not parse, or an empty list
     */
    public SimulatedCounters(SimulatedSystem platform, List<String> events) {
        if (events.isEmpty()) {
            throw new HwException(Cause.BAD_INPUT, "no event to count", "name at least one, e.g. instructions");
        }
        this.platform = platform;
        this.names = List.copyOf(events);
        List<EventSpec> specs = events.stream().map(EventSpec::parse).toList();
        LogicalProcessor cpu = platform.machine().cpus().getFirst();
        this.cpu = cpu;
        LinuxPerfDriver driver = new LinuxPerfDriver(cpu, platform.profileName());
        List<SimulatedCounting.Counted> countable = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            EventSpec e = specs.get(i);
            Privilege p = e.privilegeOr(Privilege.USER);
            SimulatedCounting.CountRequest r = new SimulatedCounting.CountRequest(events.get(i), e.type(), e.config(), p);
            SimulatedCounting.Counted c;
            if (e.kind() == EventSpec.Kind.PMU) {
                c = new SimulatedCounting.Counted(r, null, "the simulator has no sysfs PMUs (it runs no kernel)");
            } else {
                try {
                    EventCode code = EventCode.of(e.type(), e.config(), events.get(i));
                    c = new SimulatedCounting.Counted(r, code, driver.cannotCount(code));
                } catch (HwException x) {
                    c = new SimulatedCounting.Counted(r, null, x.getMessage());
                }
            }
            all.add(c);
            if (c.unsupported == null) {
                countable.add(c);
            }
        }
        this.scheduler = new SimulatedCounting.Scheduler(driver, cpu, countable, platform.clock());
    }

    @Override
    public List<String> events() {
        return names;
    }

    @Override
    public void start() {
        ensureOpen();
        if (running) {
            scheduler.schedOut();
        }
        for (SimulatedCounting.Counted c : all) {
            c.value = 0;
            c.running = 0;
        }
        scheduler.enabled = 0;
        scheduler.schedIn();
        running = true;
        started = true;
        startInstructions = cpu.stats().instructions();
        startCycles = cpu.stats().cycles();
    }

    @Override
    public Counts stop() {
        ensureOpen();
        requireStarted("stop()");
        if (running) {
            scheduler.schedOut();
            running = false;
        }
        return counts();
    }

    @Override
    public Counts read() {
        ensureOpen();
        requireStarted("read()");
        if (running) {
            scheduler.schedOut();
            scheduler.schedIn();
        }
        return counts();
    }

    private Counts counts() {
        List<Count> out = new ArrayList<>();
        boolean simulatedWork = cpu.stats().instructions() != startInstructions || cpu.stats().cycles() != startCycles;
        for (SimulatedCounting.Counted c : all) {
            if (c.unsupported == null && !simulatedWork) {
                out.add(new Count(c.request.name(), 0, 0, 0, Optional.of(new HwException(Cause.UNSUPPORTED,
                        "not counted: the simulator counts only simulated work, and the simulated CPU 0 ran none since start()",
                        "run simulated work between start() and stop() (SimulatedPlatform.run(\"loop iterations=1000\")),"
                                + " or count your own code with Platform.open() on hardware"))));
                continue;
            }
            out.add(c.unsupported != null
                    ? new Count(c.request.name(), 0, 0, 0, Optional.of(new HwException(Cause.UNSUPPORTED,
                    c.unsupported, "count hardware events (cycles, instructions, branches, branch-misses) on the simulator")))
                    : new Count(c.request.name(), c.value, scheduler.enabled, c.running, Optional.empty()));
        }
        return new Counts(out, true);
    }

    private void ensureOpen() {
        platform.requireOpen("Counters");
        if (closed) {
            throw new IllegalStateException("these counters are closed");
        }
    }

    /** Before start() there is no count, not a count of zero. */
    private void requireStarted(String call) {
        if (!started) {
            throw new IllegalStateException(call + " before start(): nothing has been counted yet");
        }
    }

    @Override
    public void close() {
        if (!closed && running) {
            scheduler.schedOut();
            running = false;
        }
        closed = true;
    }

    @Override
    public String toString() {
        return "counters on " + platform.description() + ": " + names;
    }
}
