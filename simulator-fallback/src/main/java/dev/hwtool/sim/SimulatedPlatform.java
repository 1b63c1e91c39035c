package dev.hwtool.sim;

import dev.hwtool.api.Cause;
import dev.hwtool.api.Counters;
import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.api.Platform;
import dev.hwtool.sim.cpu.SimClock;
import dev.hwtool.sim.cpu.SimulatedMachine;

import java.util.List;

/**
 * The simulator twin of the hardware platform: pure Java, never touches a device, and always
 * says that it is simulated ({@link #kind()} is {@link Kind#SIMULATED}).
 */
public final class SimulatedPlatform implements Platform {

    private final Profile profile;
    private final SimulatedCpuidSource cpuid;
    private final List<Integer> cpus;
    private final SimClock clock = new SimClock();
    private SimulatedMachine machine;
    private SimulatedMsrAccess msr;
    private volatile boolean closed;
    /** Why {@link Platform#open} used this simulator instead of the machine, or null when asked for directly. */
    volatile String fallbackReason;

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
        ensureOpen();
        return SimulatedCapabilities.of(this);
    }

    @Override
    public CpuidSource cpuid() {
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
            msr = new SimulatedMsrAccess(machine(), profile);
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

    /** Recording of workloads on the simulated CPU ({@link dev.hwtool.sim.record.SimulatedRecorder}). */
    @Override
    public dev.hwtool.api.Recorder recorder() {
        ensureOpen();
        return new dev.hwtool.sim.record.SimulatedRecorder(this);
    }

    /** Counters on the simulated CPU 0 ({@link dev.hwtool.sim.record.SimulatedCounters}); the scope does not matter here. */
    @Override
    public Counters counters(Counters.Scope scope, List<String> events) {
        ensureOpen();
        return new dev.hwtool.sim.record.SimulatedCounters(this, events);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("this platform is closed (" + description() + ")");
        }
    }

    /** Nothing native to release; afterwards every accessor refuses. */
    @Override
    public void close() {
        closed = true;
    }
}
