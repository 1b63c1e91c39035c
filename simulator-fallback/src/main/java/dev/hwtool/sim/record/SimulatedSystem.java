package dev.hwtool.sim.record;

import dev.hwtool.caps.CpuidReading;
import dev.hwtool.sim.cpu.SimClock;
import dev.hwtool.sim.cpu.SimulatedMachine;

/**
 * What the {@link SimulatedRecorder} and the {@link SimulatedCounters} use of the simulated
 * platform they run on. The platform builds them ({@code SimulatedPlatform.recorder()} and
 * {@code counters()}) and gives them this view of itself rather than itself, so that this package
 * names nothing of the package above it (no package cycle).
 */
public interface SimulatedSystem {

    /** The profile's name: the label of everything simulated on it. */
    String profileName();

    /** What the profile's dump was taken from, e.g. "Core i7-6700K". */
    String processor();

    /** The CPUID the simulated CPUs answer. */
    CpuidReading cpuid();

    /** The simulated machine, made on first use and kept: every caller drives the same CPUs. */
    SimulatedMachine machine();

    /** The simulated time that the time-stamp counters follow. */
    SimClock clock();

    /**
     * For what is taken from the platform ({@code what}: "Recorder", "Counters"): refuses once
     * it is closed.
     *
     * @throws dev.hwtool.api.HwException UNSUPPORTED, saying the platform is closed
     */
    void requireOpen(String what);

    /** The platform, for messages. */
    String description();
}
