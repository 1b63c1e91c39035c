package dev.hwtool.sim;

import dev.hwtool.api.Cause;
import dev.hwtool.api.Counters;
import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.api.Platform;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.caps.CapabilityReport;
import dev.hwtool.sim.cpu.SimClock;
import dev.hwtool.sim.cpu.SimulatedMachine;
import dev.hwtool.sim.record.SimulatedCounters;
import dev.hwtool.sim.record.SimulatedRecorder;
import dev.hwtool.sim.record.SimulatedSystem;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The simulator twin of the hardware platform: pure Java, never touches a device, and always
 * says that it is simulated ({@link #kind()} is {@link Kind#SIMULATED}).
 *
 * <p>As a test double: each platform is a machine of its own, booted from the profile's values;
 * its careful writes ({@code msr().write(WriteRequest)}) go to a journal of its own, in a temporary
 * directory made at the first write and deleted by {@link #close()}, never to the journal of the
 * real registers; {@link #run(String)} drives a workload through its CPU 0 and
 * {@link #workload(String)} names one for its {@link #recorder()}. Once closed, it refuses every
 * call, and so does everything taken from it (an {@link HwException} whose cause is UNSUPPORTED).
 */
public final class SimulatedPlatform implements Platform {

    private final Profile profile;
    private final SimulatedCpuidSource cpuid;
    private final List<Integer> cpus;
    private final SimClock clock = new SimClock();
    private SimulatedMachine machine;
    private SimulatedMsrAccess msr;
    private volatile boolean closed;
    /** The journal's directory, made at the first careful write that journals; deleted by close. */
    private Path journalDir;
    /** Why {@link Platform#open} used this simulator instead of the machine, or null when asked for directly. */
    volatile String fallbackReason;
    /**
     * This platform as its recorder and counters see it: they take this view, not the platform,
     * so that their package (below this one) names nothing of it. Every call is the platform's own.
     */
    private final SimulatedSystem system = new SimulatedSystem() {
        @Override
        public String profileName() {
            return profile.name();
        }

        @Override
        public String processor() {
            return profile.processor();
        }

        @Override
        public CpuidReading cpuid() {
            return cpuidReading();
        }

        @Override
        public SimulatedMachine machine() {
            return SimulatedPlatform.this.machine();
        }

        @Override
        public SimClock clock() {
            return SimulatedPlatform.this.clock();
        }

        @Override
        public void requireOpen(String what) {
            SimulatedPlatform.this.requireOpen(what);
        }

        @Override
        public String description() {
            return SimulatedPlatform.this.description();
        }
    };

    /** All of the profile's CPUs. */
    public SimulatedPlatform(Profile profile) {
        this.profile = profile;
        this.cpuid = new SimulatedCpuidSource(profile);
        this.cpus = cpuid.cpus();
    }

    /**
     * The profile's first {@code cpuCount} CPUs only.
     *
     * @throws HwException BAD_INPUT when the profile has fewer
     */
    public SimulatedPlatform(Profile profile, int cpuCount) {
        this.profile = profile;
        int available = new SimulatedCpuidSource(profile).cpus().size();
        if (cpuCount < 1 || cpuCount > available) {
            throw new HwException(Cause.BAD_INPUT, "profile " + profile.name() + " has " + available
                    + " CPUs; cannot simulate " + cpuCount);
        }
        this.cpuid = new SimulatedCpuidSource(profile, cpuCount);
        this.cpus = cpuid.cpus();
    }

    /** A built-in profile by name, or a dump file by path. */
    public static SimulatedPlatform of(String profileNameOrFile) {
        return new SimulatedPlatform(Profiles.resolve(profileNameOrFile));
    }

    public Profile profile() {
        return profile;
    }

    @Override
    public Kind kind() {
        return Kind.SIMULATED;
    }

    @Override
    public String description() {
        String d = "simulator, profile " + profile.name() + " (" + profile.processor() + ")";
        return fallbackReason == null ? d : d + ", used instead of this machine because " + fallbackReason;
    }

    /** Why this simulator stands in for the machine ({@link Platform.Options#fallback}), if it does. */
    public java.util.Optional<String> fallbackReason() {
        return java.util.Optional.ofNullable(fallbackReason);
    }

    /** The simulated CPU's own facilities ({@link SimulatedCapabilities}): every reason says SIMULATED. */
    @Override
    public dev.hwtool.api.Capabilities capabilities() {
        return capabilityReport().capabilities();
    }

    /**
     * The verdicts with the decoded simulated CPU they rest on (no kernel facts, no probes). Not
     * public: its types are hwtool's own (dev.hwtool.caps), and what a user asks of the simulated
     * CPU is {@link #capabilities()}; the CLI decodes the profile's CPUID itself ({@link #cpuid()}).
     */
    CapabilityReport capabilityReport() {
        ensureOpen();
        return SimulatedCapabilities.of(this);
    }

    /** The profile's CPUID, as the simulated CPUs answer it (beyond the maximum leaf as the instruction does). */
    @Override
    public CpuidSource cpuid() {
        return cpuidReading();
    }

    /** {@link #cpuid()} with hwtool's own readers of it (the same object: {@code CpuidReading.of} returns it). */
    CpuidReading cpuidReading() {
        ensureOpen();
        return cpuid;
    }

    /**
     * The simulated MSRs, created on first use and kept for the platform's life: every caller
     * sees the same register state.
     */
    @Override
    public synchronized MsrAccess msr() {
        ensureOpen();
        if (msr == null) {
            msr = new SimulatedMsrAccess(machine(), profile, this);
        }
        return msr;
    }

    /**
     * The simulated machine behind {@link #msr()}: its CPUs retire branches and instructions,
     * and their LBR, BTS and counters act on them. Created on first use, kept for the platform's life;
     * each platform's machine is its own, starting at the boot values.
     */
    public synchronized SimulatedMachine machine() {
        ensureOpen();
        if (machine == null) {
            machine = new SimulatedMachine(profile.name(), Profiles.blueprint(profile, cpuid, cpus), clock);
        }
        return machine;
    }

    /** The simulated time that the time-stamp counters follow. */
    public SimClock clock() {
        return clock;
    }

    /** Recording of workloads on the simulated CPU ({@link SimulatedRecorder}). */
    @Override
    public dev.hwtool.api.Recorder recorder() {
        ensureOpen();
        return new SimulatedRecorder(system);
    }

    /** Counters on the simulated CPU 0 ({@link SimulatedCounters}); the scope does not matter here. */
    @Override
    public Counters counters(Counters.Scope scope, List<String> events) {
        ensureOpen();
        return new SimulatedCounters(system, events);
    }

    /**
     * The directory of this platform's own MSR journal, where a careful write that names no
     * journal ({@link dev.hwtool.api.WriteRequest#journal}) goes: a new temporary directory,
     * made on first use and deleted with its journal by {@link #close()}.
     *
     * @throws HwException OS_ERROR when the temporary directory cannot be made
     */
    public synchronized Path journalDirectory() {
        ensureOpen();
        if (journalDir == null) {
            try {
                journalDir = Files.createTempDirectory("hwtool-sim-journal-");
            } catch (IOException e) {
                throw new HwException(Cause.OS_ERROR, "cannot make a temporary directory for the simulator's MSR journal: "
                        + e.getMessage(), "set java.io.tmpdir to a writable directory, or name one with WriteRequest.journal(dir)");
            }
        }
        return journalDir;
    }

    /**
     * Runs {@code spec}, a workload in the grammar {@code hwtool sim run} and {@link #workload}
     * take ({@code loop iterations=1000 body=8}, {@code calltree depth=3 calls=100}, {@code trace
     * FILE}), to its end on simulated CPU 0: the instructions and branches it retires are counted
     * by this platform's {@link #counters}, and recorded by the LBR and BTS that the registers
     * enable, as a program's would be.
     *
     * @return what CPU 0 retired while it ran
     * @throws HwException BAD_INPUT for a spec that does not parse
     */
    public Ran run(String spec) {
        ensureOpen();
        var workload = dev.hwtool.sim.workload.Workloads.parse(spec, Path.of("").toAbsolutePath());
        var cpu = machine().cpus().getFirst();
        var before = cpu.stats();
        workload.run(cpu);
        var after = cpu.stats();
        return new Ran(workload.describe(), after.instructions() - before.instructions(),
                after.branches() - before.branches(), after.cycles() - before.cycles());
    }

    /**
     * What {@link #run(String)} retired on CPU 0.
     *
     * @param workload     the workload in full, every parameter spelled out
     * @param instructions instructions retired (taken branches included)
     * @param branches     taken branches retired
     * @param cycles       core cycles spent
     */
    public record Ran(String workload, long instructions, long branches, long cycles) {
    }

    /**
     * {@code spec} as what this platform's {@link #recorder()} records: a workload (or a scenario
     * script, {@code FILE.hwsim}), relative files against the current directory.
     */
    public dev.hwtool.api.RecordTarget.Workload workload(String spec) {
        ensureOpen();
        return new dev.hwtool.api.RecordTarget.Workload(spec, Path.of("").toAbsolutePath());
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("this platform is closed (" + description() + ")");
        }
    }

    /**
     * For what is taken from this platform ({@code what}: "MsrAccess", "Counters", ...): refuses
     * once the platform is closed.
     *
     * @throws HwException UNSUPPORTED, saying the platform is closed
     */
    public void requireOpen(String what) {
        if (closed) {
            throw HwException.closed(what, description());
        }
    }

    /** Whether {@link #close()} has been called. */
    public boolean isClosed() {
        return closed;
    }

    /**
     * Nothing native to release; deletes this platform's own journal, if a write made one.
     * Afterwards every accessor refuses, and so does everything taken from the platform.
     */
    @Override
    public void close() {
        Path dir;
        synchronized (this) {
            closed = true;
            dir = journalDir;
            journalDir = null;
        }
        if (dir != null) {
            try (Stream<Path> files = Files.walk(dir)) {
                for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete the simulator's MSR journal in " + dir, e);
            }
        }
    }
}
