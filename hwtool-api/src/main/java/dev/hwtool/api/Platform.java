package dev.hwtool.api;

/**
 * One machine, real or simulated: the entry point of the library. Commands and library users
 * talk to this and never to a backend directly; which backend they hold is decided once and is
 * always visible through {@link #kind()}: a simulated result is never passed off as a real one.
 *
 * <pre>{@code
 * try (Platform p = Platform.open()) {                       // this machine
 *     Verdict v = p.capabilities().verdict(Facility.LBR_PERF);
 *     System.out.println(v.usable() ? "yes" : v.message() + v.remedy().map(r -> "; fix: " + r).orElse(""));
 * }
 * try (Platform p = Platform.open(Platform.Options.defaults()
 *         .require(Facility.MSR_READ).fallback("skylake"))) {  // the simulator only if asked, and labelled
 *     ...
 * }
 * }</pre>
 *
 * <p>Every method of a closed platform throws {@link IllegalStateException}, and everything taken
 * from it before ({@link #msr()}, {@link #counters}, {@link #recorder()}) refuses afterwards with
 * an {@link HwException} ({@link HwException#closed}, cause UNSUPPORTED).
 */
public interface Platform extends AutoCloseable {

    enum Kind { HARDWARE, SIMULATED }

    /**
     * How {@link #open(Options)} chooses.
     *
     * @param binding         the hardware backend's native binding: {@code ffm} (default) or {@code jna}
     * @param cpuidSource     where the hardware backend's CPUID comes from: {@code instruction}
     *                        (default) or {@code device} ({@code /dev/cpu/N/cpuid})
     * @param required        facilities the caller needs; when one is not usable on this machine,
     *                        {@code open} falls back (if asked) or throws its cause
     * @param fallbackProfile a simulator profile (name or CPUID dump path) to use instead of this
     *                        machine when it cannot open or lacks a required facility; empty: never
     */
    record Options(String binding, String cpuidSource, java.util.Set<Facility> required,
                   java.util.Optional<String> fallbackProfile) {

        public Options {
            java.util.Objects.requireNonNull(binding, "binding");
            java.util.Objects.requireNonNull(cpuidSource, "cpuidSource");
            required = java.util.Set.copyOf(required);
            java.util.Objects.requireNonNull(fallbackProfile, "fallbackProfile");
        }

        /** The FFM binding, the CPUID instruction, nothing required, no fallback. */
        public static Options defaults() {
            return new Options("ffm", "instruction", java.util.Set.of(), java.util.Optional.empty());
        }

        public Options binding(String name) {
            return new Options(name, cpuidSource, required, fallbackProfile);
        }

        public Options cpuidSource(String source) {
            return new Options(binding, source, required, fallbackProfile);
        }

        /** Facilities that must be usable (added to those already required). */
        public Options require(Facility... facilities) {
            java.util.Set<Facility> all = java.util.EnumSet.noneOf(Facility.class);
            all.addAll(required);
            all.addAll(java.util.List.of(facilities));
            return new Options(binding, cpuidSource, all, fallbackProfile);
        }

        /**
         * Use the simulator with {@code profile} when this machine cannot open or lacks a
         * required facility. The platform then says so: {@link #kind()} is SIMULATED and
         * {@link #description()} names the reason.
         */
        public Options fallback(String profile) {
            return new Options(binding, cpuidSource, required, java.util.Optional.of(profile));
        }
    }

    /** This machine, with the default {@link Options}: never the simulator. */
    static Platform open() {
        return open(Options.defaults());
    }

    /**
     * This machine, or the simulator where {@code options} ask for it as a fallback.
     *
     * @throws HwException the cause, reason and remedy when this machine cannot be opened, or a
     *                     required facility is not usable, and no fallback was asked for
     */
    static Platform open(Options options) {
        return PlatformChooser.open(options);
    }

    Kind kind();

    /** e.g. "Linux hardware backend (ffm binding)" or "simulator, profile skylake". */
    String description();

    /** The CPUID source this platform answers with. */
    CpuidSource cpuid();

    /** The model-specific registers: /dev/cpu/N/msr on hardware, the register file in the simulator. */
    MsrAccess msr();

    /**
     * Recording of this platform: perf_event_open on hardware ({@code PerfRecorder}: a command
     * held before its exec, one event per CPU), the simulated CPU's Linux-like driver on the
     * simulator ({@code SimulatedRecorder}: a workload). Requests a facility cannot serve are
     * refused with {@link HwException} before anything runs.
     */
    Recorder recorder();

    /**
     * What this platform can do, facility by facility, and why not (see {@link Capabilities}).
     * On hardware this tries the perf facilities on this process, as {@code hwtool caps} does.
     */
    Capabilities capabilities();

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
