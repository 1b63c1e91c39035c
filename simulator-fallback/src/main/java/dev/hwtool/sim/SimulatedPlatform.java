package dev.hwtool.sim;

import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.api.Platform;

/**
 * The simulator twin of the hardware platform: pure Java, never touches a device, and always
 * says that it is simulated ({@link #kind()} is {@link Kind#SIMULATED}).
 */
public final class SimulatedPlatform implements Platform {

    private final Profile profile;
    private final SimulatedCpuidSource cpuid;
    private final SimClock clock = new SimClock();
    private SimulatedMsrAccess msr;

    public SimulatedPlatform(Profile profile) {
        this.profile = profile;
        this.cpuid = new SimulatedCpuidSource(profile);
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
        return "simulator, profile " + profile.name() + " (" + profile.processor() + ")";
    }

    @Override
    public CpuidSource cpuid() {
        return cpuid;
    }

    /**
     * The simulated MSRs, created on first use and kept for the platform's life: every caller
     * sees the same register state.
     */
    @Override
    public synchronized MsrAccess msr() {
        if (msr == null) {
            msr = new SimulatedMsrAccess(profile, cpuid, clock);
        }
        return msr;
    }

    /** The simulated time that the time-stamp counters follow. */
    public SimClock clock() {
        return clock;
    }

    @Override
    public void close() {
        // Nothing native to release.
    }
}
