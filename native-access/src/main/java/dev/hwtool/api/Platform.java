package dev.hwtool.api;

/**
 * One machine, real or simulated. Commands and library users talk to this and never to a
 * backend directly; which backend they hold is decided once and is always visible through
 * {@link #kind()}: a simulated result is never passed off as a real one.
 */
public interface Platform extends AutoCloseable {

    enum Kind { HARDWARE, SIMULATED }

    Kind kind();

    /** e.g. "Linux hardware backend (ffm binding)" or "simulator, profile skylake". */
    String description();

    /** The CPUID source this platform answers with. */
    CpuidSource cpuid();

    /** The model-specific registers: /dev/cpu/N/msr on hardware, the register file in the simulator. */
    MsrAccess msr();

    @Override
    void close();
}
