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

    /**
     * Counters for a region of the caller's code, on the calling thread ({@link Counters.Scope#THREAD}).
     * Events use perf's names: generic ({@code instructions}, {@code cycles}, {@code branch-misses},
     * {@code task-clock}, ...), raw {@code rNNNN}, or {@code PMU/EVENT/}, with {@code :u :k :p}
     * modifiers ({@link EventSpec}); without a mode modifier, user mode only.
     *
     * @throws HwException BAD_INPUT for an event name that does not parse; an event the machine
     *                     cannot count is not thrown here but reported in its {@link Count}
     * @throws IllegalStateException when this platform is closed
     */
    default Counters counters(String... events) {
        return counters(Counters.Scope.THREAD, java.util.List.of(events));
    }

    /** As {@link #counters(String...)}, for the threads {@code scope} names. */
    Counters counters(Counters.Scope scope, java.util.List<String> events);

    @Override
    void close();
}
